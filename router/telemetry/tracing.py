"""OpenTelemetry tracing: one server span per HTTP request, with child spans per lane for
admission, prompt preparation, the engine (submission to first token: its queue and the
prefill) and the stream (first token to the last: decode and delivery).

Off by default and free when off: nothing here imports OpenTelemetry until routes.yaml's
``tracing.exporter`` asks for it, and the request path then only reads one attribute and one
context variable. The tracer provider is the gateway's own, never the process-global one, so
two gateways in one process (tests) keep their spans apart. An incoming W3C ``traceparent``
(and ``tracestate``) makes the request span a child of the caller's span.

Spans of a lane are started with an explicit parent instead of being made "current": a lane
is an async generator that yields between its steps, and a context attached before a yield
cannot be detached safely after it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog

from router.config import TracingConfig
from router.telemetry.record import RequestRecord

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span, Tracer

log = structlog.get_logger("switchboard.tracing")

INSTRUMENTATION = "switchboard"


@dataclass(slots=True)
class RequestTrace:
    """The span of one HTTP request, parent of its lanes' spans."""

    tracer: Tracer
    span: Span
    context: Context

    def start(self, name: str, parent: Span | None = None,
              attributes: Mapping[str, Any] | None = None) -> Span:
        """A child span of `parent` (default: the request span), not made current."""
        from opentelemetry.trace import set_span_in_context

        context = self.context if parent is None else set_span_in_context(parent)
        return self.tracer.start_span(name, context=context, attributes=attributes)


class LaneSpans:
    """One lane's spans: a lane span (engine, traffic, tokens) and one child per step,
    each step ending where the next begins."""

    def __init__(self, trace: RequestTrace, engine: str, record: RequestRecord) -> None:
        self._trace = trace
        self._record = record
        self.lane = trace.start(f"lane {engine}", attributes={
            "switchboard.engine": engine, "switchboard.traffic": record.traffic or "live",
            "switchboard.lane_request_id": record.request_id})
        self._step: Span | None = None

    def admission(self, outstanding: int, queued: int) -> None:
        """Admission takes no time (it refuses instead of waiting): an event, not a span."""
        self.lane.add_event("admission", {"switchboard.outstanding": outstanding,
                                          "switchboard.queued": queued})

    def step(self, name: str) -> None:
        if self._step is not None:
            self._step.end()
        self._step = self._trace.start(name, parent=self.lane)

    def trace_headers(self) -> dict[str, str]:
        """W3C trace context of the current step, for the engine to continue the trace."""
        from opentelemetry.trace import set_span_in_context
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        carrier: dict[str, str] = {}
        span = self._step or self.lane
        TraceContextTextMapPropagator().inject(carrier, context=set_span_in_context(span))
        return carrier

    def end(self, error: BaseException | None) -> None:
        record = self._record
        if self._step is not None:
            end_span(self._step, error)
            self._step = None
        attributes: dict[str, Any] = {"switchboard.completion_tokens": record.completion_tokens}
        if record.prompt_tokens is not None:
            attributes["switchboard.prompt_tokens"] = record.prompt_tokens
        if record.finish_reason is not None:
            attributes["switchboard.finish_reason"] = record.finish_reason
        end_span(self.lane, error, attributes)


# Set by the HTTP layer for the request it traces; read by the request's lanes.
current_trace: contextvars.ContextVar[RequestTrace | None] = contextvars.ContextVar(
    "switchboard_request_trace", default=None)


class Tracing:
    """The gateway's tracer provider and the W3C trace-context propagator."""

    def __init__(self, provider: TracerProvider) -> None:
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self.provider = provider
        self.tracer = provider.get_tracer(INSTRUMENTATION)
        self._propagator = TraceContextTextMapPropagator()

    @classmethod
    def from_config(cls, config: TracingConfig) -> Tracing | None:
        if config.exporter == "none":
            return None
        return cls.with_exporter(_otlp_exporter(config), config.service_name,
                                 config.sample_ratio, batch=True)

    @classmethod
    def with_exporter(cls, exporter: SpanExporter, service_name: str = "switchboard",
                      sample_ratio: float = 1.0, batch: bool = True) -> Tracing:
        """`batch=False` exports each span as it ends (tests, with the in-memory exporter)."""
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
        from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

        provider = TracerProvider(resource=Resource.create({"service.name": service_name}),
                                  sampler=ParentBased(TraceIdRatioBased(sample_ratio)))
        # Batching exports off the event loop, on the processor's own thread.
        processor = BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
        provider.add_span_processor(processor)
        return cls(provider)

    def start_request(self, method: str, path: str,
                      headers: Mapping[str, str]) -> RequestTrace:
        from opentelemetry.trace import SpanKind, set_span_in_context

        parent = self._propagator.extract(carrier=headers)
        span = self.tracer.start_span(
            f"{method} {path}", context=parent, kind=SpanKind.SERVER,
            attributes={"http.request.method": method, "url.path": path})
        return RequestTrace(self.tracer, span, set_span_in_context(span))

    def shutdown(self) -> None:
        """Export what is buffered and stop (blocks: call it off the event loop)."""
        self.provider.shutdown()


def _otlp_exporter(config: TracingConfig) -> SpanExporter:
    if config.protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcExporter,
        )

        return GrpcExporter(endpoint=config.endpoint, insecure=config.insecure)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(endpoint=config.endpoint)


def end_span(span: Span, error: BaseException | None = None,
             attributes: Mapping[str, Any] | None = None) -> None:
    """End `span`, marking it failed when `error` is set."""
    from opentelemetry.trace import Status, StatusCode

    if attributes:
        span.set_attributes(attributes)
    if error is not None:
        span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"[:300]))
    span.end()
