"""Rate limits over time: requests and tokens per minute (and optionally tokens per day) for
each API key, configured per tier in routes.yaml's ``rate_limits:``.

Accounting is exact and in-process. Every key has sliding windows of what it used: a request
is counted when it is let in, its prompt tokens when its lane is admitted (so a burst of
concurrent requests sees them at once), its completion tokens when it ends. A request is
refused (429) while a window is full: requests used >= the per-minute limit, or tokens used
>= a token limit. Token use is only known afterwards, so one request may take a window past
its limit; the next ones then wait until enough of it has expired (Retry-After says how long).

Why not the ``limits`` library: its ``hit(cost=N)`` refuses, and records nothing, when a
cost does not fit, while completion tokens have to be charged whatever they come to; and
its windows are either approximate (sliding-window counter) or a per-hit log. The windows
here are a log in 100 ms buckets: exact amounts, bounded memory (600 buckets per minute,
1,440 one-minute buckets per day).

The current request's budget travels in a context variable from the HTTP layer (which knows
the key) down to the lane (which knows the tokens), so the pipeline needs no HTTP types.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from router.config import RateLimitConfig

MINUTE_S = 60.0
DAY_S = 86_400.0


class Window:
    """Amounts used over the last `span_s` seconds, kept in buckets of `bucket_s`."""

    def __init__(self, span_s: float, bucket_s: float) -> None:
        self.span_s = span_s
        self.bucket_s = bucket_s
        self._buckets: deque[list[float]] = deque()  # [bucket start, amount]
        self.used = 0

    def _expire(self, now: float) -> None:
        while self._buckets and self._buckets[0][0] + self.bucket_s + self.span_s <= now:
            self.used -= int(self._buckets.popleft()[1])

    def add(self, now: float, amount: int) -> None:
        self._expire(now)
        start = math.floor(now / self.bucket_s) * self.bucket_s
        if self._buckets and self._buckets[-1][0] == start:
            self._buckets[-1][1] += amount
        else:
            self._buckets.append([start, float(amount)])
        self.used += amount

    def used_at(self, now: float) -> int:
        self._expire(now)
        return self.used

    def free_in(self, now: float, limit: int) -> float:
        """Seconds until less than `limit` is used (0 when that is so already)."""
        self._expire(now)
        used = self.used
        for start, amount in self._buckets:
            if used < limit:
                break
            used -= int(amount)
            if used < limit:
                return max(0.0, start + self.bucket_s + self.span_s - now)
        return 0.0

    def empty_in(self, now: float) -> float:
        """Seconds until the window holds nothing (a full reset)."""
        self._expire(now)
        if not self._buckets:
            return 0.0
        return max(0.0, self._buckets[-1][0] + self.bucket_s + self.span_s - now)

    @property
    def idle(self) -> bool:
        return not self._buckets


class KeyUsage:
    """One key's windows."""

    def __init__(self) -> None:
        self.requests = Window(MINUTE_S, 0.1)
        self.tokens = Window(MINUTE_S, 0.1)
        self.day_tokens = Window(DAY_S, 60.0)

    def charge_tokens(self, now: float, tokens: int) -> None:
        if tokens > 0:
            self.tokens.add(now, tokens)
            self.day_tokens.add(now, tokens)


@dataclass(frozen=True, slots=True)
class Refusal:
    limit: str  # "requests", "tokens" or "tokens_per_day"
    message: str
    retry_after_s: float


@dataclass(slots=True)
class Budget:
    """What one request may charge to (its key's usage), handed down in `current_budget`."""

    usage: KeyUsage
    clock: Callable[[], float]
    counters: RateLimitCounters
    tier: str

    def charge_tokens(self, tokens: int) -> None:
        if tokens > 0:
            self.usage.charge_tokens(self.clock(), tokens)
            self.counters.tokens[self.tier] = self.counters.tokens.get(self.tier, 0) + tokens


# Set by the HTTP layer for the request it serves; read by the request's lanes.
current_budget: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "switchboard_rate_limit_budget", default=None)


@dataclass
class RateLimitCounters:
    """For /metrics: refusals by tier and limit, tokens charged by tier."""

    refused: dict[tuple[str, str], int]
    tokens: dict[str, int]
    admitted: dict[str, int]


def reset_header(seconds: float) -> str:
    """A duration as OpenAI writes it in x-ratelimit-reset-*: 20ms, 1s, 6m0s, 1h2m3.5s."""
    if seconds < 1:
        return f"{max(0, math.ceil(seconds * 1000))}ms"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:.3f}".rstrip("0").rstrip(".") + "s"
    if hours >= 1:
        return f"{int(hours)}h{int(minutes)}m{text}"
    if minutes >= 1:
        return f"{int(minutes)}m{text}"
    return text


class RateLimiter:
    """Usage per key; the policies come from the current snapshot at each check, so a
    reload changes limits for the next request while what was used is kept."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._usage: dict[str, KeyUsage] = {}
        self._next_prune = clock() + MINUTE_S
        self.counters = RateLimitCounters(refused={}, tokens={}, admitted={})

    @property
    def keys_tracked(self) -> int:
        return len(self._usage)

    def admit(
        self, key: str, tier: str, policy: RateLimitConfig
    ) -> tuple[Budget | Refusal, dict[str, str]]:
        """Let one request in (counting it) or refuse it; with the x-ratelimit-* headers."""
        now = self._clock()
        self._forget_idle(now)
        usage = self._usage.get(key)
        if usage is None:
            usage = self._usage[key] = KeyUsage()
        refusal = self._refusal(usage, policy, now)
        if refusal is None:
            usage.requests.add(now, 1)
        headers = self._headers(usage, policy, now)
        if refusal is not None:
            self._count(self.counters.refused, (tier, refusal.limit))
            headers["retry-after"] = str(max(1, math.ceil(refusal.retry_after_s)))
            return refusal, headers
        self._count(self.counters.admitted, tier)
        return Budget(usage, self._clock, self.counters, tier), headers

    @staticmethod
    def _count(counter: dict[tuple[str, str], int] | dict[str, int], key: object) -> None:
        counter[key] = counter.get(key, 0) + 1  # type: ignore[index, call-overload]

    def _refusal(self, usage: KeyUsage, policy: RateLimitConfig, now: float) -> Refusal | None:
        rpm, tpm, tpd = (policy.requests_per_minute, policy.tokens_per_minute,
                         policy.tokens_per_day)
        if rpm is not None and usage.requests.used_at(now) >= rpm:
            wait = usage.requests.free_in(now, rpm)
            return Refusal("requests", f"Rate limit reached for requests per minute: limit "
                           f"{rpm}, used {usage.requests.used}. Try again in "
                           f"{reset_header(wait)}.", wait)
        if tpm is not None and usage.tokens.used_at(now) >= tpm:
            wait = usage.tokens.free_in(now, tpm)
            return Refusal("tokens", f"Rate limit reached for tokens per minute: limit {tpm}, "
                           f"used {usage.tokens.used}. Try again in {reset_header(wait)}.",
                           wait)
        if tpd is not None and usage.day_tokens.used_at(now) >= tpd:
            wait = usage.day_tokens.free_in(now, tpd)
            return Refusal("tokens_per_day", f"Daily token limit reached: limit {tpd}, used "
                           f"{usage.day_tokens.used}. Try again in {reset_header(wait)}.",
                           wait)
        return None

    @staticmethod
    def _headers(usage: KeyUsage, policy: RateLimitConfig, now: float) -> dict[str, str]:
        headers: dict[str, str] = {}
        for kind, window, limit in (("requests", usage.requests, policy.requests_per_minute),
                                    ("tokens", usage.tokens, policy.tokens_per_minute)):
            if limit is None:
                continue
            headers[f"x-ratelimit-limit-{kind}"] = str(limit)
            headers[f"x-ratelimit-remaining-{kind}"] = str(max(0, limit - window.used_at(now)))
            headers[f"x-ratelimit-reset-{kind}"] = reset_header(window.empty_in(now))
        return headers

    def _forget_idle(self, now: float) -> None:
        """Drop keys whose windows are all empty, so memory follows active keys only
        (a scan over every key: at most once a minute)."""
        if now < self._next_prune:
            return
        self._next_prune = now + MINUTE_S
        for key in [k for k, u in self._usage.items()
                    if u.requests.used_at(now) == 0 and u.tokens.used_at(now) == 0
                    and u.day_tokens.used_at(now) == 0]:
            del self._usage[key]


class RateLimitCollector(Collector):
    """Rate-limit counters for /metrics, read at scrape time from the gateway's limiter."""

    def __init__(self, limiter: Callable[[], RateLimiter]) -> None:
        self._limiter = limiter

    def collect(self) -> Iterator[Metric]:
        limiter = self._limiter()
        counters = limiter.counters
        refused = CounterMetricFamily(
            "switchboard_ratelimit_refused", "Requests refused by a rate limit (429)",
            labels=["tier", "limit"])
        for (tier, limit), value in sorted(counters.refused.items()):
            refused.add_metric([tier, limit], value)
        admitted = CounterMetricFamily(
            "switchboard_ratelimit_admitted", "Requests let in under a rate limit",
            labels=["tier"])
        for tier, value in sorted(counters.admitted.items()):
            admitted.add_metric([tier], value)
        tokens = CounterMetricFamily(
            "switchboard_ratelimit_tokens", "Tokens charged to rate-limit budgets",
            labels=["tier"])
        for tier, value in sorted(counters.tokens.items()):
            tokens.add_metric([tier], value)
        yield refused
        yield admitted
        yield tokens
        yield GaugeMetricFamily("switchboard_ratelimit_keys",
                                "API keys with rate-limit usage in memory",
                                value=limiter.keys_tracked)
