"""An engine that fails to start is never hidden: start-up fails naming it, unless the
config allows a degraded start; the ready line lists only the engines that are up."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from engines.config import EngineConfig
from engines.fake import FakeEngine, FakeEngineBehaviour
from engines.protocol import Engine
from router.cli import main
from router.config import parse_config
from router.http.app import EngineStartError, build_app
from tests.unit.fakes import FakeGateway

CONFIG = """
server: {{allow_degraded_start: {degraded}}}
engines:
  qa: {{model: fake-qa, backend: fake}}
  mt: {{model: fail-start, backend: fake}}
routes:
  qa: {{engine: qa}}
  mt: {{engine: mt}}
"""


def test_an_engine_that_fails_to_start_fails_the_start_up() -> None:
    gateway = FakeGateway(parse_config(CONFIG.format(degraded="false")))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)
    with pytest.raises(EngineStartError, match=r"engine 'mt' failed to start: .*fake"), \
            TestClient(app):
        pass
    assert gateway.state is None  # never announced ready
    assert all(engine.closed for engine in gateway.built)  # the one that started is closed


def test_a_degraded_start_is_allowed_when_asked_for() -> None:
    gateway = FakeGateway(parse_config(CONFIG.format(degraded="true")))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)
    with TestClient(app) as client:
        assert client.get("/ready").status_code == 503
        assert client.post("/v1/chat/completions", json={
            "model": "qa", "messages": [{"role": "user", "content": "hi"}]}).status_code == 200
        assert gateway.state is not None
        assert gateway.state.ready_engines() == ["qa"]


def test_serve_exits_non_zero_naming_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def failing_factory(config: EngineConfig) -> Engine:
        behaviour = FakeEngineBehaviour(fail_start=config.name == "mt")
        return FakeEngine(config.name, config.model, behaviour=behaviour)

    monkeypatch.setattr("engines.factory.build_engine", failing_factory)
    monkeypatch.setattr("router.cli._engine_arg_names", lambda: None)  # no vLLM import here
    path = tmp_path / "routes.yaml"
    path.write_text(CONFIG.format(degraded="false"))
    code = main(["serve", "--config", str(path), "--port", "0"])
    err = capsys.readouterr().err
    assert code != 0
    assert "engine 'mt' failed to start" in err


def test_watch_is_refused_with_several_api_processes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """--watch reloads routes.yaml, which API processes sharing engine cores cannot do."""
    config = tmp_path / "routes.yaml"
    config.write_text("server: {api_processes: 2}\n"
                      "engines: {qa: {model: fake-qa, backend: fake}}\n"
                      "routes: {qa: {engine: qa}}\n")
    assert main(["serve", "--config", str(config), "--watch"]) == 2
    assert "--watch" in capsys.readouterr().err
