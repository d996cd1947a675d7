"""SIGTERM with a stream in flight: it finishes, the process exits 0, no engine survives."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import psutil
import pytest

from tests.integration.conftest import REPO, BackgroundStream, start_gateway, stop_gateway

pytestmark = pytest.mark.integration

ONE_ENGINE = """
server: {shutdown_timeout_s: 60}
engines:
  qa:
    model: builtin:smollm2-135m-instruct
    engine_args: {dtype: float32, max_model_len: 1024, max_num_seqs: 8,
                  kv_cache_memory_bytes: 268435456, enforce_eager: true}
routes:
  qa: {engine: qa}
"""


def test_sigterm_lets_the_stream_finish_and_leaves_no_process(tmp_path: Path) -> None:
    config = tmp_path / "routes.yaml"
    config.write_text(ONE_ENGINE)
    gateway = start_gateway(config, tmp_path / "gateway.log")
    children = psutil.Process(gateway.process.pid).children(recursive=True)
    assert children, "the engine-core process should be a child of the gateway"
    body = {"model": "qa", "stream": True, "max_tokens": 64, "ignore_eos": True,
            "messages": [{"role": "user", "content": "Tell me about the sea."}]}
    stream = BackgroundStream(f"{gateway.base_url}/v1/chat/completions", body).start()
    lines = stream.lines
    try:
        assert stream.started.wait(60)
        gateway.process.send_signal(signal.SIGTERM)
        # While draining the gateway refuses new work and says so on /ready.
        refused = httpx.post(f"{gateway.base_url}/v1/chat/completions", json={
            "model": "qa", "messages": [{"role": "user", "content": "hi"}]}, timeout=30)
        assert refused.status_code == 503
        assert httpx.get(f"{gateway.base_url}/ready", timeout=30).status_code == 503
        stream.join(120)
        assert gateway.process.wait(120) == 0
    finally:
        stop_gateway(gateway)
    assert lines[-1] == "data: [DONE]"
    content = [line for line in lines if '"content":"' in line]
    assert len(content) >= 60  # the whole answer, not a cut-off stream
    # With the spawn start method the gateway also has multiprocessing's resource tracker as
    # a child; it exits on its own once the gateway's end of its pipe closes, so give the
    # children a few seconds to go (the engine core itself is waited for before exit).
    _, still = psutil.wait_procs(children, timeout=10)
    alive = [c.pid for c in still if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert alive == []
    assert "drain_started" in gateway.log()
    assert REPO.exists()
