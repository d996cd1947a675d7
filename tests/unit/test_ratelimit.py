"""Rate limits over time: per-key requests/min, tokens/min and tokens/day configured per
tier, exact accounting, 429 + Retry-After + OpenAI's x-ratelimit-* headers, reloadable,
counted in /metrics."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from router.config import ConfigError, RateLimitConfig, parse_config
from router.pipeline.ratelimit import Budget, RateLimiter, Refusal, Window, reset_header
from tests.unit.fakes import FakeGateway, fake_client

CONFIG = """
auth: {keys_env: TEST_SWITCHBOARD_KEYS}
rate_limits:
  standard: {requests_per_minute: RPM, tokens_per_minute: TPM}
engines:
  qa: {model: m, backend: fake, engine_args: {max_model_len: 256},
       sampling: {max_tokens: 4}}
routes:
  qa: {engine: qa}
"""
CHAT = {"model": "qa", "messages": [{"role": "user", "content": "hi"}]}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def config(rpm: int = 100, tpm: int = 100_000) -> str:
    return CONFIG.replace("RPM", str(rpm)).replace("TPM", str(tpm))


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture()
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_SWITCHBOARD_KEYS",
                       "sk-a:standard,sk-b:standard,sk-vip:vip,sk-ops:admin")


@pytest.fixture()
def clock() -> Clock:
    return Clock()


def limited_client(text: str, clock: Clock,
                   path: Path | None = None) -> Iterator[tuple[TestClient, FakeGateway]]:
    with fake_client(text, path) as (client, fakes):
        assert fakes.state is not None
        fakes.state.limiter = RateLimiter(clock=clock)
        yield client, fakes


def test_requests_per_minute_per_key(keys: None, clock: Clock) -> None:
    for client, fakes in limited_client(config(rpm=2), clock):
        first = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
        assert first.status_code == 200
        assert first.headers["x-ratelimit-limit-requests"] == "2"
        assert first.headers["x-ratelimit-remaining-requests"] == "1"
        assert first.headers["x-ratelimit-reset-requests"] == "1m0.1s"
        clock.now += 10
        second = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
        assert second.headers["x-ratelimit-remaining-requests"] == "0"
        clock.now += 10
        refused = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
        assert refused.status_code == 429
        error = refused.json()["error"]
        assert error["code"] == "rate_limit_exceeded"
        assert error["type"] == "rate_limit_error"
        assert "requests per minute" in error["message"]
        # The first request leaves the window 60.1 s after it came (100 ms buckets).
        assert refused.headers["retry-after"] == "41"
        assert refused.headers["x-ratelimit-remaining-requests"] == "0"
        assert len(fakes.engines["qa"].requests) == 2  # the refused one never reached it
        # Another key of the same tier has its own budget; an unlimited tier has none.
        assert client.post("/v1/chat/completions", json=CHAT,
                           headers=bearer("sk-b")).status_code == 200
        vip = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-vip"))
        assert vip.status_code == 200 and "x-ratelimit-limit-requests" not in vip.headers
        clock.now += 41
        again = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
        assert again.status_code == 200
        assert again.headers["x-ratelimit-remaining-requests"] == "0"  # the second is left


def test_tokens_are_counted_exactly(keys: None, clock: Clock) -> None:
    for client, _ in limited_client(config(tpm=30), clock):
        first = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
        assert first.status_code == 200
        usage = first.json()["usage"]
        used = usage["prompt_tokens"] + usage["completion_tokens"]
        # Headers are set at the door: the first request's own tokens show on the next.
        assert first.headers["x-ratelimit-remaining-tokens"] == "30"
        second = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
        assert second.headers["x-ratelimit-limit-tokens"] == "30"
        assert second.headers["x-ratelimit-remaining-tokens"] == str(30 - used)
        while True:  # spend the rest: the window may go past its limit by one request
            response = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
            if response.status_code == 429:
                break
            assert response.status_code == 200
        assert "tokens per minute" in response.json()["error"]["message"]
        assert response.headers["x-ratelimit-remaining-tokens"] == "0"
        assert int(response.headers["retry-after"]) == 61  # all were charged at t=1000


def test_a_streamed_request_charges_its_tokens(keys: None, clock: Clock) -> None:
    for client, fakes in limited_client(config(tpm=1000), clock):
        body = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}
        with client.stream("POST", "/v1/chat/completions", json=body,
                           headers=bearer("sk-a")) as response:
            lines = [line for line in response.iter_lines() if line]
        assert lines[-1] == "data: [DONE]"
        assert fakes.state is not None
        limiter = fakes.state.limiter
        (usage,) = limiter._usage.values()  # one key: one usage
        assert usage.tokens.used > 0
        assert usage.tokens.used == usage.day_tokens.used
        assert limiter.counters.tokens == {"standard": usage.tokens.used}


def test_limits_reload_and_usage_survives(keys: None, clock: Clock, tmp_path: Path) -> None:
    path = tmp_path / "routes.yaml"
    for client, _ in limited_client(config(rpm=1), clock, path):
        assert client.post("/v1/chat/completions", json=CHAT,
                           headers=bearer("sk-a")).status_code == 200
        assert client.post("/v1/chat/completions", json=CHAT,
                           headers=bearer("sk-a")).status_code == 429
        path.write_text(config(rpm=3))
        reload = client.post("/admin/reload", headers=bearer("sk-ops"))
        assert reload.status_code == 200, reload.text
        raised = client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
        assert raised.status_code == 200
        assert raised.headers["x-ratelimit-limit-requests"] == "3"
        assert raised.headers["x-ratelimit-remaining-requests"] == "1"  # 2 of 3 used


def test_refusals_are_in_metrics(keys: None, clock: Clock) -> None:
    for client, _ in limited_client(config(rpm=1), clock):
        client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
        client.post("/v1/chat/completions", json=CHAT, headers=bearer("sk-a"))
        text = client.get("/metrics", headers=bearer("sk-ops")).text
        assert 'switchboard_ratelimit_refused_total{limit="requests",tier="standard"} 1.0' \
            in text
        assert 'switchboard_ratelimit_admitted_total{tier="standard"} 1.0' in text
        assert "switchboard_ratelimit_keys 1.0" in text


def test_daily_cap_refuses_until_the_day_has_passed() -> None:
    clock = Clock()
    limiter = RateLimiter(clock=clock)
    policy = RateLimitConfig(tokens_per_day=100)
    outcome, _ = limiter.admit("k", "standard", policy)
    assert isinstance(outcome, Budget)
    outcome.charge_tokens(120)
    clock.now += 3600
    refused, headers = limiter.admit("k", "standard", policy)
    assert isinstance(refused, Refusal) and refused.limit == "tokens_per_day"
    # Charged in the minute bucket starting at 960 s: free again at 960 + 60 + 86400.
    assert headers["retry-after"] == str(960 + 60 + 86_400 - 4600)
    clock.now = 960 + 60 + 86_400
    assert isinstance(limiter.admit("k", "standard", policy)[0], Budget)


def test_window_accounting_is_exact() -> None:
    window = Window(60.0, 0.1)
    window.add(0.0, 5)
    window.add(0.05, 7)  # same bucket
    window.add(30.0, 11)
    assert window.used_at(30.0) == 23
    assert window.free_in(30.0, 20) == pytest.approx(60.1 - 30.0)  # the first bucket goes
    assert window.free_in(30.0, 5) == pytest.approx(90.1 - 30.0)  # both must go
    assert window.used_at(60.1) == 11
    assert window.empty_in(60.1) == pytest.approx(30.0)
    assert window.used_at(90.1) == 0


@pytest.mark.parametrize("seconds, text", [(0.02, "20ms"), (1, "1s"), (8.64, "8.64s"),
                                           (360, "6m0s"), (3723.5, "1h2m3.5s")])
def test_reset_durations_are_written_as_openai_does(seconds: float, text: str) -> None:
    assert reset_header(seconds) == text


@pytest.mark.parametrize("section, message", [
    ("{gold: {requests_per_minute: 1}}", "rate_limits.gold: unknown tier 'gold'"),
    ("{standard: {requests_per_minute: 0}}", "requests_per_minute: must be >= 1"),
    ("{standard: {tokens_per_minute: 1.5}}", "tokens_per_minute: must be an integer"),
    ("{standard: {tokens_per_hour: 5}}", "unknown key 'tokens_per_hour'"),
])
def test_rate_limit_config_errors_name_their_path(section: str, message: str) -> None:
    text = f"rate_limits: {section}\nengines:\n  qa: {{model: m, backend: fake}}\n" \
           "routes:\n  qa: {engine: qa}\n"
    with pytest.raises(ConfigError, match=message):
        parse_config(text)


SHADOW_CONFIG = """
rate_limits:
  standard: {tokens_per_minute: 100000}
engines:
  qa: {model: m, backend: fake, engine_args: {max_model_len: 128}, sampling: {max_tokens: 4}}
  cand: {model: c, backend: fake, engine_args: {max_model_len: 128}}
routes:
  qa:
    engine: qa
    shadow: {engine: cand, fraction: 1.0, name: candidate, sampling: {max_tokens: 8}}
"""


def test_shadow_copies_are_not_charged_to_the_caller(clock: Clock) -> None:
    for client, fakes in limited_client(SHADOW_CONFIG, clock):
        response = client.post("/v1/chat/completions", json=CHAT)
        assert response.status_code == 200
        assert fakes.state is not None
        end = time.monotonic() + 5  # the fake clock stands still; wait on the real one
        while fakes.state.background and time.monotonic() < end:
            time.sleep(0.005)
        assert fakes.engines["cand"].requests  # the shadow did run (up to 8 tokens)
        usage = response.json()["usage"]
        (key_usage,) = fakes.state.limiter._usage.values()
        assert key_usage.tokens.used_at(clock.now) == (usage["prompt_tokens"]
                                                       + usage["completion_tokens"])


def test_idle_keys_are_forgotten() -> None:
    clock = Clock()
    limiter = RateLimiter(clock=clock)
    policy = RateLimitConfig(requests_per_minute=5)
    for key in ("a", "b"):
        limiter.admit(key, "standard", policy)
    assert limiter.keys_tracked == 2
    clock.now += 30
    limiter.admit("b", "standard", policy)
    clock.now += 40  # a's request has left its window, b's second one has not
    limiter.admit("c", "standard", policy)
    assert limiter.keys_tracked == 2  # a is gone; b and c stay
