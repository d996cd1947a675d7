"""A gateway wired to fake engines, for endpoint tests without vLLM."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from starlette.testclient import TestClient

from engines.config import EngineConfig
from engines.fake import FakeEngine, FakeEngineBehaviour
from engines.protocol import Engine
from router.config import GatewayConfig, load_config, parse_config
from router.gateway import Gateway
from router.http.app import build_app

FAKE_CONFIG = """
default_route: qa
engines:
  qa: {model: fake-qa, backend: fake, engine_args: {max_model_len: 64, max_num_seqs: 4},
       sampling: {temperature: 0.5, max_tokens: 8}, max_queue: 2}
  translation: {model: fake-mt, backend: fake, engine_args: {max_model_len: 64}}
routes:
  qa:
    engine: qa
    system_prompt: Be brief.
    sampling: {temperature: 0.6}
  translation:
    engine: translation
    prompt_template: "Translate into {target_language}: {text}"
    recognize: {signals: translation}
  code:
    engine: qa
    timeout_s: 0.3
    max_tokens_cap: 20
    recognize: {keywords: [python function, stack trace]}
    fallback: qa
"""


class FakeGateway:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.engines: dict[str, FakeEngine] = {}
        self.built: list[FakeEngine] = []  # every engine ever made, replaced ones too
        self.state: Gateway | None = None

    def factory(self, engine_config: EngineConfig) -> Engine:
        # A model named "fail-start" fails to start, as a model that cannot load would.
        behaviour = FakeEngineBehaviour(fail_start=engine_config.model == "fail-start")
        engine = FakeEngine(
            engine_config.name,
            engine_config.model,
            int(engine_config.engine_args.get("max_model_len", 512)),
            int(engine_config.engine_args.get("max_num_seqs", 64)),
            behaviour=behaviour,
        )
        self.engines[engine_config.name] = engine
        self.built.append(engine)
        return engine

    def on_state(self, state: Gateway) -> None:
        self.state = state


@contextmanager
def fake_client(
    config_text: str = FAKE_CONFIG, path: Path | None = None
) -> Iterator[tuple[TestClient, FakeGateway]]:
    """A TestClient on fake engines; with `path`, the config lives in a file (for reloads)."""
    if path is not None:
        path.write_text(config_text)
        config = load_config(path)
    else:
        config = parse_config(config_text)
    gateway = FakeGateway(config)
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)
    with TestClient(app) as client:
        yield client, gateway
