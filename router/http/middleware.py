"""Pure-ASGI middleware: request ids, response headers, the canonical log line, and the
hand-off of a finished live generation to telemetry (its HTTP status is known only here).

Pure ASGI (not BaseHTTPMiddleware) so that streamed bodies pass through untouched and a
client disconnect reaches the endpoint.
"""

from __future__ import annotations

import uuid

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from router.gateway import Gateway
from router.telemetry.record import RequestRecord

log = structlog.get_logger("switchboard.access")

MAX_CLIENT_ID_CHARS = 128


def new_request_id() -> str:
    return uuid.uuid4().hex


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client_id = None
        for name, value in scope["headers"]:
            if name == b"x-request-id":
                client_id = value.decode("latin-1")[:MAX_CLIENT_ID_CHARS] or None
                break
        record = RequestRecord(
            request_id=new_request_id(),
            method=scope["method"],
            path=scope["path"],
            client_request_id=client_id,
        )
        scope["state"]["record"] = record
        structlog.contextvars.bind_contextvars(request_id=record.request_id)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                record.status = message["status"]
                message["headers"] = [*message.get("headers", []), *record.response_headers()]
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as exc:
            record.status = record.status or 500
            record.error = record.error or f"{type(exc).__name__}: {exc}"
            raise
        finally:
            structlog.contextvars.unbind_contextvars("request_id")
            if record.path not in ("/health", "/ready", "/metrics"):
                log.info("request_completed", **record.log_fields())
            gateway: Gateway = scope["state"]["gateway"]
            gateway.metrics.observe_http(record)
            if record.traffic == "live":  # refused requests (401, 403) never get here
                gateway.completed(record, "live")
