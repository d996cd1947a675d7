"""/metrics: per route/variant/engine series that count what was sent, and engine gauges."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from router.telemetry.metrics import GatewayMetrics, error_kind, tpot_s
from router.telemetry.record import RequestRecord
from tests.unit.fakes import fake_client
from tests.unit.test_variants import AB_CONFIG


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, frozenset(labels.items())), 0.0)


def lane(variant: str, engine: str, traffic: str = "live") -> dict[str, str]:
    return {"route": "translation", "variant": variant, "engine": engine, "traffic": traffic}


def test_metrics_carry_the_variant_and_count_what_was_sent() -> None:
    with fake_client(AB_CONFIG) as (client, gateway):
        sent = {"gemma": 0, "smol": 0}
        tokens = {"gemma": 0, "smol": 0}
        prompt = {"gemma": 0, "smol": 0}
        for i in range(9):
            variant = "smol" if i % 3 == 0 else "gemma"
            resp = client.post(
                "/v1/chat/completions",
                json={"model": "translation", "stream": i % 2 == 0,
                      "messages": [{"role": "user", "content": "one two three"}]},
                headers={"x-switchboard-variant": variant},
            )
            assert resp.status_code == 200
            sent[variant] += 1
        for variant, engine in (("gemma", "translation"), ("smol", "qa")):
            reqs = gateway.engines[engine].requests
            tokens[variant] = sum(r.sampling["max_tokens"] for r in reqs)
            prompt[variant] = sum(len(r.prompt.token_ids) for r in reqs)
        text = client.get("/metrics").text
    for variant, engine in (("gemma", "translation"), ("smol", "qa")):
        labels = lane(variant, engine)
        assert value(text, "switchboard_requests_total", **labels, outcome="ok") == sent[variant]
        assert value(text, "switchboard_completion_tokens_total", **labels) == tokens[variant]
        assert value(text, "switchboard_prompt_tokens_total", **labels) == prompt[variant]
        for hist in ("switchboard_time_to_first_token_seconds",
                     "switchboard_time_to_engine_seconds",
                     "switchboard_e2e_request_latency_seconds",
                     "switchboard_time_per_output_token_seconds"):
            assert value(text, f"{hist}_count", **labels) == sent[variant], hist
    assert sent == {"gemma": 6, "smol": 3}
    assert tokens == {"gemma": 6 * 4, "smol": 3 * 3}
    assert value(text, "switchboard_http_requests_total", method="POST",
                 path="/v1/chat/completions", status="200") == 9


def test_errors_are_counted_by_kind() -> None:
    with fake_client(AB_CONFIG) as (client, gateway):
        assert gateway.state is not None
        msgs = [{"role": "user", "content": "x"}]
        bad = client.post("/v1/chat/completions", json={"model": "translation", "messages": msgs,
                                                        "max_tokens": 500},
                          headers={"x-switchboard-variant": "gemma"})
        assert bad.status_code == 400
        missing = client.post("/v1/chat/completions", json={"model": "nope", "messages": msgs})
        assert missing.status_code == 404
        admission = gateway.state.snapshot.engines["qa"].admission
        admission.outstanding = admission.capacity
        busy = client.post("/v1/chat/completions", json={"model": "translation",
                                                         "messages": msgs},
                           headers={"x-switchboard-variant": "smol"})
        assert busy.status_code == 429
        admission.outstanding = 0
        gateway.engines["translation"].behaviour.dead = True
        dead = client.post("/v1/chat/completions", json={"model": "translation",
                                                         "messages": msgs},
                           headers={"x-switchboard-variant": "gemma"})
        assert dead.status_code == 503
        text = client.get("/metrics").text
    gemma = lane("gemma", "translation")
    assert value(text, "switchboard_request_errors_total", **gemma, kind="invalid_request") == 1
    assert value(text, "switchboard_request_errors_total", **gemma,
                 kind="engine_unavailable") == 1
    assert value(text, "switchboard_request_errors_total", **lane("smol", "qa"),
                 kind="overloaded") == 1
    assert value(text, "switchboard_request_errors_total", route="", variant="", engine="",
                 traffic="live", kind="not_found") == 1
    assert value(text, "switchboard_requests_total", **gemma, outcome="error") == 2
    # Failed requests do not enter the latency histograms.
    assert value(text, "switchboard_e2e_request_latency_seconds_count", **gemma) == 0


def test_engine_gauges() -> None:
    with fake_client(AB_CONFIG) as (client, gateway):
        assert gateway.state is not None
        admission = gateway.state.snapshot.engines["qa"].admission
        admission.outstanding = admission.max_in_flight + 2
        text = client.get("/metrics").text
        admission.outstanding = 0
        gateway.engines["translation"].behaviour.dead = True
        client.post("/v1/chat/completions", headers={"x-switchboard-variant": "gemma"},
                    json={"model": "translation", "messages": [{"role": "user", "content": "x"}]})
        after = client.get("/metrics")
    assert after.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert value(text, "switchboard_engine_outstanding_requests", engine="qa") == 66
    assert value(text, "switchboard_engine_queued_requests", engine="qa") == 2
    assert value(text, "switchboard_engine_running_requests", engine="qa") == 0
    # The fake engine, like a vLLM engine with its statistics off, does not know its
    # scheduler queue or KV cache: no sample rather than a made-up 0.
    exported = samples(text)
    assert ("switchboard_engine_waiting_requests", frozenset({("engine", "qa")})) not in exported
    assert ("switchboard_engine_kv_cache_usage", frozenset({("engine", "qa")})) not in exported
    assert value(text, "switchboard_engine_state", engine="qa", state="ready") == 1
    assert value(text, "switchboard_engine_state", engine="qa", state="failed") == 0
    assert value(after.text, "switchboard_engine_state", engine="translation", state="failed") == 1
    assert value(after.text, "switchboard_engine_state", engine="translation", state="ready") == 0


def test_each_gateway_owns_its_registry() -> None:
    first, second = GatewayMetrics(), GatewayMetrics()
    record = RequestRecord("r1", "POST", "/v1/chat/completions", status=200, route="a",
                           engine="e", completion_tokens=3)
    first.observe(record)
    assert b'switchboard_requests_total{engine="e"' in first.render()
    assert b"switchboard_requests_total{" not in second.render()
    assert REGISTRY.get_sample_value("switchboard_requests_total") is None


@pytest.mark.parametrize(
    ("status", "error", "kind"),
    [(200, None, None), (200, "total timeout", "timeout"), (200, "boom", "stream_error"),
     (400, "x", "invalid_request"), (429, "x", "overloaded"), (499, None, "client_closed"),
     (500, "x", "internal"), (503, "x", "engine_unavailable"), (504, "x", "timeout"),
     (418, "x", "client_error")],
)
def test_error_kind(status: int, error: str | None, kind: str | None) -> None:
    record = RequestRecord("r", "POST", "/", status=status, error=error)
    assert error_kind(record) == kind


def test_tpot_excludes_the_first_token() -> None:
    record = RequestRecord("r", "POST", "/", started=10.0, first_token_at=10.5,
                           finished_at=12.5, completion_tokens=5)
    assert tpot_s(record) == pytest.approx(0.5)
    record.completion_tokens = 1
    assert tpot_s(record) is None


def test_the_time_to_engine_is_the_gateways_share_of_the_time_to_first_token() -> None:
    record = RequestRecord("r1", "POST", "/v1/chat/completions", started=100.0,
                           route="qa", engine="qa", submitted_at=100.004,
                           first_token_at=100.050, finished_at=100.2, completion_tokens=5)
    assert record.to_engine_s == pytest.approx(0.004)
    assert record.log_fields()["to_engine_ms"] == pytest.approx(4.0)
    metrics = GatewayMetrics()
    metrics.observe(record)
    text = metrics.render().decode()
    labels = {"route": "qa", "variant": "", "engine": "qa", "traffic": "live"}
    assert value(text, "switchboard_time_to_engine_seconds_count", **labels) == 1
    assert value(text, "switchboard_time_to_engine_seconds_sum", **labels) == pytest.approx(0.004)
    # a request rejected before it reached an engine has no such time
    assert RequestRecord("r2", "POST", "/v1/chat/completions").to_engine_s is None
