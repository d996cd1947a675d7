"""Prometheus metrics, fed from each request's RequestRecord when it completes.

The registry belongs to one gateway (GatewayState.metrics), never prometheus_client's global
default, so two gateways in one process (tests) or a reload don't share series.

Per route / variant / engine / traffic (``live``, ``shadow``, ``compare``): requests by
outcome, errors by kind, time to first token, time per output token and end-to-end latency
(histograms), prompt and completion tokens. Per engine, read at scrape time: running and
waiting requests (the engine's own stats), outstanding and queued (the gateway's admission),
and the engine state as a one-hot gauge.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import structlog
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from router.telemetry.record import RequestRecord

log = structlog.get_logger("switchboard.metrics")

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"  # Prometheus text format
# prometheus_client's multiprocess mode: set before it is imported (router.processes does).
MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"

_LABELS = ("route", "variant", "engine", "traffic")
# Seconds; CPU engines answer in seconds, GPU engines in tens of milliseconds.
_LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320)
# The gateway's own part: sub-millisecond when idle, tens of ms when a wave queues.
_TO_ENGINE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
                      5, 10, 30)
_TPOT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56)
ENGINE_STATES = ("starting", "ready", "failed", "draining", "stopped")


def error_kind(record: RequestRecord) -> str | None:
    """A small, fixed set of error kinds (label values must not carry free text)."""
    status = record.status
    if status == 499 or record.client_closed:
        return "client_closed"
    if status is not None and status >= 400:
        return _kind_of(status)
    if record.error_status is not None:  # the stream had started (200) and then failed
        return _kind_of(record.error_status)
    if record.error:
        return "timeout" if "timeout" in record.error else "stream_error"
    return None


def _kind_of(status: int) -> str:
    return {
        400: "invalid_request", 401: "auth", 403: "auth", 404: "not_found",
        413: "too_large", 429: "overloaded", 503: "engine_unavailable", 504: "timeout",
    }.get(status, "internal" if status >= 500 else "client_error")  # fmt: skip


def tpot_s(record: RequestRecord) -> float | None:
    """Time per output token after the first one (vLLM's definition)."""
    if record.first_token_at is None or record.finished_at is None:
        return None
    if record.completion_tokens < 2:
        return None
    return (record.finished_at - record.first_token_at) / (record.completion_tokens - 1)


@dataclass(frozen=True, slots=True)
class EngineSnapshot:
    engine: str
    state: str
    running: int | None  # None: the engine does not measure it (no sample is exported)
    waiting: int | None
    outstanding: int
    queued: int
    kv_cache_usage: float | None


class _EngineCollector(Collector):
    def __init__(self, source: Callable[[], Iterable[EngineSnapshot]]) -> None:
        self._source = source

    def collect(self) -> Iterator[Metric]:
        gauges = {
            "running": GaugeMetricFamily(
                "switchboard_engine_running_requests", "Requests running in the engine",
                labels=["engine"]),
            "waiting": GaugeMetricFamily(
                "switchboard_engine_waiting_requests", "Requests waiting in the engine",
                labels=["engine"]),
            "outstanding": GaugeMetricFamily(
                "switchboard_engine_outstanding_requests",
                "Requests admitted by the gateway and not yet finished", labels=["engine"]),
            "queued": GaugeMetricFamily(
                "switchboard_engine_queued_requests",
                "Admitted requests beyond the engine's running bound", labels=["engine"]),
            "kv_cache_usage": GaugeMetricFamily(
                "switchboard_engine_kv_cache_usage", "KV cache usage (0-1)", labels=["engine"]),
        }  # fmt: skip
        state = GaugeMetricFamily(
            "switchboard_engine_state", "1 for the engine's current state",
            labels=["engine", "state"],
        )
        try:
            snapshots = list(self._source())
        except Exception as exc:  # a scrape must not fail because one engine misbehaves
            log.warning("engine_metrics_failed", error=f"{type(exc).__name__}: {exc}")
            snapshots = []
        for snap in snapshots:
            for key, family in gauges.items():
                value = getattr(snap, key)
                if value is not None:
                    family.add_metric([snap.engine], float(value))
            for name in ENGINE_STATES:
                state.add_metric([snap.engine, name], 1.0 if snap.state == name else 0.0)
        yield from gauges.values()
        yield state


@dataclass(frozen=True, slots=True)
class _Series:
    """The labelled children of one (route, variant, engine, traffic)."""

    ok: Counter
    failed: Counter
    prompt_tokens: Counter
    completion_tokens: Counter
    ttft: Histogram
    to_engine: Histogram
    tpot: Histogram
    e2e: Histogram


class GatewayMetrics:
    def __init__(self, http_paths: Iterable[str] = ()) -> None:
        # Paths outside the app's route table are counted as "other": bounded label values.
        self._http_paths = frozenset(http_paths)
        self.registry = CollectorRegistry(auto_describe=True)
        # Read at scrape time from this process's state (engines, rate limits, record file).
        self._local: list[Collector] = []
        # Several API processes (router.processes): counters and histograms live in files
        # there, one per process, and every scrape sums all of them.
        self._shared_dir = os.environ.get(MULTIPROCESS_ENV)
        r = self.registry
        self.requests = Counter(
            "switchboard_requests", "Generation requests by outcome (ok or error)",
            [*_LABELS, "outcome"], registry=r)
        self.errors = Counter(
            "switchboard_request_errors", "Failed generation requests by kind",
            [*_LABELS, "kind"], registry=r)
        self.ttft = Histogram(
            "switchboard_time_to_first_token_seconds", "Time to first token",
            _LABELS, buckets=_LATENCY_BUCKETS, registry=r)
        self.to_engine = Histogram(
            "switchboard_time_to_engine_seconds",
            "Request received to engine submission: the gateway's share of the time to first "
            "token (parsing, routing, prompt rendering, tokenisation, admission queue)",
            _LABELS, buckets=_TO_ENGINE_BUCKETS, registry=r)
        self.tpot = Histogram(
            "switchboard_time_per_output_token_seconds", "Time per output token after the first",
            _LABELS, buckets=_TPOT_BUCKETS, registry=r)
        self.e2e = Histogram(
            "switchboard_e2e_request_latency_seconds", "End-to-end request latency",
            _LABELS, buckets=_LATENCY_BUCKETS, registry=r)
        self.prompt_tokens = Counter(
            "switchboard_prompt_tokens", "Prompt tokens", _LABELS, registry=r)
        self.completion_tokens = Counter(
            "switchboard_completion_tokens", "Completion tokens", _LABELS, registry=r)
        self.shadow_skipped = Counter(
            "switchboard_shadow_skipped", "Shadow copies not sent, by reason",
            ["route", "reason"], registry=r)
        self.http = Counter(
            "switchboard_http_requests", "HTTP requests by path and status",
            ["method", "path", "status"], registry=r)  # fmt: skip
        self._engines: _EngineCollector | None = None
        self._series: dict[tuple[str, str, str, str], _Series] = {}
        self._http_series: dict[tuple[str, str, int], Counter] = {}

    def watch_engines(self, source: Callable[[], Iterable[EngineSnapshot]]) -> None:
        """Export per-engine gauges, read from `source` at every scrape."""
        if self._engines is not None:
            self.registry.unregister(self._engines)
            self._local.remove(self._engines)
        self._engines = _EngineCollector(source)
        self.add_collector(self._engines)

    def add_collector(self, collector: Collector) -> None:
        """A collector of this process's own state, read at every scrape."""
        self.registry.register(collector)
        self._local.append(collector)

    def observe_http(self, record: RequestRecord) -> None:
        path = record.path if record.path in self._http_paths else "other"
        key = (record.method, path, record.status or 0)
        counter = self._http_series.get(key)
        if counter is None:
            counter = self._http_series[key] = self.http.labels(record.method, path,
                                                                str(record.status or 0))
        counter.inc()

    def observe(self, record: RequestRecord, traffic: str = "live") -> None:
        """Count one completed generation. Never raises: metrics must not fail a request."""
        try:
            self._observe(record, traffic)
        except Exception as exc:
            log.warning("metrics_observe_failed", error=f"{type(exc).__name__}: {exc}")

    def _observe(self, record: RequestRecord, traffic: str) -> None:
        labels = (record.route or "", record.variant or "", record.engine or "", traffic)
        kind = error_kind(record)
        series = self._series.get(labels)
        if series is None:  # labels() validates and locks: once per label set, not per request
            series = self._series[labels] = _Series(
                self.requests.labels(*labels, "ok"), self.requests.labels(*labels, "error"),
                self.prompt_tokens.labels(*labels), self.completion_tokens.labels(*labels),
                self.ttft.labels(*labels), self.to_engine.labels(*labels),
                self.tpot.labels(*labels), self.e2e.labels(*labels))
        (series.failed if kind else series.ok).inc()
        if kind is not None:
            self.errors.labels(*labels, kind).inc()
        if record.engine is None:
            return  # rejected before an engine was chosen: nothing was generated
        if record.prompt_tokens:
            series.prompt_tokens.inc(record.prompt_tokens)
        if record.completion_tokens:
            series.completion_tokens.inc(record.completion_tokens)
        if kind is not None:
            return  # latencies of failed requests would blur the distributions
        if record.ttft_s is not None:
            series.ttft.observe(record.ttft_s)
        if record.to_engine_s is not None:
            series.to_engine.observe(record.to_engine_s)
        tpot = tpot_s(record)
        if tpot is not None:
            series.tpot.observe(tpot)
        if record.finished_at is not None:
            series.e2e.observe(record.duration_s)

    def render(self) -> bytes:
        if self._shared_dir is None:
            return generate_latest(self.registry)
        # Every API process's counters and histograms, summed; the scrape-time collectors
        # describe the process that answered.
        merged = CollectorRegistry()
        MultiProcessCollector(merged, path=self._shared_dir)  # type: ignore[no-untyped-call]
        for collector in self._local:
            merged.register(collector)
        return generate_latest(merged)
