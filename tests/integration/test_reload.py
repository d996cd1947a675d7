"""Hot reload on real CPU engines with traffic running throughout."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil
import pytest

from tests.integration.conftest import RunningGateway, start_gateway, stop_gateway

pytestmark = pytest.mark.integration

ENGINES = """
server: {reload_drain_timeout_s: 60}
engines:
  qa:
    model: builtin:smollm2-135m-instruct
    engine_args: {dtype: float32, max_model_len: 1024, max_num_seqs: 8,
                  kv_cache_memory_bytes: 268435456, enforce_eager: true}
  TRANSLATION_ENGINE:
    model: TRANSLATION_MODEL
    engine_args: {dtype: float32, max_model_len: 1024, max_num_seqs: 8,
                  kv_cache_memory_bytes: 268435456, enforce_eager: true}
routes:
  qa: {engine: qa, sampling: {max_tokens: 8}}
  translation:
    engine: TRANSLATION_ENGINE
    sampling: {max_tokens: MAX_TOKENS}
    prompt_template: "Translate into {target_language}: {text}\\n"
"""


def config(engine: str = "translation", model: str = "builtin:gemma-3-270m",
           max_tokens: int = 8) -> str:
    return (ENGINES.replace("TRANSLATION_ENGINE", engine)
            .replace("TRANSLATION_MODEL", model).replace("MAX_TOKENS", str(max_tokens)))


@dataclass
class SteadyTraffic:
    """Requests on both routes, one after another, for as long as the test runs."""

    base_url: str
    statuses: Counter[int] = field(default_factory=Counter)
    engines: list[tuple[float, str]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=120) as client:
            while not self.stop.is_set():
                for model, text in (("translation", "Translate into French: good night"),
                                    ("qa", "Name a colour.")):
                    response = client.post("/v1/chat/completions", json={
                        "model": model, "messages": [{"role": "user", "content": text}]})
                    self.statuses[response.status_code] += 1
                    if model == "translation" and response.status_code == 200:
                        self.engines.append((time.monotonic(),
                                             response.headers["x-switchboard-engine"]))


def reload(gateway: RunningGateway, **params: str) -> tuple[int, dict[str, object]]:
    response = httpx.post(f"{gateway.base_url}/admin/reload", params=params, timeout=600)
    return response.status_code, response.json()


def engine_pids(gateway: RunningGateway, name: str) -> list[int]:
    engines = gateway.status()["engines"]
    assert isinstance(engines, dict)
    return list(engines[name]["pids"])


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_reload_swaps_models_with_zero_failed_requests(tmp_path: Path) -> None:
    path = tmp_path / "routes.yaml"
    path.write_text(config())
    gateway = start_gateway(path, tmp_path / "gateway.log")
    traffic = SteadyTraffic(gateway.base_url)
    worker = threading.Thread(target=traffic.run)
    worker.start()
    try:
        gemma_pids = engine_pids(gateway, "translation")
        qa_pids = engine_pids(gateway, "qa")
        assert gemma_pids and qa_pids

        # An invalid file changes nothing.
        path.write_text(config().replace("max_num_seqs: 8", "max_num_seqz: 8", 1))
        status, body = reload(gateway)
        assert status == 422 and "max_num_seqz" in str(body["error"])

        # A model that cannot load leaves the old config serving.
        broken = tmp_path / "broken-model"
        broken.mkdir()
        (broken / "config.json").write_text("{}")
        path.write_text(config(engine="translation", model=str(broken)))
        status, body = reload(gateway)
        assert status == 503 and body["error_kind"] == "engine_failed"
        assert engine_pids(gateway, "translation") == gemma_pids

        # A route-only change applies without touching any engine.
        path.write_text(config(max_tokens=6))
        status, body = reload(gateway)
        assert status == 200 and body["strategy"] == "routes_only"
        assert engine_pids(gateway, "translation") == gemma_pids
        assert engine_pids(gateway, "qa") == qa_pids

        # Swap the translation route onto a different model (a new engine), retiring Gemma.
        path.write_text(config(engine="translation-smollm",
                               model="builtin:smollm2-135m-instruct"))
        asked = time.monotonic()
        status, body = reload(gateway)
        switched = time.monotonic()
        assert status == 200 and body["ok"] is True, body
        # The reload returned after retiring Gemma: its process is gone, the gateway runs on.
        assert not [pid for pid in gemma_pids if _alive(pid)]
        assert engine_pids(gateway, "qa") == qa_pids
        time.sleep(3)  # a few more requests after the switch
    finally:
        traffic.stop.set()
        worker.join(120)
        stop_gateway(gateway)
    assert set(traffic.statuses) == {200}, traffic.statuses  # zero failed requests
    after = [engine for at, engine in traffic.engines if at > switched + 0.5]
    before = [engine for at, engine in traffic.engines if at < asked]
    assert after and set(after) == {"translation-smollm"}
    assert before and set(before) == {"translation"}
