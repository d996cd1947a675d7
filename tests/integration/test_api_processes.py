"""server.api_processes: 2 on a real vLLM engine: both API processes serve from one engine
core, a reload is refused, SIGTERM drains a stream and leaves no process, and an API process
that dies stops the gateway (non-zero) with its cores."""

from __future__ import annotations

import os
import signal
import tempfile
import time
from pathlib import Path

import httpx
import psutil
import pytest

from tests.integration.conftest import (
    BackgroundStream,
    RunningGateway,
    start_gateway,
    stop_gateway,
)

pytestmark = pytest.mark.integration

TWO_PROCESSES = """
server: {shutdown_timeout_s: 60, api_processes: 2, log_format: json}
engines:
  qa:
    model: builtin:smollm2-135m-instruct
    engine_args: {dtype: float32, max_model_len: 1024, max_num_seqs: 8,
                  kv_cache_memory_bytes: 268435456, enforce_eager: true}
routes:
  qa: {engine: qa}
"""
CHAT = {"model": "qa", "max_tokens": 4, "messages": [{"role": "user", "content": "Hi"}]}


def _start(tmp_path: Path) -> RunningGateway:
    config = tmp_path / "routes.yaml"
    config.write_text(TWO_PROCESSES)
    gateway = start_gateway(config, tmp_path / "gateway.log")
    deadline = time.monotonic() + 300
    while "switchboard ready" not in gateway.log():  # every API process, not only one
        assert gateway.process.poll() is None, gateway.log()[-3000:]
        assert time.monotonic() < deadline, gateway.log()[-3000:]
        time.sleep(0.5)
    return gateway


def _processes(gateway: RunningGateway) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """(API processes, engine-core processes) under the supervisor."""
    children = psutil.Process(gateway.process.pid).children(recursive=True)
    api = [c for c in children if "multiprocessing.spawn" in " ".join(c.cmdline())
           and c.ppid() == gateway.process.pid]
    cores = [c for c in children if c.name().startswith("VLLM") or "EngineCore" in c.name()]
    return api, cores


def _gone(processes: list[psutil.Process]) -> list[int]:
    _, still = psutil.wait_procs(processes, timeout=15)
    return [p.pid for p in still if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def test_two_api_processes_share_one_core_and_drain_on_sigterm(tmp_path: Path) -> None:
    gateway = _start(tmp_path)
    try:
        api, cores = _processes(gateway)
        assert len(api) == 2
        assert cores, "the engine core runs under the supervisor"
        # Fresh connections land on either process; both answer from the one core.
        answered_by = set()
        for _ in range(24):
            with httpx.Client(timeout=60) as client:  # a new connection each time
                response = client.post(f"{gateway.base_url}/v1/chat/completions", json=CHAT)
                assert response.status_code == 200, response.text
                assert response.json()["choices"][0]["message"]["content"] is not None
        log = gateway.log()
        for index in (0, 1):
            if f'"api_process": {index}' in log or f'"api_process":{index}' in log:
                answered_by.add(index)
        assert answered_by == {0, 1}
        # Whichever process answers a scrape, it counts every process's requests.
        for _ in range(6):
            with httpx.Client(timeout=30) as client:
                scrape = client.get(f"{gateway.base_url}/metrics").text
            ok = [line for line in scrape.splitlines()
                  if line.startswith("switchboard_requests_total{") and 'outcome="ok"' in line]
            assert len(ok) == 1 and float(ok[0].rsplit(" ", 1)[1]) == 24, ok
            assert "switchboard_engine_outstanding_requests" in scrape
        # Each admits its share of the engine's bound (max_num_seqs 8 over 2 processes).
        assert gateway.status()["engines"]["qa"]["max_in_flight"] == 4  # type: ignore[index]
        refused = httpx.post(f"{gateway.base_url}/admin/reload", timeout=30)
        assert refused.status_code == 409
        assert "api_processes" in refused.json()["error"]

        body = {**CHAT, "stream": True, "max_tokens": 64, "ignore_eos": True}
        stream = BackgroundStream(f"{gateway.base_url}/v1/chat/completions", body).start()
        assert stream.started.wait(60)
        gateway.process.send_signal(signal.SIGTERM)
        stream.join(120)
        assert gateway.process.wait(120) == 0
    finally:
        stop_gateway(gateway)
    assert stream.lines[-1] == "data: [DONE]"
    assert len([line for line in stream.lines if '"content":"' in line]) >= 60
    assert _gone(api + cores) == []
    assert not list(Path(tempfile.gettempdir()).glob(f"switchboard-metrics-*{os.sep}*_"
                                                     f"{api[0].pid}.db"))  # folder removed


def test_an_api_process_that_dies_stops_the_gateway_and_its_cores(tmp_path: Path) -> None:
    gateway = _start(tmp_path)
    try:
        api, cores = _processes(gateway)
        os.kill(api[0].pid, signal.SIGKILL)
        assert gateway.process.wait(120) == 1
    finally:
        stop_gateway(gateway)
    assert "stopping the gateway" in gateway.log()
    assert _gone(api + cores) == []


FAKE_TWO_PROCESSES = """
server: {api_processes: 2, port: PORT}
engines:
  qa: {model: fake-qa, backend: fake}
routes:
  qa: {engine: qa}
"""


def test_a_taken_port_fails_the_start_naming_it(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    from tests.integration.conftest import REPO

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "routes.yaml"
        config.write_text(FAKE_TWO_PROCESSES.replace("PORT", str(port)))
        done = subprocess.run([sys.executable, "-m", "router.cli", "serve", "--config",
                               str(config)], cwd=REPO, capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 3
    assert f"cannot bind 127.0.0.1:{port}" in done.stderr
