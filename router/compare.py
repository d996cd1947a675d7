"""``POST /v1/compare``: one chat request, several variants of its route, side by side.

The body is an OpenAI chat request plus an optional ``variants: [name, ...]`` (default: all
of the route's variants). Each variant goes through ``dispatch.prepare``/``dispatch.run``
forced exactly as an ``x-switchboard-variant`` header forces it, so admission (429),
engine state (503), timeouts and abort-on-disconnect apply to each one as to any request.
Every variant gets its own request id and record (traffic="compare" in metrics and the
record file).

Non-streaming, the answer is ``{"object": "compare", "route", "results": [...]}`` with, per
variant, its choices, usage, ``ttft_s``, ``tpot_s`` and ``duration_s`` (or its error).
Streaming, the variants' chunks interleave in one SSE stream as they are produced; every
event names its ``variant``: OpenAI ``chat.completion.chunk`` events with an extra
``variant`` field, one ``compare.variant.done`` event per variant (usage and timings) or an
``compare.variant.error`` event, then ``data: [DONE]``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from router import dispatch
from router.config import RouteConfig, VariantConfig
from router.disconnect import DisconnectWatcher
from router.endpoints import (
    CLIENT_CLOSED_REQUEST,
    gateway_of,
    json_response,
    read_body,
    record_of,
)
from router.errors import GatewayError, InvalidRequestError
from router.metrics import tpot_s
from router.middleware import new_request_id
from router.record import RequestRecord
from router.schemas import CompletionRequest, decode_json_body, parse_chat_request
from router.sse import DONE, EventStreamResponse, ResponseShape, collect, encode_event
from router.state import GatewayState


@dataclass
class Lane:
    """One variant of a compare request."""

    variant: VariantConfig
    record: RequestRecord
    prepared: dispatch.PreparedRequest | None = None
    error: GatewayError | None = None
    started: bool = False
    done: bool = False
    shape: ResponseShape = field(init=False)

    def __post_init__(self) -> None:
        self.shape = ResponseShape(response_id="", model=self.variant.engine, kind="chat")

    @property
    def engine(self) -> str:
        return self.prepared.handle.name if self.prepared else self.variant.engine

    def summary(self) -> dict[str, Any]:
        record = self.record
        ttft, tpot = record.ttft_s, tpot_s(record)
        return {
            "variant": self.variant.name,
            "engine": self.engine,
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


def select_variants(route: RouteConfig, raw: Any) -> list[VariantConfig]:
    if not route.variants:
        raise InvalidRequestError(
            f"route {route.name!r} has no variants to compare", param="variants"
        )
    if raw is None:
        return list(route.variants)
    if not isinstance(raw, list) or not raw or not all(isinstance(v, str) for v in raw):
        raise InvalidRequestError("'variants' must be a non-empty array of variant names",
                                  param="variants")
    known = {v.name: v for v in route.variants}
    chosen: list[VariantConfig] = []
    for name in raw:
        if name not in known:
            raise InvalidRequestError(
                f"route {route.name!r} has no variant {name!r} (known: {', '.join(known)})",
                param="variants",
            )
        if known[name] in chosen:
            raise InvalidRequestError(f"variant {name!r} is listed twice", param="variants")
        chosen.append(known[name])
    return chosen


async def _prepare_lanes(
    state: GatewayState,
    parsed: CompletionRequest,
    headers: Mapping[str, str],
    route: RouteConfig,
    variants: list[VariantConfig],
    outer: RequestRecord,
) -> list[Lane]:
    base = {k.lower(): v for k, v in headers.items()}
    base["x-route"] = route.name  # the route was decided once; every variant keeps it
    lanes: list[Lane] = []
    try:
        for variant in variants:
            record = RequestRecord(request_id=new_request_id(), method=outer.method,
                                   path=outer.path, client_request_id=outer.client_request_id)
            record.stream = parsed.stream
            lane = Lane(variant, record)
            lanes.append(lane)
            try:
                lane.prepared = await dispatch.prepare(
                    state, parsed, {**base, "x-switchboard-variant": variant.name}, record
                )
            except GatewayError as exc:
                _fail(lane, exc)
                lane.done = True
                state.completed(record, "compare")
    except BaseException:
        _release_unstarted(state, lanes)
        raise
    return lanes


def _fail(lane: Lane, exc: GatewayError) -> None:
    lane.error = exc
    lane.record.status = exc.status_code
    lane.record.error = lane.record.error or exc.message[:300]
    lane.record.variant = lane.variant.name
    if lane.record.finished_at is None:
        lane.record.finished_at = time.monotonic()


def _release_unstarted(state: GatewayState, lanes: list[Lane]) -> None:
    """A prepared request holds an admission slot until dispatch.run ends; one that never
    ran must give it back here."""
    for lane in lanes:
        if lane.prepared is not None and not lane.started:
            lane.started = True
            lane.prepared.admission.release()


async def compare(request: Request) -> Response:
    state = gateway_of(request)
    outer = record_of(request)
    data = decode_json_body(await read_body(request, state.limits), state.limits)
    parsed = parse_chat_request(data, state.limits)
    outer.stream = parsed.stream
    decision = state.table.decide(parsed.model, parsed.raw_messages, request.headers.get("x-route"))
    route = state.table.lookup(decision.route)
    if route is None:
        route = state.config.routes[state.config.default_route]
    variants = select_variants(route, data.get("variants"))
    outer.route, outer.route_reason, outer.route_tier = route.name, decision.reason, decision.tier
    outer.variant = ",".join(v.name for v in variants)
    lanes = await _prepare_lanes(state, parsed, request.headers, route, variants, outer)
    runnable = [lane for lane in lanes if lane.prepared is not None]
    if not runnable:
        first = lanes[0].error
        assert first is not None
        raise first
    outer.engine = ",".join(dict.fromkeys(lane.engine for lane in lanes))
    response_id = "cmp-" + outer.request_id
    for lane in lanes:
        lane.shape.response_id = response_id
        lane.shape.model = lane.engine
    head: dict[str, Any] = {"id": response_id, "route": route.name,
                            "route_reason": decision.reason}
    if parsed.stream:
        return _stream(state, lanes)
    return await _whole(state, request, lanes, head, outer)


async def _whole(
    state: GatewayState,
    request: Request,
    lanes: list[Lane],
    head: dict[str, Any],
    outer: RequestRecord,
) -> Response:
    results: dict[str, dict[str, Any]] = {}

    async def one(lane: Lane) -> None:
        results[lane.variant.name] = await _collect_lane(state, lane)

    async with DisconnectWatcher(request.receive) as watcher:
        try:
            await asyncio.gather(*(one(lane) for lane in lanes if lane.prepared is not None))
        finally:
            _release_unstarted(state, lanes)
    if watcher.disconnected:
        outer.status = CLIENT_CLOSED_REQUEST
        return Response(status_code=CLIENT_CLOSED_REQUEST)
    ordered = [results.get(lane.variant.name) or _error_result(lane) for lane in lanes]
    return json_response({**head, "object": "compare", "created": int(time.time()),
                          "results": ordered})


def _error_result(lane: Lane) -> dict[str, Any]:
    assert lane.error is not None
    return {**lane.summary(), "choices": [], "error": lane.error.body()["error"]}


async def _collect_lane(state: GatewayState, lane: Lane) -> dict[str, Any]:
    assert lane.prepared is not None
    lane.started = True
    chunks = dispatch.run(state, lane.prepared, lane.record)
    try:
        choices = await collect(chunks, lane.prepared.n)
        lane.record.status = 200
    except GatewayError as exc:
        _fail(lane, exc)
        return _error_result(lane)
    except asyncio.CancelledError:
        lane.record.status = CLIENT_CLOSED_REQUEST
        raise
    finally:
        await _aclose(chunks)
        state.completed(lane.record, "compare")
    rendered = [
        {"index": i, "message": {"role": "assistant", "content": "".join(c.text)},
         "finish_reason": c.finish_reason}
        for i, c in enumerate(choices)
    ]
    return {**lane.summary(), "choices": rendered, "error": None}


async def _aclose(chunks: AsyncIterator[Any]) -> None:
    aclose = getattr(chunks, "aclose", None)  # dispatch.run is an async generator
    if aclose is not None:
        await aclose()


def _event(lane: Lane, choices: list[dict[str, Any]]) -> bytes:
    shape = lane.shape
    return encode_event({
        "id": shape.response_id, "object": shape.chunk_object, "created": shape.created,
        "model": shape.model, "variant": lane.variant.name, "route": lane.record.route,
        "choices": choices,
    })  # fmt: skip


def _done_event(lane: Lane) -> bytes:
    return encode_event({"object": "compare.variant.done", **lane.summary()})


def _error_event(lane: Lane) -> bytes:
    assert lane.error is not None
    return encode_event({"object": "compare.variant.error", "variant": lane.variant.name,
                         "engine": lane.engine, "error": lane.error.body()["error"]})


async def _pump(state: GatewayState, lane: Lane, queue: asyncio.Queue[bytes | None]) -> None:
    assert lane.prepared is not None
    lane.started = True
    n = lane.prepared.n
    chunks = dispatch.run(state, lane.prepared, lane.record)
    try:
        roles = [{"index": i, "delta": {"role": "assistant", "content": ""}, "logprobs": None,
                  "finish_reason": None} for i in range(n)]
        queue.put_nowait(_event(lane, roles))
        async for item in chunks:
            choice = lane.shape.delta_choice(item.index, item.text, item.finish_reason)
            queue.put_nowait(_event(lane, [choice]))
        lane.record.status = 200
        queue.put_nowait(_done_event(lane))
    except GatewayError as exc:
        _fail(lane, exc)
        queue.put_nowait(_error_event(lane))
    except asyncio.CancelledError:
        lane.record.status = CLIENT_CLOSED_REQUEST
        raise
    finally:
        await _aclose(chunks)
        state.completed(lane.record, "compare")
        queue.put_nowait(None)


def _stream(state: GatewayState, lanes: list[Lane]) -> Response:
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()
    # Started now, not when the body is first read, so every lane's admission slot is
    # released by its own dispatch.run even if the response never starts.
    tasks = [asyncio.create_task(_pump(state, lane, queue), name=f"compare-{lane.variant.name}")
             for lane in lanes if lane.prepared is not None]

    async def events() -> AsyncIterator[bytes]:
        try:
            for lane in lanes:
                if lane.error is not None:
                    yield _error_event(lane)
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
            _release_unstarted(state, lanes)

    return EventStreamResponse(events())
