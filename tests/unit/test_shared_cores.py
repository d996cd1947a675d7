"""engines.shared_cores without vLLM: which engines share cores, and what a failed core
start does with and without server.allow_degraded_start."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from engines.config import EngineConfig
from engines.shared_cores import SharedCores, shares_core


def _engine(name: str, backend: str = "vllm") -> EngineConfig:
    return EngineConfig(name=name, model=f"m-{name}", backend=backend)


class _Launch:
    def __init__(self, log: list[str], name: str) -> None:
        self.log, self.name = log, name
        self.manager = SimpleNamespace(processes=[])

    def shutdown(self) -> None:
        self.log.append(f"stop {self.name}")

    def client_addresses(self, index: int) -> dict[str, Any]:
        return {"input_address": f"ipc:///{self.name}-in{index}"}


def _cores(monkeypatch: pytest.MonkeyPatch, log: list[str], fail: str,
           allow: bool) -> SharedCores:
    engines = [_engine("qa"), _engine("mt"), _engine("far", "remote"), _engine("ok")]
    cores = SharedCores(engines, 2, allow_failures=allow)

    def launch(config: EngineConfig) -> None:
        if config.name == fail:
            raise RuntimeError(f"engine {config.name!r}: its cores failed to start: boom")
        log.append(f"start {config.name}")
        cores._launches[config.name] = _Launch(log, config.name)
        cores._model_paths[config.name] = config.model

    monkeypatch.setattr(cores, "_launch", launch)
    return cores


def test_only_local_vllm_engines_share_cores() -> None:
    assert [shares_core(_engine("a", b)) for b in ("vllm", "remote", "fake")] == [
        True, False, False]


def test_a_failed_core_start_stops_what_started_and_names_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log: list[str] = []
    cores = _cores(monkeypatch, log, fail="mt", allow=False)
    with pytest.raises(RuntimeError, match="engine 'mt'"):
        cores.start()
    assert log == ["start qa", "stop qa"]
    assert cores.attachments(0) == {}


def test_a_degraded_start_serves_the_others_and_names_the_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log: list[str] = []
    cores = _cores(monkeypatch, log, fail="mt", allow=True)
    cores.start()
    assert log == ["start qa", "start ok"]
    assert set(cores.failed) == {"mt"}
    attached = cores.attachments(1)
    assert sorted(attached) == ["ok", "qa"]
    assert attached["qa"].client_index == 1 and attached["qa"].client_count == 2
    assert attached["qa"].client_addresses == {"input_address": "ipc:///qa-in1"}
    cores.close()
    assert log[-2:] == ["stop qa", "stop ok"]


def test_an_engine_whose_cores_failed_fails_its_start_with_the_reason() -> None:
    from engines.vllm_engine import CoresFailedEngine

    engine = CoresFailedEngine(_engine("mt"), "engine 'mt': its cores failed to start: boom")
    with pytest.raises(RuntimeError, match="cores failed to start: boom"):
        asyncio.run(engine.start())
