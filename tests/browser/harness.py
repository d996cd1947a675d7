"""What the browser tests drive: a gateway on fake engines served by a real uvicorn on
127.0.0.1 (the page streams over real sockets), and Debian's Chromium through Playwright.

Playwright's own browser download cannot work on these machines; the tests launch the
system Chromium (``apt-get install chromium``) by its path instead.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from engines.config import EngineConfig
from engines.fake import FakeEngine, FakeEngineBehaviour
from engines.protocol import Engine
from router.config import parse_config
from router.gateway import Gateway
from router.http.app import build_app

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMIUM_ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-extensions", "--disable-sync")

# Two engines, a translation route split between two variants (one per engine), a qa route.
PLAYGROUND_CONFIG = """
server: {{record_file: {record_file}}}
default_route: qa
engines:
  qa: {{model: fake-qa, backend: fake, engine_args: {{max_model_len: 4096}}}}
  translation: {{model: fake-mt, backend: fake, engine_args: {{max_model_len: 4096}}}}
routes:
  qa: {{engine: qa}}
  translation:
    engine: translation
    prompt_template: "Translate into {{target_language}}: {{text}}"
    recognize: {{signals: translation}}
    variants:
      - {{name: gemma, engine: translation, weight: 1}}
      - {{name: smol, engine: qa, weight: 1}}
"""


def chromium_path() -> str | None:
    configured = os.environ.get("SWITCHBOARD_CHROMIUM")
    if configured:
        return configured if Path(configured).is_file() else None
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).is_file():
            return candidate
    return shutil.which("chromium")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class FakeServer:
    base_url: str
    record_file: Path
    engines: dict[str, FakeEngine]
    gateway: Gateway

    def record_lines(self) -> list[str]:
        return self.record_file.read_text().splitlines() if self.record_file.exists() else []


@contextmanager
def fake_server(record_file: Path, token_delay_s: float = 0.03) -> Iterator[FakeServer]:
    """The gateway on fake engines that emit one token every `token_delay_s`, served by
    uvicorn on its own thread (so the test thread stays free for Playwright)."""
    config = parse_config(PLAYGROUND_CONFIG.format(record_file=record_file))
    engines: dict[str, FakeEngine] = {}
    ready: list[Gateway] = []

    def factory(engine_config: EngineConfig) -> Engine:
        engine = FakeEngine(engine_config.name, engine_config.model, 4096, 64,
                            behaviour=FakeEngineBehaviour(token_delay_s=token_delay_s))
        engines[engine_config.name] = engine
        return engine

    app = build_app(config, factory, on_state=ready.append)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None,
                                           access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, name="playground-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not (server.started and ready):
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the fake gateway did not start")
        time.sleep(0.02)
    try:
        yield FakeServer(f"http://127.0.0.1:{port}", record_file, engines, ready[0])
    finally:
        server.should_exit = True
        thread.join(timeout=30)
