"""``POST /v1/compare``: one chat request, several variants of its route, side by side.

The body is an OpenAI chat request plus an optional ``variants: [name, ...]`` (default: all
of the route's variants). The pipeline turns it into one lane per variant, forced exactly as
an ``x-switchboard-variant`` header forces it and carrying the caller's tier, so admission
(429, weighted by ``n``), engine state (503), timeouts and abort-on-disconnect apply to each
as to any request. Every variant gets its own request id and record (traffic="compare").

Non-streaming, the answer is ``{"object": "compare", "route", "results": [...]}`` with, per
variant, its choices, usage, ``ttft_s``, ``tpot_s`` and ``duration_s`` (or its error).
Streaming, the variants' chunks interleave in one SSE stream as they are produced; every
event names its ``variant``: OpenAI ``chat.completion.chunk`` events with extra ``variant``
and ``route`` fields, one ``compare.variant.done`` event per variant (usage and timings) or
a ``compare.variant.error`` event, then ``data: [DONE]``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from router.errors import GatewayError
from router.gateway import Gateway
from router.http.body import caller_of, parse_chat_request, read_json_body
from router.http.disconnect import DisconnectWatcher
from router.http.responses import CLIENT_CLOSED_REQUEST, json_response
from router.http.sse import (
    DONE,
    EventStreamResponse,
    ResponseShape,
    collect,
    compare_done_event,
    compare_error_event,
)
from router.pipeline.entry import CompareLane, Pipeline
from router.telemetry.metrics import tpot_s
from router.telemetry.record import RequestRecord


def summary(lane: CompareLane) -> dict[str, Any]:
    record = lane.record
    ttft, tpot = record.ttft_s, tpot_s(record)
    return {
        "variant": lane.variant.name,
        "engine": lane.engine,
        "request_id": record.request_id,
        "usage": {
            "prompt_tokens": record.prompt_tokens or 0,
            "completion_tokens": record.completion_tokens,
            "total_tokens": (record.prompt_tokens or 0) + record.completion_tokens,
        },
        "ttft_s": None if ttft is None else round(ttft, 6),
        "tpot_s": None if tpot is None else round(tpot, 6),
        "duration_s": round(record.duration_s, 6),
        "finish_reason": record.finish_reason,
    }


async def compare(request: Request) -> Response:
    gateway: Gateway = request.state.gateway
    pipeline: Pipeline = request.state.pipeline
    outer: RequestRecord = request.state.record
    limits = gateway.snapshot.limits
    data = await read_json_body(request, limits)
    parsed = parse_chat_request(data, limits)
    outer.stream = parsed.stream
    route, lanes = pipeline.compare(parsed, caller_of(request, parsed), outer,
                                    data.get("variants"))
    handed_over = False
    try:
        async with DisconnectWatcher(request.receive) as watcher:
            for lane in lanes:
                if lane.generation is not None:
                    try:
                        await lane.generation.open()
                    except GatewayError as exc:
                        lane.generation = None
                        lane.fail(exc)
            if not any(lane.generation for lane in lanes):
                first = lanes[0].error
                assert first is not None
                raise first
            outer.engine = ",".join(dict.fromkeys(lane.engine for lane in lanes))
            response_id = "cmp-" + outer.request_id
            shapes = {lane.variant.name: ResponseShape(
                response_id=response_id, model=lane.engine, kind="chat",
                extra={"variant": lane.variant.name, "route": route.name}) for lane in lanes}
            if parsed.stream:
                handed_over = True  # the stream closes every lane when it ends
                return EventStreamResponse(_stream(lanes, shapes))
            results = await asyncio.gather(*(_whole(lane) for lane in lanes))
        if watcher.disconnected:
            outer.status = CLIENT_CLOSED_REQUEST
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        return json_response({"id": response_id, "route": route.name,
                              "route_reason": outer.route_reason, "object": "compare",
                              "created": int(time.time()), "results": results})
    finally:
        if not handed_over:
            await _close(lanes)


async def _close(lanes: list[CompareLane]) -> None:
    for lane in lanes:
        if lane.generation is not None:
            await lane.generation.aclose()


def _error_result(lane: CompareLane) -> dict[str, Any]:
    assert lane.error is not None
    return {**summary(lane), "choices": [], "error": lane.error.body()["error"]}


async def _whole(lane: CompareLane) -> dict[str, Any]:
    if lane.generation is None:
        return _error_result(lane)
    try:
        choices = await collect(lane.generation, lane.generation.n)
    except GatewayError as exc:
        lane.error = exc
        return _error_result(lane)
    rendered = [
        {"index": i, "message": {"role": "assistant", "content": "".join(c.text)},
         "finish_reason": c.finish_reason}
        for i, c in enumerate(choices)
    ]
    return {**summary(lane), "choices": rendered, "error": None}


async def _pump(lane: CompareLane, shape: ResponseShape,
                queue: asyncio.Queue[bytes | None]) -> None:
    generation = lane.generation
    assert generation is not None
    try:
        queue.put_nowait(shape.role_chunk(generation.n))
        async for item in generation:
            queue.put_nowait(shape.delta_event(item.index, item.text, item.finish_reason))
        queue.put_nowait(compare_done_event(summary(lane)))
    except GatewayError as exc:
        lane.error = exc
        queue.put_nowait(compare_error_event(lane.variant.name, lane.engine, exc))
    finally:
        await generation.aclose()
        queue.put_nowait(None)


async def _stream(lanes: list[CompareLane],
                  shapes: dict[str, ResponseShape]) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()
    tasks = [asyncio.create_task(_pump(lane, shapes[lane.variant.name], queue),
                                 name=f"compare-{lane.variant.name}")
             for lane in lanes if lane.generation is not None]
    try:
        for lane in lanes:
            if lane.error is not None:
                yield compare_error_event(lane.variant.name, lane.engine, lane.error)
        pending = len(tasks)
        while pending:
            item = await queue.get()
            if item is None:
                pending -= 1
            else:
                yield item
        yield DONE
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await _close(lanes)
