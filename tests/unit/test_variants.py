"""Sticky weighted A/B assignment: stability, weights within tolerance, forcing, headers."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from router.config import RouteConfig, VariantConfig, parse_config
from router.errors import InvalidRequestError
from router.http.body import sticky_key
from router.pipeline.variants import pick_variant, unit_interval
from tests.unit.fakes import fake_client

AB_CONFIG = """
default_route: qa
engines:
  qa: {model: fake-qa, backend: fake, engine_args: {max_model_len: 128}}
  translation: {model: fake-mt, backend: fake, engine_args: {max_model_len: 128}}
routes:
  qa: {engine: qa}
  translation:
    engine: translation
    prompt_template: "Translate into {target_language}: {text}"
    sampling: {max_tokens: 4}
    variants:
      - {name: gemma, engine: translation, weight: 3}
      - name: smol
        engine: qa
        weight: 1
        sampling: {temperature: 0.1, max_tokens: 3}
        prompt_template: "Please translate to {target_language}. {text}"
"""


def route(*weights: float, name: str = "r") -> RouteConfig:
    variants = tuple(
        VariantConfig(name=f"v{i}", engine="e", weight=w) for i, w in enumerate(weights)
    )
    return RouteConfig(name=name, engine="e", variants=variants)


def assigned(r: RouteConfig, users: range) -> Counter[str]:
    counts: Counter[str] = Counter()
    for u in users:
        picked = pick_variant(r, f"user:{u}")
        assert picked is not None
        counts[picked.name] += 1
    return counts


def test_hash_is_pinned_so_assignment_survives_restarts_and_replicas() -> None:
    # A pure function of (route, key): these values must never change between releases, or
    # every user would switch variant on upgrade (and replicas on mixed versions disagree).
    assert unit_interval("translation", "user:alice") == pytest.approx(0.8868793031716501)
    assert unit_interval("translation", "user:bob") == pytest.approx(0.5150011306533082)
    assert unit_interval("translation", "key:sk-123") == pytest.approx(0.987869034870354)


def test_same_user_always_gets_the_same_variant() -> None:
    first = route(1, 1, 2)
    again = route(1, 1, 2)  # a fresh config object, as after a restart or on another replica
    for u in range(3000):
        key = f"user:{u}"
        picked = pick_variant(first, key)
        assert picked is not None
        assert pick_variant(first, key) == picked
        assert pick_variant(again, key) == picked


@pytest.mark.parametrize("weights", [(1, 1), (3, 1), (1, 2, 7), (0.05, 0.95)])
def test_weights_hold_within_statistical_tolerance(weights: tuple[float, ...]) -> None:
    n = 20_000
    counts = assigned(route(*weights), range(n))
    total = sum(weights)
    for i, w in enumerate(weights):
        p = w / total
        sigma = math.sqrt(p * (1 - p) / n)
        observed = counts[f"v{i}"] / n
        assert abs(observed - p) < 4.5 * sigma, (i, observed, p)


def test_weights_hold_on_a_chi_square_test() -> None:
    from scipy.stats import chisquare

    n = 30_000
    counts = assigned(route(1, 2, 7), range(n))
    observed = [counts["v0"], counts["v1"], counts["v2"]]
    expected = [n * 0.1, n * 0.2, n * 0.7]
    assert chisquare(observed, expected).pvalue > 0.001


def test_routes_hash_independently() -> None:
    # The same user's bucket on one route says nothing about another route.
    a, b = route(1, 1, name="a"), route(1, 1, name="b")
    same = sum(pick_variant(a, f"user:{u}") == pick_variant(b, f"user:{u}") for u in range(10_000))
    assert abs(same / 10_000 - 0.5) < 0.03


def test_raising_a_weight_only_moves_users_towards_that_variant() -> None:
    before, after = route(1, 1), route(3, 2)  # v0 goes from 50 % to 60 %
    moved: Counter[tuple[str, str]] = Counter()
    for u in range(10_000):
        old, new = pick_variant(before, f"user:{u}"), pick_variant(after, f"user:{u}")
        assert old is not None and new is not None
        if old.name != new.name:
            moved[(old.name, new.name)] += 1
    assert set(moved) == {("v1", "v0")}
    assert abs(sum(moved.values()) / 10_000 - 0.1) < 0.02


def test_zero_weight_variant_is_only_reachable_by_forcing() -> None:
    r = route(1, 0, 1)
    assert "v1" not in assigned(r, range(5000))
    forced = pick_variant(r, "user:1", forced="v1")
    assert forced is not None and forced.name == "v1"


def test_without_a_key_each_request_is_drawn_at_random() -> None:
    r = route(1, 1)
    counts = Counter(v.name for v in (pick_variant(r, None) for _ in range(4000)) if v)
    assert abs(counts["v0"] / 4000 - 0.5) < 0.05


def test_unknown_forced_variant_is_a_400_naming_the_known_ones() -> None:
    with pytest.raises(InvalidRequestError) as info:
        pick_variant(route(1, 1), "user:1", forced="v9")
    assert info.value.message == "route 'r' has no variant 'v9' (known: v0, v1)"
    assert info.value.param == "x-switchboard-variant"
    with pytest.raises(InvalidRequestError, match="has no variants"):
        pick_variant(RouteConfig(name="plain", engine="e"), None, forced="v0")


def test_route_without_variants_picks_none() -> None:
    assert pick_variant(RouteConfig(name="plain", engine="e"), "user:1") is None


@pytest.mark.parametrize(
    ("user", "headers", "expected"),
    [
        ("u1", {"x-switchboard-user": "h1", "authorization": "Bearer k1"}, "user:u1"),
        (None, {"x-switchboard-user": "h1", "authorization": "Bearer k1"}, "user:h1"),
        (None, {"authorization": "Bearer k1"}, "key:k1"),
        (None, {"authorization": "Basic abc"}, None),
        (None, {"authorization": "Bearer "}, None),
        (None, {}, None),
    ],
)
def test_sticky_key_precedence(
    user: str | None, headers: dict[str, str], expected: str | None
) -> None:
    assert sticky_key(user, headers) == expected


def _translate(client: object, **extra: object) -> object:
    body = {"model": "translation", "messages": [{"role": "user", "content": "hello"}]}
    headers = extra.pop("headers", {})
    body.update(extra)
    return client.post("/v1/chat/completions", json=body, headers=headers)  # type: ignore[attr-defined]


def test_http_assignment_is_sticky_and_named_in_the_response() -> None:
    with fake_client(AB_CONFIG) as (client, _):
        seen: dict[str, str] = {}
        for u in range(40):
            for _ in range(2):
                resp = _translate(client, user=f"user-{u}")
                assert resp.status_code == 200  # type: ignore[attr-defined]
                variant = resp.headers["x-switchboard-variant"]  # type: ignore[attr-defined]
                assert seen.setdefault(f"user-{u}", variant) == variant
        assert set(seen.values()) == {"gemma", "smol"}
        # The same user through the header and the API key lands the same way as by `user`.
        config = parse_config(AB_CONFIG)
        expected = pick_variant(config.routes["translation"], "user:user-7")
        assert expected is not None
        resp = _translate(client, headers={"x-switchboard-user": "user-7"})
        assert resp.headers["x-switchboard-variant"] == expected.name  # type: ignore[attr-defined]


def test_http_variant_applies_its_engine_sampling_and_template() -> None:
    with fake_client(AB_CONFIG) as (client, gateway):
        resp = _translate(client, headers={"x-switchboard-variant": "smol"})
        assert resp.status_code == 200  # type: ignore[attr-defined]
        assert resp.headers["x-switchboard-engine"] == "qa"  # type: ignore[attr-defined]
        sent = gateway.engines["qa"].requests[-1]
        assert sent.prompt.text == "Please translate to English. hello"
        assert sent.sampling["temperature"] == 0.1
        assert sent.sampling["max_tokens"] == 3
        resp = _translate(client, headers={"x-switchboard-variant": "gemma"})
        assert resp.headers["x-switchboard-engine"] == "translation"  # type: ignore[attr-defined]
        sent = gateway.engines["translation"].requests[-1]
        assert sent.prompt.text == "Translate into English: hello"
        assert sent.sampling["max_tokens"] == 4


def test_http_forcing_an_unknown_variant_is_a_400() -> None:
    with fake_client(AB_CONFIG) as (client, _):
        resp = _translate(client, headers={"x-switchboard-variant": "nope"})
        assert resp.status_code == 400  # type: ignore[attr-defined]
        error = resp.json()["error"]  # type: ignore[attr-defined]
        assert error["param"] == "x-switchboard-variant"
        assert "known: gemma, smol" in error["message"]
