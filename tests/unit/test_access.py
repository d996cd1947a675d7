"""Access policy with auth on: direct engine addressing is an opt-in (admin keys,
auth.direct_engine_tiers), routes may carry `allow:` lists; refusals are 403 in OpenAI's
shape and the policy reloads with the snapshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from router.config import ConfigError, parse_config
from tests.unit.fakes import FakeGateway, fake_client

CONFIG = """
auth: {keys_env: TEST_SWITCHBOARD_KEYS, tiers: {vip: -10, standard: 0, ops: 0}}
engines:
  qa: {model: m, backend: fake}
  shadowy: {model: s, backend: fake}
routes:
  qa: {engine: qa}
  private:
    engine: qa
    allow: [vip, env-3]
    recognize: {keywords: [secretword]}
"""
KEYS = "sk-std:standard,sk-vip:vip,sk-ops:admin,sk-named:standard,sk-tier:ops"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def chat(model: str, text: str = "hi") -> dict[str, object]:
    return {"model": model, "messages": [{"role": "user", "content": text}]}


@pytest.fixture()
def gw(monkeypatch: pytest.MonkeyPatch,
       tmp_path: Path) -> Iterator[tuple[TestClient, FakeGateway, Path]]:
    monkeypatch.setenv("TEST_SWITCHBOARD_KEYS", KEYS)
    path = tmp_path / "routes.yaml"
    with fake_client(CONFIG, path=path) as (client, fakes):
        yield client, fakes, path


def assert_forbidden(response: object, fragment: str) -> None:
    assert response.status_code == 403  # type: ignore[attr-defined]
    error = response.json()["error"]  # type: ignore[attr-defined]
    assert error["type"] == "permission_error" and error["code"] == "forbidden"
    assert fragment in error["message"]


@pytest.mark.parametrize("endpoint", ["/v1/chat/completions", "/v1/classify", "/v1/compare"])
@pytest.mark.parametrize("model", ["engine:shadowy", "shadowy", "engine:qa"])
def test_direct_engine_addressing_needs_the_opt_in(
    gw: tuple[TestClient, FakeGateway, Path], endpoint: str, model: str
) -> None:
    client, fakes, _ = gw
    assert_forbidden(client.post(endpoint, json=chat(model), headers=bearer("sk-vip")),
                     "addresses an engine directly")
    assert fakes.engines["shadowy"].requests == []


def test_x_route_naming_an_engine_needs_the_opt_in(
    gw: tuple[TestClient, FakeGateway, Path]
) -> None:
    client, fakes, _ = gw
    headers = {**bearer("sk-std"), "X-Route": "engine:shadowy"}
    assert_forbidden(client.post("/v1/chat/completions", json=chat("qa"), headers=headers),
                     "X-Route header")
    assert fakes.engines["shadowy"].requests == []


def test_admin_keys_may_address_engines(gw: tuple[TestClient, FakeGateway, Path]) -> None:
    client, fakes, _ = gw
    response = client.post("/v1/chat/completions", json=chat("engine:shadowy"),
                           headers=bearer("sk-ops"))
    assert response.status_code == 200 and len(fakes.engines["shadowy"].requests) == 1


def test_route_allow_list_admits_tiers_key_names_and_admins(
    gw: tuple[TestClient, FakeGateway, Path]
) -> None:
    client, _, _ = gw
    for key in ("sk-vip", "sk-named", "sk-ops"):  # a listed tier, a listed key name, admin
        assert client.post("/v1/chat/completions", json=chat("private"),
                           headers=bearer(key)).status_code == 200, key
    assert_forbidden(client.post("/v1/chat/completions", json=chat("private"),
                                 headers=bearer("sk-std")), "'private'")
    headers = {**bearer("sk-std"), "X-Route": "private"}
    assert_forbidden(client.post("/v1/chat/completions", json=chat("qa"), headers=headers),
                     "X-Route header")
    assert client.post("/v1/chat/completions", json=chat("qa"),
                       headers=bearer("sk-std")).status_code == 200


def test_auto_routing_cannot_reach_a_route_closed_to_the_key(
    gw: tuple[TestClient, FakeGateway, Path]
) -> None:
    client, _, _ = gw
    body = chat("auto", "tell me the secretword please")
    assert client.post("/v1/chat/completions", json=body,
                       headers=bearer("sk-vip")).headers["x-switchboard-route"] == "private"
    assert_forbidden(client.post("/v1/chat/completions", json=body, headers=bearer("sk-std")),
                     "classifier")


def test_policy_reloads_with_the_snapshot(gw: tuple[TestClient, FakeGateway, Path]) -> None:
    client, _, path = gw
    denied = client.post("/v1/chat/completions", json=chat("engine:shadowy"),
                         headers=bearer("sk-tier"))
    assert denied.status_code == 403
    path.write_text(CONFIG.replace("ops: 0}}", "ops: 0}, direct_engine_tiers: [ops]}")
                    .replace("allow: [vip, env-3]", "allow: [standard]"))
    assert client.post("/admin/reload", headers=bearer("sk-ops")).status_code == 200
    assert client.post("/v1/chat/completions", json=chat("engine:shadowy"),
                       headers=bearer("sk-tier")).status_code == 200
    assert client.post("/v1/chat/completions", json=chat("private"),
                       headers=bearer("sk-std")).status_code == 200
    assert client.post("/v1/chat/completions", json=chat("private"),
                       headers=bearer("sk-vip")).status_code == 403


def test_without_auth_nothing_is_refused() -> None:
    with fake_client(CONFIG.replace("auth: {keys_env: TEST_SWITCHBOARD_KEYS, tiers: "
                                    "{vip: -10, standard: 0, ops: 0}}\n", "")) as (client, _):
        assert client.post("/v1/chat/completions", json=chat("engine:shadowy")).status_code \
            == 200
        assert client.post("/v1/chat/completions", json=chat("private")).status_code == 200


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("ops: 0}}", "ops: 0}, direct_engine_tiers: [gold]}"), "unknown tier 'gold'"),
        (("allow: [vip, env-3]", "allow: vip"), "routes.private.allow"),
    ],
)
def test_policy_config_is_validated(change: tuple[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(CONFIG.replace(*change))
