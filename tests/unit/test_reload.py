"""Hot reload on fake engines: route-only swaps, engine swaps, failures that change nothing."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from router.reload import diff_engines
from tests.unit.fakes import FakeGateway, fake_client

BASE = """
engines:
  qa: {model: fake-qa, backend: fake}
  mt: {model: fake-mt-v1, backend: fake}
routes:
  qa: {engine: qa}
  translation:
    engine: mt
    variants:
      - {name: a, engine: mt, weight: 1}
      - {name: b, engine: qa, weight: 0}
"""
CHAT = {"model": "translation", "messages": [{"role": "user", "content": "hola"}]}


@pytest.fixture()
def gw(tmp_path: Path) -> Iterator[tuple[TestClient, FakeGateway, Path]]:
    path = tmp_path / "routes.yaml"
    with fake_client(BASE, path=path) as (client, fakes):
        yield client, fakes, path


def reload(client: TestClient, **params: str) -> tuple[int, dict[str, object]]:
    response = client.post("/admin/reload", params=params)
    return response.status_code, response.json()


def test_diff_engines_sorts_every_kind_of_change() -> None:
    from router.config import parse_config

    old = parse_config(BASE).engines
    new = parse_config(BASE.replace("fake-mt-v1", "fake-mt-v2").replace(
        "  qa: {model: fake-qa, backend: fake}\n", "  qa: {model: fake-qa, backend: fake}\n"
        "  code: {model: fake-code, backend: fake}\n")).engines
    diff = diff_engines(old, new)
    assert (diff.added, diff.changed, diff.removed, diff.unchanged) == (
        ("code",), ("mt",), (), ("qa",))


def test_weight_change_moves_traffic_without_touching_engines(
    gw: tuple[TestClient, FakeGateway, Path],
) -> None:
    client, fakes, path = gw
    assert client.post("/v1/chat/completions", json=CHAT).headers["x-switchboard-variant"] == "a"
    before = list(fakes.built)
    path.write_text(BASE.replace("weight: 1}", "weight: 0}", 1).replace(
        "engine: qa, weight: 0}", "engine: qa, weight: 1}"))
    status, body = reload(client)
    assert status == 200 and body["ok"] is True and body["strategy"] == "routes_only"
    assert fakes.built == before  # no engine was started or replaced
    assert all(not e.closed for e in before)
    response = client.post("/v1/chat/completions", json=CHAT)
    assert response.headers["x-switchboard-variant"] == "b"
    assert response.headers["x-switchboard-engine"] == "qa"


def test_model_swap_starts_warms_and_switches_then_retires_the_old_engine(
    gw: tuple[TestClient, FakeGateway, Path],
) -> None:
    client, fakes, path = gw
    old = fakes.engines["mt"]
    qa = fakes.engines["qa"]
    old.behaviour.token_delay_s = 0.05
    streamed: list[str] = []

    def slow_stream() -> None:
        body = {**CHAT, "stream": True, "max_tokens": 10}
        with client.stream("POST", "/v1/chat/completions", json=body) as response:
            streamed.extend(line for line in response.iter_lines() if line)

    reader = threading.Thread(target=slow_stream)
    reader.start()
    while not old.running:
        pass  # the stream is on the old engine
    path.write_text(BASE.replace("fake-mt-v1", "fake-mt-v2"))
    status, body = reload(client)
    reader.join(10)
    assert status == 200 and body["ok"] is True and body["strategy"] == "coexist"
    assert body["changes"]["engines"]["changed"] == ["mt"]
    new = fakes.engines["mt"]
    assert new is not old and new.model == "fake-mt-v2"
    assert new.requests[0].request_id.startswith("warmup-")  # warmed up before traffic
    assert streamed[-1] == "data: [DONE]" and '"error"' not in "".join(streamed)
    assert old.finished and old.aborted == []  # the in-flight request finished where it began
    assert old.closed and not qa.closed  # replaced engine retired; the unchanged one untouched
    after = client.post("/v1/chat/completions", json=CHAT)
    assert after.status_code == 200 and new.requests[-1].request_id == \
        after.headers["x-request-id"]
    status_body = client.get("/admin/status").json()
    assert status_body["config"]["hash"] == body["config_hash"]
    assert status_body["config"]["last_reload"]["ok"] is True
    assert status_body["engines"]["mt"]["model"] == "fake-mt-v2"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("engines: [", "invalid YAML"),
        (BASE.replace("engine: mt\n    variants", "engine: nope\n    variants"),
         "unknown engine 'nope'"),
        (BASE.replace("backend: fake}\n  mt", "backend: fake, engine_arg: {}}\n  mt"),
         "unknown key 'engine_arg'"),
        (BASE.replace("qa: {engine: qa}", "qa: {engine: qa, recognize: {signals: nope}}"),
         "routes.qa.recognize.signals"),
    ],
)
def test_invalid_file_changes_nothing(
    gw: tuple[TestClient, FakeGateway, Path], text: str, message: str
) -> None:
    client, fakes, path = gw
    before_hash = client.get("/admin/status").json()["config"]["hash"]
    built = list(fakes.built)
    path.write_text(text)
    status, body = reload(client)
    assert status == 422 and body["ok"] is False and body["error_kind"] == "invalid_config"
    assert message in str(body["error"])
    assert fakes.built == built
    status_body = client.get("/admin/status").json()
    assert status_body["config"]["hash"] == before_hash
    assert status_body["config"]["last_reload"]["ok"] is False
    metrics = client.get("/metrics").text
    assert ('switchboard_config_reloads_total{error_kind="invalid_config",outcome="failed"} 1.0'
            in metrics)
    assert client.post("/v1/chat/completions", json=CHAT).status_code == 200


NON_NUMERIC_MEMORY = """
engines:
  big: {model: /models/none, backend: vllm, engine_args: {gpu_memory_utilization: lots}}
routes:
  qa: {engine: big}
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (NON_NUMERIC_MEMORY, "engines.big.engine_args.gpu_memory_utilization: must be a number"),
        ("engines: [", "invalid YAML"),
        (BASE.replace("qa: {engine: qa}", "qa: {engine: qa, recognize: {signals: nope}}"),
         "routes.qa.recognize.signals"),
    ],
)
def test_check_and_reload_share_one_validation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    import argparse

    from router.cli import cmd_check
    from router.config import ConfigError, load_config
    from router.reload import validate_config

    path = tmp_path / "routes.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        validate_config(str(path), load_config)
    assert cmd_check(argparse.Namespace(config=str(path))) == 1
    assert message in capsys.readouterr().err


def test_file_that_is_not_utf8_is_a_422_naming_the_file(
    gw: tuple[TestClient, FakeGateway, Path]
) -> None:
    client, _, path = gw
    path.write_bytes(BASE.encode() + b"# caf\xe9\n")
    status, body = reload(client)
    assert status == 422 and body["error_kind"] == "invalid_config"
    assert str(path) in str(body["error"]) and "UTF-8" in str(body["error"])
    config = client.get("/admin/status").json()["config"]
    assert config["reloads_failed"] == 1 and config["last_reload"]["ok"] is False


def test_unexpected_reload_failure_is_reported_not_a_bare_500(
    gw: tuple[TestClient, FakeGateway, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import router.reload as reload_module

    def broken(config: object) -> object:
        raise RuntimeError("classifier exploded")

    client, _, path = gw
    path.write_text(BASE.replace("qa: {engine: qa}",
                                 "qa: {engine: qa, recognize: {keywords: [x]}}"))
    monkeypatch.setattr(reload_module, "build_classifier", broken)
    status, body = reload(client)
    assert status == 503 and body["ok"] is False and body["error_kind"] == "internal"
    assert "classifier exploded" in str(body["error"])
    config = client.get("/admin/status").json()["config"]
    assert config["reloads_failed"] == 1 and config["last_reload"]["error_kind"] == "internal"


def test_engine_that_fails_to_start_leaves_the_old_config_serving(
    gw: tuple[TestClient, FakeGateway, Path],
) -> None:
    client, fakes, path = gw
    old = fakes.engines["mt"]
    path.write_text(BASE.replace("fake-mt-v1", "fail-start"))
    status, body = reload(client)
    assert status == 503 and body["ok"] is False and body["error_kind"] == "engine_failed"
    failed = fakes.built[-1]
    assert failed.model == "fail-start" and failed.closed  # nothing half-applied remains
    response = client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 200 and old.requests  # still the old engine
    assert not old.closed


def test_removed_engine_is_closed_and_added_engine_serves(
    gw: tuple[TestClient, FakeGateway, Path],
) -> None:
    client, fakes, path = gw
    old_mt = fakes.engines["mt"]
    path.write_text("""
engines:
  qa: {model: fake-qa, backend: fake}
  code: {model: fake-code, backend: fake}
routes:
  qa: {engine: qa}
  code: {engine: code}
""")
    status, body = reload(client)
    assert status == 200 and body["ok"] is True
    assert old_mt.closed
    code = client.post("/v1/chat/completions", json={**CHAT, "model": "code"})
    assert code.headers["x-switchboard-engine"] == "code"
    assert client.post("/v1/chat/completions", json=CHAT).status_code == 404


def test_in_place_swap_stops_the_old_engine_first(
    gw: tuple[TestClient, FakeGateway, Path],
) -> None:
    client, fakes, path = gw
    old = fakes.engines["mt"]
    path.write_text(BASE.replace("fake-mt-v1", "fake-mt-v2"))
    status, body = reload(client, strategy="in_place")
    assert status == 200 and body["strategy"] == "in_place"
    assert old.closed and fakes.engines["mt"].model == "fake-mt-v2"
    assert client.post("/v1/chat/completions", json=CHAT).status_code == 200


def test_failed_in_place_swap_restores_the_old_engine(
    gw: tuple[TestClient, FakeGateway, Path],
) -> None:
    client, fakes, path = gw
    path.write_text(BASE.replace("fake-mt-v1", "fail-start"))
    status, body = reload(client, strategy="in_place")
    assert status == 503 and body["ok"] is False
    restored = fakes.engines["mt"]
    assert restored.model == "fake-mt-v1" and restored.started and not restored.closed
    assert client.post("/v1/chat/completions", json=CHAT).status_code == 200


def test_unknown_strategy_is_400(gw: tuple[TestClient, FakeGateway, Path]) -> None:
    client, _, _ = gw
    response = client.post("/admin/reload", params={"strategy": "yolo"})
    assert response.status_code == 400 and response.json()["error"]["param"] == "strategy"


def _keys_file(path: Path, **tiers: str) -> Path:
    """A keys file: one key "sk-NAME" per name, with the given tier."""
    lines = [f"  - {{name: {name}, tier: {tier}, "
             f"sha256: {hashlib.sha256(f'sk-{name}'.encode()).hexdigest()}}}"
             for name, tier in tiers.items()]
    path.write_text("keys:\n" + "\n".join(lines) + "\n")
    return path


def test_reload_applies_new_auth_and_revoked_keys(tmp_path: Path) -> None:
    path = tmp_path / "routes.yaml"
    with fake_client(BASE, path=path) as (client, _):
        assert client.post("/v1/chat/completions", json=CHAT).status_code == 200
        keys = _keys_file(tmp_path / "keys.yaml", ops="admin", bob="standard")
        path.write_text(f"auth: {{keys_file: {keys}}}\n" + BASE)
        assert client.post("/admin/reload").status_code == 200
        # auth added by reload: every endpoint now wants a key
        assert client.post("/v1/chat/completions", json=CHAT).status_code == 401
        bob, ops = {"Authorization": "Bearer sk-bob"}, {"Authorization": "Bearer sk-ops"}
        assert client.post("/v1/chat/completions", json=CHAT, headers=bob).status_code == 200
        assert client.get("/admin/status", headers=ops).json()["config"]["hash"]
        _keys_file(keys, ops="admin")  # bob's key is revoked; routes.yaml is unchanged
        assert client.post("/admin/reload", headers=ops).status_code == 200
        assert client.post("/v1/chat/completions", json=CHAT, headers=bob).status_code == 401
        assert client.post("/v1/chat/completions", json=CHAT, headers=ops).status_code == 200


def test_reload_refuses_an_auth_section_it_cannot_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEST_RELOAD_UNSET_KEYS", raising=False)
    path = tmp_path / "routes.yaml"
    with fake_client(BASE, path=path) as (client, _):
        path.write_text("auth: {keys_env: TEST_RELOAD_UNSET_KEYS}\n" + BASE)
        response = client.post("/admin/reload")
        assert response.status_code == 422
        assert response.json()["error_kind"] == "invalid_config"
        assert "no API key" in response.json()["error"]
        assert client.post("/v1/chat/completions", json=CHAT).status_code == 200


def test_gateway_only_engine_fields_do_not_restart_engines(
    gw: tuple[TestClient, FakeGateway, Path],
) -> None:
    client, fakes, path = gw
    built = list(fakes.built)
    path.write_text(BASE.replace(
        "qa: {model: fake-qa, backend: fake}",
        "qa: {model: fake-qa, backend: fake, max_queue: 3, max_in_flight: 2,"
        " restart_on_failure: true, sampling: {max_tokens: 3}}"))
    status, body = reload(client)
    assert status == 200 and body["ok"] is True
    assert body["changes"]["engines"]["changed"] == []
    assert fakes.built == built and not any(e.closed for e in built)
    response = client.post("/v1/chat/completions", json={**CHAT, "model": "qa"})
    assert response.json()["usage"]["completion_tokens"] == 3  # the new engine sampling
    engine = client.get("/admin/status").json()["engines"]["qa"]
    assert (engine["max_in_flight"], engine["max_queue"]) == (2, 3)
    path.write_text(BASE.replace("qa: {model: fake-qa, backend: fake}",
                                 "qa: {model: fake-qa, backend: fake, "
                                 "engine_args: {max_model_len: 99}}"))
    status, body = reload(client)
    assert body["changes"]["engines"]["changed"] == ["qa"]  # engine_args do restart it


def test_a_gateway_that_cannot_reload_answers_409_and_changes_nothing(tmp_path: Path) -> None:
    """Several API processes share the engines' cores (server.api_processes): a reload in
    one of them would start engines of its own, so every reload is refused, saying why."""
    from router.config import load_config
    from router.http.app import build_app
    from tests.unit.fakes import FakeGateway

    path = tmp_path / "routes.yaml"
    path.write_text(BASE)
    gateway = FakeGateway(load_config(path))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state,
                    reload_refusal="several API processes share the cores; restart instead")
    with TestClient(app) as client:
        before = list(gateway.built)
        path.write_text(BASE.replace("fake-mt-v1", "fake-mt-v2"))
        status, body = reload(client)
        assert status == 409
        assert body["error_kind"] == "unavailable"
        assert body["error"] == "several API processes share the cores; restart instead"
        assert gateway.built == before
        answer = client.post("/v1/chat/completions", json=CHAT)
        assert answer.status_code == 200 and answer.json()["model"] == "mt"  # the old engine
