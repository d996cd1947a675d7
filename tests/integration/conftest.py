"""A real gateway: `switchboard serve` in a subprocess on 127.0.0.1, real vLLM CPU engines.

The server runs the repository's default routes.yaml (SmolLM2 for qa, Gemma-3 for
translation). TestClient and ASGI transports buffer bodies, so timing and disconnects are
only meaningful against a real server over real sockets.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 600


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RunningGateway:
    process: subprocess.Popen[bytes]
    base_url: str
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def status(self) -> dict[str, object]:
        response = httpx.get(f"{self.base_url}/admin/status", timeout=10)
        response.raise_for_status()
        data: dict[str, object] = response.json()
        return data

    def engine_unfinished(self, engine: str) -> int:
        engines = self.status()["engines"]
        assert isinstance(engines, dict)
        return int(engines[engine]["engine_unfinished"])

    def wait_engine_idle(self, engine: str, timeout_s: float = 20.0) -> int:
        deadline = time.monotonic() + timeout_s
        unfinished = self.engine_unfinished(engine)
        while unfinished and time.monotonic() < deadline:
            time.sleep(0.2)
            unfinished = self.engine_unfinished(engine)
        return unfinished


@dataclass
class BackgroundStream:
    """A streamed request read on a thread, so a test can signal the gateway mid-stream."""

    url: str
    body: dict[str, object]
    lines: list[str] = field(default_factory=list)
    started: threading.Event = field(default_factory=threading.Event)  # first line read
    _reader: threading.Thread | None = None

    def start(self) -> BackgroundStream:
        self._reader = threading.Thread(target=self._consume)
        self._reader.start()
        return self

    def join(self, timeout_s: float) -> None:
        assert self._reader is not None
        self._reader.join(timeout_s)

    def _consume(self) -> None:
        with httpx.stream("POST", self.url, json=self.body, timeout=120) as response:
            for line in response.iter_lines():
                if line:
                    self.lines.append(line)
                    self.started.set()


def start_gateway(config: Path, log_path: Path) -> RunningGateway:
    port = free_port()
    command = [sys.executable, "-m", "router.cli", "serve", "--config", str(config),
               "--port", str(port)]
    log_file = log_path.open("wb")
    process = subprocess.Popen(command, cwd=REPO, stdout=log_file, stderr=subprocess.STDOUT,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    gateway = RunningGateway(process, f"http://127.0.0.1:{port}", log_path)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = gateway.log()[-4000:]
            raise RuntimeError(f"gateway exited with {process.returncode}:\n{tail}")
        try:
            if httpx.get(f"{gateway.base_url}/ready", timeout=2).status_code == 200:
                return gateway
        except httpx.HTTPError:
            pass
        time.sleep(1)
    process.kill()
    raise RuntimeError(f"gateway not ready after {START_TIMEOUT_S} s:\n{gateway.log()[-4000:]}")


def stop_gateway(gateway: RunningGateway, timeout_s: float = 60) -> int:
    if gateway.process.poll() is None:
        gateway.process.send_signal(signal.SIGTERM)
        try:
            gateway.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            gateway.process.kill()
            gateway.process.wait()
    return gateway.process.returncode


@pytest.fixture(scope="session")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningGateway]:
    log_path = tmp_path_factory.mktemp("gateway") / "gateway.log"
    running = start_gateway(REPO / "routes.yaml", log_path)
    yield running
    stop_gateway(running)
