"""Tracing: a server span per request (a child of the caller's W3C traceparent) with lane,
prepare, engine and stream spans under it; off by default; configured in routes.yaml."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from starlette.testclient import TestClient

from router.config import ConfigError, TracingConfig, parse_config
from router.http.app import build_app
from router.telemetry.tracing import Tracing
from tests.unit.fakes import FAKE_CONFIG, FakeGateway, fake_client

CHAT = {"model": "qa", "messages": [{"role": "user", "content": "hello"}], "max_tokens": 3}
CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c"
TRACEPARENT = f"00-{CALLER_TRACE}-b7ad6b7169203331-01"


@pytest.fixture()
def traced() -> Iterator[tuple[TestClient, FakeGateway, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    gateway = FakeGateway(parse_config(FAKE_CONFIG))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state,
                    make_tracing=lambda _: Tracing.with_exporter(exporter, batch=False))
    with TestClient(app) as client:
        yield client, gateway, exporter


def by_name(spans: tuple[ReadableSpan, ...]) -> dict[str, ReadableSpan]:
    return {span.name: span for span in spans}


def test_a_request_is_one_trace_under_the_callers_span(
        traced: tuple[TestClient, FakeGateway, InMemorySpanExporter]) -> None:
    client, _, exporter = traced
    response = client.post("/v1/chat/completions", json=CHAT,
                           headers={"traceparent": TRACEPARENT})
    assert response.status_code == 200
    spans = by_name(exporter.get_finished_spans())
    assert set(spans) == {"POST /v1/chat/completions", "classify", "lane qa", "prepare",
                          "engine", "stream"}
    classify = spans["classify"]
    assert classify.attributes is not None and classify.attributes["switchboard.route"] == "qa"
    assert classify.parent is not None
    request = spans["POST /v1/chat/completions"]
    assert request.kind is SpanKind.SERVER
    assert request.context is not None and request.parent is not None
    assert f"{request.context.trace_id:032x}" == CALLER_TRACE
    assert f"{request.parent.span_id:016x}" == "b7ad6b7169203331"
    assert request.attributes is not None
    assert request.attributes["http.response.status_code"] == 200
    assert request.attributes["switchboard.route"] == "qa"
    lane = spans["lane qa"]
    assert lane.parent is not None and lane.parent.span_id == request.context.span_id
    assert lane.attributes is not None
    assert lane.attributes["switchboard.completion_tokens"] == 3
    assert [event.name for event in lane.events] == ["admission"]
    for step in ("prepare", "engine", "stream"):
        span = spans[step]
        assert span.parent is not None and lane.context is not None
        assert span.parent.span_id == lane.context.span_id
        assert span.context is not None and span.context.trace_id == request.context.trace_id
    # The steps follow each other and stay inside the request.
    assert spans["prepare"].end_time <= spans["engine"].start_time  # type: ignore[operator]
    assert spans["engine"].end_time <= spans["stream"].start_time  # type: ignore[operator]
    assert request.start_time <= lane.start_time  # type: ignore[operator]
    assert lane.end_time <= request.end_time  # type: ignore[operator]


def test_a_streamed_request_ends_its_span_after_the_last_event(
        traced: tuple[TestClient, FakeGateway, InMemorySpanExporter]) -> None:
    client, _, exporter = traced
    with client.stream("POST", "/v1/chat/completions", json={**CHAT, "stream": True}) as r:
        lines = [line for line in r.iter_lines() if line]
    assert lines[-1] == "data: [DONE]"
    spans = by_name(exporter.get_finished_spans())
    request = spans["POST /v1/chat/completions"]
    assert request.parent is None  # no traceparent: a trace of its own
    assert spans["stream"].end_time <= request.end_time  # type: ignore[operator]


def test_a_failed_engine_marks_the_spans(
        traced: tuple[TestClient, FakeGateway, InMemorySpanExporter]) -> None:
    client, gateway, exporter = traced
    gateway.engines["qa"].behaviour.dead = True
    response = client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 503
    spans = by_name(exporter.get_finished_spans())
    assert spans["POST /v1/chat/completions"].status.status_code is StatusCode.ERROR
    assert spans["lane qa"].status.status_code is StatusCode.ERROR


def test_a_client_error_is_not_a_server_span_error(
        traced: tuple[TestClient, FakeGateway, InMemorySpanExporter]) -> None:
    client, _, exporter = traced
    assert client.post("/v1/chat/completions", json={"model": "qa"}).status_code == 400
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.UNSET


def test_tracing_is_off_by_default() -> None:
    config = parse_config(FAKE_CONFIG)
    assert config.tracing == TracingConfig()
    assert Tracing.from_config(config.tracing) is None
    with fake_client() as (client, gateway):
        assert client.post("/v1/chat/completions", json=CHAT).status_code == 200
        assert gateway.state is not None and gateway.state.tracing is None


def test_an_otlp_exporter_is_built_from_the_config() -> None:
    config = parse_config("tracing: {exporter: otlp, endpoint: 'http://collector:4318/v1/traces',"
                          " service_name: gw-eu, sample_ratio: 0.25}\n" + FAKE_CONFIG)
    tracing = Tracing.from_config(config.tracing)
    assert tracing is not None
    try:
        assert tracing.provider.resource.attributes["service.name"] == "gw-eu"
        assert "0.25" in tracing.provider.sampler.get_description()
    finally:
        tracing.shutdown()


@pytest.mark.parametrize("section, message", [
    ("{exporter: jaeger}", "tracing.exporter: unknown exporter 'jaeger'"),
    ("{exporter: otlp, protocol: thrift}", "tracing.protocol: unknown protocol"),
    ("{sample_ratio: 2}", "tracing.sample_ratio: must be between 0 and 1"),
    ("{endpont: x}", "did you mean 'endpoint'"),
])
def test_tracing_config_errors_name_their_path(section: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(f"tracing: {section}\n" + FAKE_CONFIG)


def test_the_engine_continues_the_trace_from_the_engine_span(
        traced: tuple[TestClient, FakeGateway, InMemorySpanExporter]) -> None:
    client, gateway, exporter = traced
    assert client.post("/v1/chat/completions", json=CHAT,
                       headers={"traceparent": TRACEPARENT}).status_code == 200
    sent = gateway.engines["qa"].requests[-1].trace_headers
    engine_span = by_name(exporter.get_finished_spans())["engine"]
    assert engine_span.context is not None
    version, trace_id, parent_id, _ = sent["traceparent"].split("-")
    assert (version, trace_id) == ("00", CALLER_TRACE)
    assert parent_id == f"{engine_span.context.span_id:016x}"  # vLLM's spans nest under it


def test_untraced_requests_send_the_engine_no_trace_context() -> None:
    with fake_client() as (client, gateway):
        assert client.post("/v1/chat/completions", json=CHAT).status_code == 200
        assert gateway.engines["qa"].requests[-1].trace_headers == {}
