"""Stateless replicas: two `switchboard serve` processes on one routes.yaml give every user the
same route and the same A/B variant, so any load balancer may spread users over them.

The engines are fake (`backend: fake`, which `switchboard serve` accepts): the property under
test is the gateway's own routing — the classifier's decision and the variant's stable hash of
(route, user) — which no engine takes part in. Each replica runs under a different
PYTHONHASHSEED, so a pick that leaned on Python's per-process `hash()` would show up here. The
requests are real HTTP to real uvicorn servers in separate processes; the route and variant
come back in the response headers (x-switchboard-route, x-switchboard-variant).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import RunningGateway, start_gateway, stop_gateway

CONFIG = """
default_route: qa
engines:
  small: {model: fake-small, backend: fake, engine_args: {max_model_len: 2048}}
  large: {model: fake-large, backend: fake, engine_args: {max_model_len: 2048}}
routes:
  qa:
    engine: small
    variants:
      - {name: small, engine: small, weight: 1}
      - {name: large, engine: large, weight: 1}
      - {name: large-cold, engine: large, weight: 2, sampling: {temperature: 0.1}}
  translation:
    engine: large
    prompt_template: "Translate into {target_language}: {text}"
    recognize: {signals: translation}
    variants:
      - {name: gemma, engine: large, weight: 3}
      - {name: smol, engine: small, weight: 1}
"""
USERS = [f"user-{i:03d}" for i in range(60)]
PROMPTS = ("What is the capital of Australia?",
           "Translate into French: the weather is nice today")


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RunningGateway]]:
    folder = tmp_path_factory.mktemp("replicas")
    config = folder / "routes.yaml"
    config.write_text(CONFIG)
    started: list[RunningGateway] = []
    saved = os.environ.get("PYTHONHASHSEED")
    try:
        for index in range(2):
            os.environ["PYTHONHASHSEED"] = str(index + 1)  # inherited by that replica only
            started.append(start_gateway(config, folder / f"replica-{index}.log"))
    finally:
        if saved is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = saved
        if len(started) < 2:
            for gateway in started:
                stop_gateway(gateway)
    yield started
    for gateway in started:
        assert stop_gateway(gateway) == 0, gateway.log()[-2000:]


def decision(client: httpx.Client, gateway: RunningGateway, user: str, prompt: str,
             by_header: bool) -> tuple[str, str]:
    body: dict[str, object] = {"model": "auto", "max_tokens": 4,
                               "messages": [{"role": "user", "content": prompt}]}
    headers = {}
    if by_header:
        headers["x-switchboard-user"] = user
    else:
        body["user"] = user
    response = client.post(f"{gateway.base_url}/v1/chat/completions", json=body,
                           headers=headers)
    assert response.status_code == 200, response.text
    return response.headers["x-switchboard-route"], response.headers["x-switchboard-variant"]


def test_every_user_gets_the_same_route_and_variant_from_either_replica(
        replicas: list[RunningGateway]) -> None:
    first, second = replicas
    seen: dict[str, Counter[str]] = {"qa": Counter(), "translation": Counter()}
    with httpx.Client(timeout=30) as client:
        for number, user in enumerate(USERS):
            for prompt in PROMPTS:
                by_header = number % 2 == 1
                # Alternate which replica a user reaches first, as a load balancer would.
                order = (first, second) if number % 3 else (second, first)
                a, b = (decision(client, g, user, prompt, by_header) for g in order)
                assert a == b, f"{user} / {prompt!r}: {a} on one replica, {b} on the other"
                route, variant = a
                seen[route][variant] += 1
    # Both routes were classified, and the users really are split between the variants
    # (a replica that sent everyone to one variant would also "agree").
    assert sum(seen["qa"].values()) == sum(seen["translation"].values()) == len(USERS)
    assert set(seen["qa"]) == {"small", "large", "large-cold"}, seen
    assert set(seen["translation"]) == {"gemma", "smol"}, seen


def test_a_users_variant_does_not_depend_on_how_the_user_is_named(
        replicas: list[RunningGateway]) -> None:
    """The `user` field and the x-switchboard-user header are one key."""
    first, second = replicas
    with httpx.Client(timeout=30) as client:
        for user in USERS[:20]:
            by_body = decision(client, first, user, PROMPTS[0], by_header=False)
            by_header = decision(client, second, user, PROMPTS[0], by_header=True)
            assert by_body == by_header, user


def test_the_replicas_log_no_error(replicas: list[RunningGateway]) -> None:
    for gateway in replicas:
        log = gateway.log()
        assert "Traceback" not in log and "internal_error" not in log, log[-2000:]
