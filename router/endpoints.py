"""HTTP endpoints: the OpenAI-compatible API, classification, health and readiness."""

from __future__ import annotations

import time
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from engines.registry import EngineState
from router import dispatch, shadow
from router.auth import ANONYMOUS, Principal
from router.classify import RouteDecision
from router.disconnect import DisconnectWatcher
from router.errors import (
    GatewayError,
    InvalidRequestError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    error_response,
)
from router.openapi import openapi_spec
from router.record import RequestRecord
from router.reload import STRATEGIES, Reloader
from router.routing import ENGINE_PREFIX
from router.schemas import (
    CompletionRequest,
    RequestLimits,
    decode_json_body,
    parse_chat_request,
    parse_text_request,
)
from router.sse import (
    EventStreamResponse,
    ResponseShape,
    Usage,
    collect,
    stream_events,
    whole_response,
)
from router.state import GatewayState

CLIENT_CLOSED_REQUEST = 499


def json_response(payload: Any, status_code: int = 200) -> Response:
    return Response(orjson.dumps(payload), status_code=status_code, media_type="application/json")


def gateway_of(request: Request) -> GatewayState:
    state: GatewayState = request.state.gateway
    return state


def record_of(request: Request) -> RequestRecord:
    record: RequestRecord = request.state.record
    return record


async def read_body(request: Request, limits: RequestLimits) -> bytes:
    """Read the body, refusing it as soon as it passes the limit (not after buffering it)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise PayloadTooLargeError(
            f"request body is {declared} bytes; the limit is {limits.max_body_bytes}"
        )
    parts: list[bytes] = []
    size = 0
    async for part in request.stream():
        size += len(part)
        if size > limits.max_body_bytes:
            raise PayloadTooLargeError(f"request body exceeds {limits.max_body_bytes} bytes")
        parts.append(part)
    return b"".join(parts)


async def chat_completions(request: Request) -> Response:
    return await _complete(request, "chat")


async def completions(request: Request) -> Response:
    return await _complete(request, "text")


async def _parse(request: Request, state: GatewayState, kind: str) -> CompletionRequest:
    data = decode_json_body(await read_body(request, state.limits), state.limits)
    if kind == "chat":
        return parse_chat_request(data, state.limits)
    return parse_text_request(data, state.limits)


async def _complete(request: Request, kind: str) -> Response:
    state = gateway_of(request)
    record = record_of(request)
    parsed = await _parse(request, state, kind)
    record.stream = parsed.stream
    principal: Principal = getattr(request.state, "principal", ANONYMOUS)
    prepared = await dispatch.prepare(state, parsed, request.headers, record, principal.priority)
    shadow.mirror(state, parsed, prepared, record)
    chunks = dispatch.run(state, prepared, record)
    prefix = "chatcmpl-" if kind == "chat" else "cmpl-"
    shape = ResponseShape(response_id=prefix + record.request_id, model=prepared.handle.name,
                          kind=kind)

    def usage() -> Usage:
        return Usage(record.prompt_tokens or 0, record.completion_tokens)

    async with DisconnectWatcher(request.receive) as watcher:
        try:
            if parsed.stream:
                # Wait for the first delta before sending headers, so that an engine's
                # rejection still becomes a proper HTTP error instead of a broken stream.
                first = await anext(chunks, None)
            else:
                choices = await collect(chunks, prepared.n)
        except BaseException:
            await chunks.aclose()
            raise
    if watcher.disconnected:
        await chunks.aclose()
        record.status = CLIENT_CLOSED_REQUEST
        return Response(status_code=CLIENT_CLOSED_REQUEST)
    if parsed.stream:
        events = stream_events(shape, chunks, usage, prepared.n, parsed.include_usage, first)
        return EventStreamResponse(events)
    echo = parsed.prompt if parsed.echo else ""
    return json_response(whole_response(shape, choices, usage(), echo))


async def classify(request: Request) -> Response:
    state = gateway_of(request)
    data = decode_json_body(await read_body(request, state.limits), state.limits)
    parsed = parse_chat_request(data, state.limits)
    decision: RouteDecision = state.table.decide(
        parsed.model, parsed.raw_messages, request.headers.get("x-route")
    )
    route = state.table.lookup(decision.route)
    payload = decision.as_dict()
    if route is not None:
        payload["engine"] = route.engine
    return json_response(payload)


async def list_models(request: Request) -> Response:
    state = gateway_of(request)
    created = int(time.time())
    data = [{"id": "auto", "object": "model", "created": created, "owned_by": "switchboard",
             "kind": "router", "default_route": state.config.default_route}]
    for name, route in state.config.routes.items():
        data.append({"id": name, "object": "model", "created": created, "owned_by": "switchboard",
                     "kind": "route", "engine": route.engine,
                     "variants": [v.name for v in route.variants]})
    for name, engine in state.config.engines.items():
        data.append({"id": name if name not in state.config.routes else f"{ENGINE_PREFIX}{name}",
                     "object": "model", "created": created, "owned_by": "switchboard",
                     "kind": "engine", "model": engine.model})
    return json_response({"object": "list", "data": data})


async def openapi(request: Request) -> Response:
    return json_response(openapi_spec())


async def health(request: Request) -> Response:
    return json_response({"status": "ok"})


async def ready(request: Request) -> Response:
    state = gateway_of(request)
    engines = state.engine_states()
    all_ready = all(s["state"] == EngineState.READY.value for s in engines.values())
    ok = all_ready and not state.draining
    status = "draining" if state.draining else ("ready" if ok else "not_ready")
    return json_response({"status": status, "engines": engines}, 200 if ok else 503)


async def admin_status(request: Request) -> Response:
    state = gateway_of(request)
    config = state.config
    reloader: Reloader | None = getattr(request.state, "reloader", None)
    return json_response({
        "config": {"path": config.source_path, "hash": config.digest,
                   **(reloader.status() if reloader is not None else {})},
        "draining": state.draining,
        "active_requests": state.active,
        "default_route": config.default_route,
        "routes": {n: {"engine": r.engine, "variants": [v.name for v in r.variants]}
                   for n, r in config.routes.items()},
        "engines": state.engine_states(),
    })


async def admin_reload(request: Request) -> Response:
    """POST /admin/reload[?strategy=auto|coexist|in_place]: re-read routes.yaml and apply it."""
    reloader: Reloader = request.state.reloader
    strategy = request.query_params.get("strategy", "auto")
    if strategy not in STRATEGIES:
        raise InvalidRequestError(f"strategy must be one of {', '.join(STRATEGIES)}",
                                  param="strategy")
    result = await reloader.reload("POST /admin/reload", strategy=strategy)
    status = 200 if result.ok else (422 if result.error_kind == "invalid_config" else 503)
    return json_response(result.as_dict(), status)


async def not_found(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 404)
    if status == 405:
        error: GatewayError = MethodNotAllowedError(
            f"method {request.method} is not allowed on {request.url.path}"
        )
    else:
        error = NotFoundError(f"no endpoint at {request.url.path}")
    return error_response(error)

