"""vLLM's own parallelism passes through to AsyncEngineArgs, and a pinned engine's core
processes are built with its GPUs as CUDA_VISIBLE_DEVICES — checked against the installed vLLM
without starting an engine (no GPU, no Ray here: the multi-GPU run is issue 17's)."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest

from engines import vllm_engine
from engines.config import EngineConfig
from engines.placement import CUDA_VISIBLE_DEVICES, ENGINE_START_LOCK
from router.config import parse_config

# The one unit test module that imports vLLM (AsyncEngineArgs is what is under test).
pytest.importorskip("vllm.engine.arg_utils", reason="needs the installed vLLM's AsyncEngineArgs")

PARALLEL_ARGS: dict[str, Any] = {
    "tensor_parallel_size": 2,
    "pipeline_parallel_size": 2,
    "data_parallel_size": 2,
    "distributed_executor_backend": "ray",
    "data_parallel_backend": "ray",
}
YAML = """
engines:
  big:
    model: /models/big
    engine_args: {tensor_parallel_size: 2, pipeline_parallel_size: 2, data_parallel_size: 2,
                  distributed_executor_backend: ray, data_parallel_backend: ray}
routes:
  big: {engine: big}
"""


def test_routes_yaml_accepts_the_parallel_fields_as_async_engine_args() -> None:
    names = vllm_engine.async_engine_arg_names()
    assert set(PARALLEL_ARGS) | {"device_ids"} <= names
    config = parse_config(YAML, engine_arg_names=names)
    assert dict(config.engines["big"].engine_args) == PARALLEL_ARGS


def test_the_parallel_fields_reach_async_engine_args_untouched() -> None:
    config = parse_config(YAML, engine_arg_names=vllm_engine.async_engine_arg_names())
    args = vllm_engine.build_engine_args(config.engines["big"], "/models/big")
    for key, value in PARALLEL_ARGS.items():
        assert getattr(args, key) == value, key
    assert args.model == "/models/big" and args.served_model_name == "big"


class RecordingAsyncLLM:
    """Stands in for AsyncLLM.from_engine_args: records the environment the engine-core
    processes would be spawned with."""

    def __init__(self) -> None:
        self.seen: list[str | None] = []
        self.inside = threading.Event()
        self.release = threading.Event()

    def from_engine_args(self, engine_args: Any, stat_loggers: Any = None) -> str:
        self.seen.append(os.environ.get(CUDA_VISIBLE_DEVICES))
        self.inside.set()
        self.release.wait(5)
        return "llm"


def test_a_pinned_engine_is_built_with_its_gpus_visible_and_nothing_else(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vllm.v1.engine import async_llm

    recorder = RecordingAsyncLLM()
    monkeypatch.setattr(async_llm.AsyncLLM, "from_engine_args", recorder.from_engine_args)
    monkeypatch.setenv(CUDA_VISIBLE_DEVICES, "2,3")
    pinned = EngineConfig("mt", "/models/mt", gpus=(1,))
    plain = EngineConfig("qa", "/models/qa")
    results: list[str] = []
    first = threading.Thread(target=lambda: results.append(
        vllm_engine.build_async_llm(pinned, None, [])))
    first.start()
    assert recorder.inside.wait(5)
    assert ENGINE_START_LOCK.visible_devices() == "2,3"
    second = threading.Thread(target=lambda: results.append(
        vllm_engine.build_async_llm(plain, None, [])))
    second.start()
    second.join(0.3)
    assert second.is_alive()  # waits for the pinned build: it must not see GPU 3 alone
    recorder.release.set()
    first.join(5)
    second.join(5)
    assert recorder.seen == ["3", "2,3"]
    assert results == ["llm", "llm"]
    assert os.environ[CUDA_VISIBLE_DEVICES] == "2,3"


def test_vllm_statistics_are_off_unless_routes_yaml_asks_for_them() -> None:
    # Off: vLLM computes no per-token statistics, and the gateway reports no scheduler
    # gauges it cannot know (None, not a made-up 0).
    off = vllm_engine.build_engine_args(EngineConfig("qa", "/models/qa"), "/models/qa")
    assert off.disable_log_stats is True
    assert vllm_engine.VllmEngine(EngineConfig("qa", "/models/qa")).stats().running is None
    asked = EngineConfig("qa", "/models/qa", engine_args={"disable_log_stats": False})
    assert vllm_engine.build_engine_args(asked, "/models/qa").disable_log_stats is False


@pytest.mark.parametrize("accelerator", [True, False])
def test_engines_build_one_at_a_time_on_an_accelerator_and_together_on_cpu(
        monkeypatch: pytest.MonkeyPatch, accelerator: bool) -> None:
    from vllm.platforms import current_platform
    from vllm.v1.engine import async_llm

    recorder = RecordingAsyncLLM()
    monkeypatch.setattr(async_llm.AsyncLLM, "from_engine_args", recorder.from_engine_args)
    monkeypatch.setattr(type(current_platform), "is_cpu", lambda self: not accelerator)
    builds = [threading.Thread(target=vllm_engine.build_async_llm,
                               args=(EngineConfig(name, f"/models/{name}"), None, []))
              for name in ("qa", "mt")]
    for build in builds:
        build.start()
    assert recorder.inside.wait(5)
    time.sleep(0.3)
    # on a GPU the second build waits until the first has profiled and allocated its memory
    assert len(recorder.seen) == (1 if accelerator else 2)
    recorder.release.set()
    for build in builds:
        build.join(5)
    assert len(recorder.seen) == 2
