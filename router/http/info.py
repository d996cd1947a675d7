"""What the gateway serves and whether it can: models, a routing decision without
generating, liveness and readiness."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import Response

from engines.registry import EngineState
from router.access import check_request
from router.gateway import Gateway
from router.http.body import parse_chat_request, read_json_body
from router.http.responses import json_response
from router.keys import ANONYMOUS, Principal
from router.pipeline.choose import ENGINE_PREFIX


async def classify(request: Request) -> Response:
    snapshot = request.state.gateway.snapshot
    parsed = parse_chat_request(await read_json_body(request, snapshot.limits), snapshot.limits)
    if snapshot.keys is not None:
        principal: Principal = getattr(request.state, "principal", ANONYMOUS)
        check_request(snapshot.table, principal, parsed.model, parsed.raw_messages,
                      request.headers.get("x-route"))
    decision = snapshot.table.decide(parsed.model, parsed.raw_messages,
                                     request.headers.get("x-route"))
    route = snapshot.table.lookup(decision.route)
    payload = decision.as_dict()
    if route is not None:
        payload["engine"] = route.engine
    if request.query_params.get("explain") in ("1", "true"):
        # Every tier's scores for the conversation, whatever tier decided.
        payload["explain"] = snapshot.table.classifier.explain(parsed.raw_messages)
    return json_response(payload)


async def list_models(request: Request) -> Response:
    config = request.state.gateway.snapshot.config
    created = int(time.time())
    data = [{"id": "auto", "object": "model", "created": created, "owned_by": "switchboard",
             "kind": "router", "default_route": config.default_route}]
    for name, route in config.routes.items():
        data.append({"id": name, "object": "model", "created": created, "owned_by": "switchboard",
                     "kind": "route", "engine": route.engine,
                     "variants": [v.name for v in route.variants]})
    for name, engine in config.engines.items():
        data.append({"id": name if name not in config.routes else f"{ENGINE_PREFIX}{name}",
                     "object": "model", "created": created, "owned_by": "switchboard",
                     "kind": "engine", "model": engine.model})
    return json_response({"object": "list", "data": data})


async def health(request: Request) -> Response:
    return json_response({"status": "ok"})


async def ready(request: Request) -> Response:
    """Open to probes; with auth on, engine details (model paths, errors, pids, load) go
    only to admin keys, everyone else gets the status alone."""
    gateway: Gateway = request.state.gateway
    engines = gateway.engine_states()
    all_ready = all(s["state"] == EngineState.READY.value for s in engines.values())
    ok = all_ready and not gateway.draining
    status = "draining" if gateway.draining else ("ready" if ok else "not_ready")
    principal: Principal = getattr(request.state, "principal", ANONYMOUS)
    if gateway.snapshot.keys is not None and not principal.admin:
        return json_response({"status": status}, 200 if ok else 503)
    return json_response({"status": status, "engines": engines}, 200 if ok else 503)


