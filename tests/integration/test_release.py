"""On a real engine: clients that hang up around a first-token timeout — many of them while
the gateway awaits the engine abort — leave nothing outstanding, and the engine serves on."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import RunningGateway, start_gateway, stop_gateway

pytestmark = pytest.mark.integration

CONFIG = """
engines:
  qa:
    model: builtin:smollm2-135m-instruct
    engine_args: {dtype: float32, max_model_len: 1024, max_num_seqs: 4,
                  kv_cache_memory_bytes: 268435456, enforce_eager: true}
    max_queue: 60
routes:
  qa: {engine: qa, first_token_timeout_s: 0.05}
"""


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningGateway]:
    folder = tmp_path_factory.mktemp("release")
    (folder / "routes.yaml").write_text(CONFIG)
    running = start_gateway(folder / "routes.yaml", folder / "gateway.log")
    yield running
    stop_gateway(running)


def _hang_up_after(base_url: str, seconds: float, codes: list[int | str]) -> None:
    # A long prompt: its prefill outlasts the 50 ms first-token timeout.
    body = {"model": "qa", "max_tokens": 16,
            "messages": [{"role": "user", "content": "Summarise this. " + "word " * 300}]}
    try:
        response = httpx.post(f"{base_url}/v1/chat/completions", json=body,
                              timeout=httpx.Timeout(seconds, connect=5))
        codes.append(response.status_code)
    except httpx.TimeoutException:
        codes.append("hung up")


def test_hang_ups_during_timeout_aborts_leave_nothing_outstanding(
    gateway: RunningGateway,
) -> None:
    codes: list[int | str] = []
    # Hang-ups from 50 ms to 2.4 s: before the timeout, while its abort runs, after the 504.
    threads = [threading.Thread(target=_hang_up_after,
                                args=(gateway.base_url, 0.05 + 0.1 * i, codes))
               for i in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert "hung up" in codes and 504 in codes  # both ends of the race were reached
    assert set(codes) <= {"hung up", 504}
    assert gateway.wait_engine_idle("qa", timeout_s=30) == 0
    status = gateway.status()
    engines = status["engines"]
    assert isinstance(engines, dict)
    assert status["active_requests"] == 0
    assert engines["qa"]["outstanding"] == 0 and engines["qa"]["in_flight"] == 0
    short = {"model": "engine:qa", "max_tokens": 2,
             "messages": [{"role": "user", "content": "Hi"}]}
    assert httpx.post(f"{gateway.base_url}/v1/chat/completions", json=short,
                      timeout=60).status_code == 200
