"""The request span, as pure ASGI middleware (the outermost one, so that authentication,
rate limits and the whole streamed body fall inside it). Without tracing configured it
passes requests straight through."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from router.gateway import Gateway
from router.http.ratelimit import route_path
from router.telemetry.record import RequestRecord
from router.telemetry.tracing import current_trace, end_span


class TracingMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        gateway: Gateway | None = scope.get("state", {}).get("gateway") \
            if scope["type"] == "http" else None
        tracing = None if gateway is None else gateway.tracing
        if tracing is None:
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1"): value.decode("latin-1")
                   for name, value in scope["headers"]
                   if name in (b"traceparent", b"tracestate")}
        trace = tracing.start_request(scope["method"], route_path(scope), headers)
        status: list[int] = []

        async def send_and_note(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        token = current_trace.set(trace)
        error: BaseException | None = None
        try:
            await self.app(scope, receive, send_and_note)
        except BaseException as exc:
            error = exc
            raise
        finally:
            current_trace.reset(token)
            record: RequestRecord | None = scope["state"].get("record")
            attributes: dict[str, str | int] = {}
            if status:
                attributes["http.response.status_code"] = status[0]
            if record is not None:
                attributes["switchboard.request_id"] = record.request_id
                for key, value in (("switchboard.route", record.route),
                                   ("switchboard.engine", record.engine),
                                   ("switchboard.variant", record.variant),
                                   ("switchboard.route_reason", record.route_reason)):
                    if value is not None:
                        attributes[key] = value
            # A 4xx is the client's error, not the server span's (OTel's HTTP conventions);
            # a 5xx, or a stream that failed after its 200, is.
            code = max(status[0] if status else 0,
                       (record.error_status or 0) if record is not None else 0)
            if error is None and code >= 500:
                error = RuntimeError((record.error if record else None) or f"status {code}")
            end_span(trace.span, error, attributes)
