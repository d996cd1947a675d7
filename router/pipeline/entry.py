"""The one way into the pipeline: an endpoint hands over a parsed request and its caller and
gets back lanes to run (router.pipeline.generate.Generation). Nothing in the pipeline
calls back up into the HTTP layer.

    completion:  choose (route, variant, engine) → plan (sampling, priority, bound)
                 → Generation: admit → prepare → [mirror a shadow copy] → generate
    compare:     choose the route once → one forced lane per variant, same steps
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engines.admission import Bound
from router.config import RouteConfig, VariantConfig
from router.errors import EngineUnavailableError, GatewayError, InvalidRequestError
from router.gateway import Gateway
from router.pipeline import shadow
from router.pipeline.choose import RouteChoice
from router.pipeline.generate import Generation
from router.pipeline.prepare import plan_lane
from router.pipeline.request import Caller, CompletionRequest
from router.snapshot import Snapshot
from router.telemetry.record import RequestRecord
from router.telemetry.tracing import current_trace


@dataclass
class CompareLane:
    """One variant of a compare request: its lane, or why it has none."""

    variant: VariantConfig
    record: RequestRecord
    generation: Generation | None = None
    error: GatewayError | None = None

    @property
    def engine(self) -> str:
        return self.generation.engine if self.generation else self.variant.engine

    def fail(self, error: GatewayError) -> None:
        self.error = error
        self.record.error = self.record.error or error.message[:300]
        self.record.status = self.record.error_status = error.status_code
        if self.record.finished_at is None:
            self.record.finished_at = time.monotonic()


class Pipeline:
    def __init__(self, gateway: Gateway, draw: Callable[[], float] = random.random) -> None:
        self._gateway = gateway
        self._draw = draw  # the shadow's coin; tests pass their own

    def completion(
        self, request: CompletionRequest, caller: Caller, record: RequestRecord
    ) -> Generation:
        """The live lane of a chat or text completion (nothing is held until it opens)."""
        gateway = self._gateway
        snapshot = gateway.snapshot
        self._refuse_while_draining()
        messages = request.raw_messages if request.kind == "chat" else []
        trace = current_trace.get()
        span = None if trace is None else trace.start("classify")
        try:
            choice = snapshot.table.choose(request.model, messages, caller.route_header,
                                           caller.sticky_key, caller.forced_variant or None)
            if span is not None:
                span.set_attributes({"switchboard.route": choice.route.name,
                                     "switchboard.route_tier": choice.decision.tier})
        finally:
            if span is not None:
                span.end()
        return self._lane(snapshot, choice, request, caller, record, "live",
                          on_admitted=self._mirror)

    def compare(
        self, request: CompletionRequest, caller: Caller, record: RequestRecord,
        variant_names: Any,
    ) -> tuple[RouteConfig, list[CompareLane]]:
        """One lane per chosen variant of the request's route, each with its own record."""
        snapshot = self._gateway.snapshot
        self._refuse_while_draining()
        decision = snapshot.table.decide(request.model, request.raw_messages,
                                         caller.route_header)
        route = snapshot.table.route_of(decision)
        variants = select_variants(route, variant_names)
        if route.prompt_template or any(v.prompt_template for v in variants):
            decision = snapshot.table.with_languages(decision, request.raw_messages)
        record.route, record.route_reason, record.route_tier = (
            route.name, decision.reason, decision.tier)
        record.variant = ",".join(v.name for v in variants)
        lanes: list[CompareLane] = []
        for variant in variants:
            lane_record = RequestRecord(
                request_id=uuid.uuid4().hex, method=record.method, path=record.path,
                client_request_id=record.client_request_id, traffic="compare")
            lane_record.stream = request.stream
            lane_record.route, lane_record.variant = route.name, variant.name
            lane = CompareLane(variant, lane_record)
            try:
                # classified once above; every lane keeps that decision
                choice = RouteChoice(route, decision, variant, variant.engine,
                                     forced_variant=True)
                lane.generation = self._lane(snapshot, choice, request, caller, lane_record,
                                             "compare", on_done=self._complete_compare)
            except GatewayError as exc:  # this variant's engine is down: its own error
                lane.fail(exc)
                self._gateway.completed(lane_record, "compare")
            lanes.append(lane)
        return route, lanes

    def _refuse_while_draining(self) -> None:
        if self._gateway.draining:
            raise EngineUnavailableError("the gateway is shutting down", code="shutting_down")

    def _lane(
        self, snapshot: Snapshot, choice: RouteChoice, request: CompletionRequest,
        caller: Caller, record: RequestRecord, traffic: str,
        on_admitted: Callable[[Generation], None] | None = None,
        on_done: Callable[[Generation], None] | None = None,
    ) -> Generation:
        choice, handle = snapshot.table.serving(choice, snapshot.engines)
        if choice.fallback_from is not None:
            record.extra_headers["x-switchboard-fallback-from"] = choice.fallback_from
        record.route, record.engine, record.model = (
            choice.route.name, handle.name, handle.config.model)
        record.variant = choice.variant.name if choice.variant else None
        record.route_reason, record.route_tier = choice.decision.reason, choice.decision.tier
        record.forced = traffic == "live" and choice.forced_variant
        bound = Bound.VIP if caller.vip else Bound.STANDARD
        plan = plan_lane(handle, choice.route, choice.variant, choice.decision, request,
                         caller.priority, bound, snapshot.config.server.request_timeout_s)
        return Generation(plan, request, record, self._gateway.registry,
                          self._gateway.in_flight, on_admitted=on_admitted, on_done=on_done)

    def _mirror(self, live: Generation) -> None:
        shadow.mirror(self._gateway, live, self._draw)

    def _complete_compare(self, lane: Generation) -> None:
        record = lane.record
        record.status = record.error_status or (499 if record.client_closed else 200)
        self._gateway.completed(record, "compare")


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


