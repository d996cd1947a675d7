"""Shadow traffic: mirror a fraction of a route's requests to a candidate variant.

The user only ever sees the live answer. A shadow copy

- starts only after the live request was admitted, and only for ``shadow.fraction`` of them;
- runs as a background task owned by the gateway state (``GatewayState.spawn``), with its own
  request id, so it is tracked, and cancelled — which aborts it in its engine — at shutdown;
- never queues: it is skipped unless the shadow engine has a free running slot
  (admission outstanding < max_in_flight), so it cannot take capacity live traffic needs;
- runs at a lower vLLM priority (``priority`` + SHADOW_PRIORITY_OFFSET; lower runs first),
  which an engine started with ``scheduling_policy: priority`` honours, preempting the
  shadow when live requests arrive;
- renders its prompt and tokenises off the live request's path (inside the task);
- fails silently as far as the user is concerned: its outcome, text, tokens and timings
  are counted in the metrics (traffic="shadow") and written to the record file.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import structlog

from engines.protocol import GenerationRequest
from engines.registry import EngineState
from router import dispatch
from router.errors import GatewayError
from router.middleware import new_request_id
from router.record import RequestRecord
from router.sampling import merge_sampling
from router.schemas import CompletionRequest
from router.state import GatewayState

log = structlog.get_logger("switchboard.shadow")

SHADOW_PRIORITY_OFFSET = 10
# Longest shadow answer kept in the record file, per choice.
MAX_RECORDED_CHARS = 20_000


def mirror(
    state: GatewayState,
    request: CompletionRequest,
    live: dispatch.PreparedRequest,
    live_record: RequestRecord,
    draw: Callable[[], float] = random.random,
) -> asyncio.Task[None] | None:
    """Start a shadow copy of `live` if its route has one and it should run now."""
    shadow = live.route.shadow
    if shadow is None or shadow.fraction <= 0 or draw() >= shadow.fraction:
        return None
    reason = _skip_reason(state, shadow.variant.engine)
    if reason is not None:
        state.metrics.shadow_skipped.labels(live.route.name, reason).inc()
        return None
    record = RequestRecord(request_id=new_request_id(), method=live_record.method,
                           path=live_record.path)
    record.route, record.variant, record.engine = (
        live.route.name, shadow.variant.name, shadow.variant.engine)
    record.stream = request.stream
    return state.spawn(_run(state, request, live, live_record, record),
                       name=f"shadow-{record.request_id}")


def _skip_reason(state: GatewayState, engine: str) -> str | None:
    if state.draining:
        return "draining"
    handle = state.registry.handles.get(engine)
    if handle is None or handle.state is not EngineState.READY:
        return "engine_unavailable"
    admission = state.admission(engine)
    if admission.outstanding >= admission.max_in_flight:
        return "no_capacity"
    return None


async def prepare_shadow(
    state: GatewayState,
    request: CompletionRequest,
    live: dispatch.PreparedRequest,
    record: RequestRecord,
) -> dispatch.PreparedRequest:
    """The shadow's own PreparedRequest: the live route with the shadow variant's engine,
    prompt and sampling. Holds an admission slot that dispatch.run releases."""
    route = live.route
    assert route.shadow is not None
    variant = route.shadow.variant
    reason = _skip_reason(state, variant.engine)
    if reason is not None:  # the engine filled up or failed since the request was mirrored
        raise _Skipped(reason)
    handle = state.registry.get(variant.engine)
    admission = state.admission(handle.name)
    admission.acquire()
    try:
        prompt = await dispatch.render_prompt(handle, route, variant, request, live.decision)
        sampling = merge_sampling(
            handle.config.sampling, route.sampling, variant.sampling, request.sampling
        )
        dispatch.fit_context(handle, route, prompt, sampling, request)
    except BaseException:
        admission.release()
        raise
    record.prompt_tokens = len(prompt.token_ids)
    priority = live.generation.priority + SHADOW_PRIORITY_OFFSET
    return dispatch.PreparedRequest(
        request_id=record.request_id,
        handle=handle,
        route=route,
        variant=variant,
        decision=live.decision,
        generation=GenerationRequest(record.request_id, prompt, sampling, priority),
        timeout_s=live.timeout_s,
        first_token_timeout_s=live.first_token_timeout_s,
        admission=admission,
    )


class _Skipped(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def _run(
    state: GatewayState,
    request: CompletionRequest,
    live: dispatch.PreparedRequest,
    live_record: RequestRecord,
    record: RequestRecord,
) -> None:
    texts: list[list[str]] = []
    try:
        prepared = await prepare_shadow(state, request, live, record)
        texts = [[] for _ in range(prepared.n)]
        async for chunk in dispatch.run(state, prepared, record):
            texts[chunk.index].append(chunk.text)
        record.status = 200
    except _Skipped as exc:
        state.metrics.shadow_skipped.labels(live.route.name, exc.reason).inc()
        return
    except asyncio.CancelledError:
        log.info("shadow_cancelled", request_id=record.request_id,
                 live_request_id=live_record.request_id)
        raise  # not a result: nothing is recorded
    except GatewayError as exc:
        record.status = exc.status_code
        record.error = record.error or exc.message[:300]
    except Exception as exc:  # a shadow must never surface; log it and record it
        record.status = 500
        record.error = f"{type(exc).__name__}: {exc}"[:300]
        log.warning("shadow_failed", request_id=record.request_id, error=record.error)
    extra = {
        "live_request_id": live_record.request_id,
        "live_variant": live_record.variant,
        "live_engine": live_record.engine,
        "text": ["".join(parts)[:MAX_RECORDED_CHARS] for parts in texts],
    }
    log.info("shadow_completed", **record.log_fields(), live_request_id=live_record.request_id)
    state.completed(record, "shadow", extra)
