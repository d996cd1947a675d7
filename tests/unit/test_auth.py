"""API keys: 401/403 in OpenAI's shape, tiers to vLLM priority, keys never in plain text."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from router.config import AuthConfig, ConfigError, parse_config
from router.http.app import build_app
from router.keys import KeyStore
from tests.unit.fakes import FakeGateway, fake_client

CONFIG = """
auth: {keys_env: TEST_SWITCHBOARD_KEYS}
engines:
  qa: {model: m, backend: fake, engine_args: {max_model_len: 64}}
routes:
  qa: {engine: qa}
"""
CHAT = {"model": "qa", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture()
def gw(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, FakeGateway]]:
    monkeypatch.setenv("TEST_SWITCHBOARD_KEYS", "sk-std:standard,sk-vip:vip,sk-ops:admin")
    with fake_client(CONFIG) as pair:
        yield pair


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_missing_and_wrong_keys_are_401(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    missing = client.post("/v1/chat/completions", json=CHAT)
    assert missing.status_code == 401
    assert missing.json()["error"]["type"] == "authentication_error"
    assert missing.headers["www-authenticate"] == "Bearer"
    wrong = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-nope"))
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] == "invalid_api_key"
    assert client.get("/v1/models").status_code == 401
    assert fakes.engines["qa"].requests == []


def test_health_and_ready_stay_open(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    assert client.get("/health").status_code == 200
    assert client.get("/ready").status_code == 200


@pytest.mark.parametrize("key", [None, "sk-std", "sk-vip", "sk-nope"])
def test_ready_tells_only_the_status_without_an_admin_key(
    gw: tuple[TestClient, FakeGateway], key: str | None
) -> None:
    client, _ = gw
    response = client.get("/ready", headers=bearer(key) if key else {})
    assert response.status_code == 200 and response.json() == {"status": "ready"}


def test_ready_details_go_to_admin_keys(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    detailed = client.get("/ready", headers=bearer("sk-ops")).json()
    assert detailed["status"] == "ready" and detailed["engines"]["qa"]["state"] == "ready"
    fakes.engines["qa"].behaviour.dead = True
    assert client.post("/v1/chat/completions", json=CHAT,
                       headers=bearer("sk-std")).status_code == 503  # marks the engine failed
    down = client.get("/ready")
    assert down.status_code == 503 and down.json() == {"status": "not_ready"}
    detailed = client.get("/ready", headers=bearer("sk-ops")).json()
    assert detailed["engines"]["qa"]["state"] == "failed"


@pytest.mark.parametrize("root_path", ["/api", "/gateway/v2"])
def test_admin_check_matches_the_route_path_under_a_root_path(
    monkeypatch: pytest.MonkeyPatch, root_path: str
) -> None:
    monkeypatch.setenv("TEST_SWITCHBOARD_KEYS", "sk-std:standard,sk-ops:admin")
    fakes = FakeGateway(parse_config(CONFIG))
    app = build_app(fakes.config, fakes.factory, on_state=fakes.on_state)
    # As uvicorn --root-path does: scope["path"] keeps the prefix, scope["root_path"] names it.
    with TestClient(app, root_path=root_path) as client:
        for path in ("/admin/status", "/metrics"):
            denied = client.get(f"{root_path}{path}", headers=bearer("sk-std"))
            assert denied.status_code == 403, path
            assert denied.json()["error"]["type"] == "permission_error"
            assert client.get(f"{root_path}{path}", headers=bearer("sk-ops")).status_code == 200
        assert client.get(f"{root_path}/ready").json() == {"status": "ready"}
        assert client.get(f"{root_path}/v1/models").status_code == 401


def test_admin_endpoints_need_an_admin_key(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    denied = client.get("/admin/status", headers=bearer("sk-vip"))
    assert denied.status_code == 403
    assert denied.json()["error"]["type"] == "permission_error"
    assert client.get("/admin/status", headers=bearer("sk-ops")).status_code == 200


def test_tiers_map_to_vllm_priority(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    for key in ("sk-std", "sk-vip"):
        response = client.post("/v1/chat/completions", json=CHAT, headers=bearer(key))
        assert response.status_code == 200
    assert [r.priority for r in fakes.engines["qa"].requests] == [0, -10]


def test_keys_file_holds_only_digests(tmp_path: Path) -> None:
    digest = hashlib.sha256(b"sk-file-key").hexdigest()
    keys = tmp_path / "keys.yaml"
    keys.write_text(f"keys:\n  - {{name: alice, sha256: {digest}, tier: vip}}\n")
    store = KeyStore.from_config(AuthConfig(keys_file=str(keys)))
    principal = store.authenticate("sk-file-key")
    assert principal is not None and principal.name == "alice" and principal.vip
    assert store.authenticate("sk-file-kez") is None
    assert "sk-file-key" not in keys.read_text()


def test_unknown_tier_and_empty_key_set_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="unknown tier 'gold'"):
        KeyStore.from_config(AuthConfig(keys_env="K"), environ={"K": "sk-1:gold"})
    with pytest.raises(ConfigError, match="no API key was found"):
        KeyStore.from_config(AuthConfig(keys_env="K"), environ={})


def test_refused_requests_write_no_record_and_count_no_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_SWITCHBOARD_KEYS", "sk-std:standard,sk-ops:admin")
    record = tmp_path / "records.jsonl"
    config = CONFIG.replace("auth:", f"server: {{record_file: {record}}}\nauth:")
    with fake_client(config) as (client, _):
        for _ in range(40):
            assert client.post("/v1/chat/completions", json=CHAT).status_code == 401
            assert client.post("/v1/completions", json={"prompt": "x"},
                               headers=bearer("sk-nope")).status_code == 401
        metrics = client.get("/metrics", headers=bearer("sk-ops")).text
        assert client.post("/v1/chat/completions", json=CHAT,
                           headers=bearer("sk-std")).status_code == 200
    lines = record.read_text().splitlines() if record.exists() else []
    assert len(lines) == 1  # only the authenticated request
    assert "switchboard_requests_total{" not in metrics
