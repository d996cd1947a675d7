"""``POST /v1/chat/completions`` and ``POST /v1/completions``: parse, hand over to the
pipeline once, answer (JSON, or SSE once the first delta is in)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from router.gateway import Gateway
from router.http.body import caller_of, parse_chat_request, parse_text_request, read_json_body
from router.http.disconnect import DisconnectWatcher
from router.http.responses import CLIENT_CLOSED_REQUEST, json_response
from router.http.sse import (
    EventStreamResponse,
    ResponseShape,
    Usage,
    collect,
    stream_events,
    whole_response,
)
from router.pipeline.entry import Pipeline
from router.telemetry.record import RequestRecord


async def chat_completions(request: Request) -> Response:
    return await _complete(request, "chat")


async def completions(request: Request) -> Response:
    return await _complete(request, "text")


async def _complete(request: Request, kind: str) -> Response:
    gateway: Gateway = request.state.gateway
    pipeline: Pipeline = request.state.pipeline
    record: RequestRecord = request.state.record
    record.traffic = "live"  # authenticated and at a generation endpoint: a generation
    limits = gateway.snapshot.limits
    data = await read_json_body(request, limits)
    parsed = (parse_chat_request if kind == "chat" else parse_text_request)(data, limits)
    record.stream = parsed.stream
    generation = pipeline.completion(parsed, caller_of(request, parsed), record)
    handed_over = False
    try:
        async with DisconnectWatcher(request.receive) as watcher:
            await generation.open()
            if parsed.stream:
                # Wait for the first delta before sending headers, so that an engine's
                # rejection still becomes a proper HTTP error instead of a broken stream.
                first = await anext(generation, None)
            else:
                choices = await collect(generation, generation.n)
        if watcher.disconnected:
            record.status = CLIENT_CLOSED_REQUEST
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        prefix = "chatcmpl-" if kind == "chat" else "cmpl-"
        shape = ResponseShape(response_id=prefix + record.request_id, model=generation.engine,
                              kind=kind)

        def usage() -> Usage:
            return Usage(record.prompt_tokens or 0, record.completion_tokens)

        if parsed.stream:
            events = stream_events(shape, generation, usage, generation.n,
                                   parsed.include_usage, first, request.state.pacer)
            handed_over = True  # the stream closes the generation when it ends
            return EventStreamResponse(events)
        echo = parsed.prompt if parsed.echo else ""
        return json_response(whole_response(shape, choices, usage(), echo))
    finally:
        if not handed_over:
            await generation.aclose()
