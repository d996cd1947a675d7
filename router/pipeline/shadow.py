"""Shadow traffic: mirror a fraction of a route's requests to a candidate variant.

The user only ever sees the live answer. A shadow copy

- starts only after the live request was admitted, and only for ``shadow.fraction`` of them;
- is a lane like any other (router.pipeline.generate), with its own request id and record,
  run as a background task owned by the gateway, so it is tracked, and cancelled — which
  aborts it in its engine — at shutdown;
- never queues: it is skipped unless the shadow engine has free running slots for all its
  choices within the standard bound (``Bound.SHADOW``), checked and acquired with the same
  bound, so it cannot take capacity live or VIP traffic needs;
- runs behind every live request: its vLLM priority is the live one moved past every tier
  (``shadow_priority``), so a VIP's shadow still yields to standard live traffic while it
  goes before a standard caller's shadow; an engine started with ``scheduling_policy:
  priority`` honours it and preempts the shadow when live requests arrive;
- renders its prompt and tokenises off the live request's path (inside the task);
- fails silently as far as the user is concerned: its outcome, text, tokens and timings
  are counted in the metrics (traffic="shadow") and written to the record file.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection
from typing import Any

import structlog

from engines.admission import Bound
from engines.registry import EngineState
from router.errors import GatewayError, OverloadedError
from router.gateway import Gateway
from router.pipeline.generate import Generation
from router.pipeline.prepare import plan_lane
from router.telemetry.record import RequestRecord

log = structlog.get_logger("switchboard.shadow")

SHADOW_PRIORITY_OFFSET = 10
# Longest shadow answer kept in the record file, per choice.
MAX_RECORDED_CHARS = 20_000


def shadow_priority(live_priority: int, tiers: Collection[int]) -> int:
    """Behind every live tier, keeping the live order among shadows."""
    span = (max(tiers) - min(tiers)) if tiers else 0
    return live_priority + span + SHADOW_PRIORITY_OFFSET


def mirror(gateway: Gateway, live: Generation, draw: Callable[[], float]) -> None:
    """Start a shadow copy of the admitted `live` lane if its route has one and it fits."""
    route = live.plan.route
    shadow = route.shadow
    if shadow is None or shadow.fraction <= 0 or draw() >= shadow.fraction:
        return
    snapshot = gateway.snapshot
    handle = snapshot.engines.get(shadow.variant.engine)
    reason = None
    if gateway.draining:
        reason = "draining"
    elif handle is None or handle.state is not EngineState.READY:
        reason = "engine_unavailable"
    if reason is not None or handle is None:
        gateway.metrics.shadow_skipped.labels(route.name, reason).inc()
        return
    priority = shadow_priority(live.plan.priority, snapshot.config.auth.tiers.values())
    plan = plan_lane(handle, route, shadow.variant, live.plan.decision, live.request, priority,
                     Bound.SHADOW, live.plan.timeout_s)
    if not handle.admission.has_room(plan.n, Bound.SHADOW):
        gateway.metrics.shadow_skipped.labels(route.name, "no_capacity").inc()
        return
    record = RequestRecord(request_id=uuid.uuid4().hex, method=live.record.method,
                           path=live.record.path, traffic="shadow")
    record.route, record.variant, record.engine = route.name, shadow.variant.name, handle.name
    record.model, record.stream = handle.config.model, live.request.stream
    texts: list[list[str]] = [[] for _ in range(plan.n)]
    lane = Generation(plan, live.request, record, gateway.registry, gateway.in_flight)
    gateway.spawn(_run(gateway, lane, texts, live.record), name=f"shadow-{record.request_id}")


async def _run(
    gateway: Gateway, lane: Generation, texts: list[list[str]], live: RequestRecord
) -> None:
    record = lane.record
    try:
        async with lane:
            async for chunk in lane:
                texts[chunk.index].append(chunk.text)
        record.status = 200
    except OverloadedError:  # the room seen when mirroring was taken meanwhile
        gateway.metrics.shadow_skipped.labels(record.route or "", "no_capacity").inc()
        return
    except GatewayError as exc:
        record.status = exc.status_code
    except Exception as exc:  # a shadow must never surface; log it and record it
        record.status = 500
        record.error = f"{type(exc).__name__}: {exc}"[:300]
        log.warning("shadow_failed", request_id=record.request_id, error=record.error)
    # (cancelled at shutdown: not a result, nothing is recorded)
    extra: dict[str, Any] = {
        "live_request_id": live.request_id,
        "live_variant": live.variant,
        "live_engine": live.engine,
        "text": ["".join(parts)[:MAX_RECORDED_CHARS] for parts in texts],
    }
    log.info("shadow_completed", **record.log_fields(), live_request_id=live.request_id)
    gateway.completed(record, "shadow", extra)
