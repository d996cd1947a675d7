"""Operator endpoints (admin keys only): status, hot reload, Prometheus metrics."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from router.errors import InvalidRequestError
from router.gateway import Gateway
from router.http.responses import json_response
from router.reload import STRATEGIES, Reloader
from router.telemetry.metrics import CONTENT_TYPE


async def admin_status(request: Request) -> Response:
    gateway: Gateway = request.state.gateway
    config = gateway.snapshot.config
    reloader: Reloader = request.state.reloader
    return json_response({
        "config": {"path": config.source_path, "hash": config.digest, **reloader.status()},
        "draining": gateway.draining,
        "active_requests": gateway.in_flight.count,
        "default_route": config.default_route,
        "routes": {n: {"engine": r.engine, "variants": [v.name for v in r.variants]}
                   for n, r in config.routes.items()},
        "engines": _engines(gateway),
    })


def _engines(gateway: Gateway) -> dict[str, dict[str, object]]:
    """Each engine's state; a remote engine (engines.remote) adds its URLs' own."""
    states = {name: dict(state) for name, state in gateway.engine_states().items()}
    for name, handle in gateway.snapshot.engines.items():
        upstreams = getattr(handle.engine, "upstream_status", None)
        if callable(upstreams) and name in states:
            states[name]["upstreams"] = upstreams()
    return states


# A config that does not validate: 422; a gateway that cannot reload at all: 409; else 503.
_RELOAD_FAILURE_STATUS = {"invalid_config": 422, "unavailable": 409}


async def admin_reload(request: Request) -> Response:
    """POST /admin/reload[?strategy=auto|coexist|in_place]: re-read routes.yaml and apply it."""
    reloader: Reloader = request.state.reloader
    strategy = request.query_params.get("strategy", "auto")
    if strategy not in STRATEGIES:
        raise InvalidRequestError(f"strategy must be one of {', '.join(STRATEGIES)}",
                                  param="strategy")
    result = await reloader.reload("POST /admin/reload", strategy=strategy)
    status = 200 if result.ok else _RELOAD_FAILURE_STATUS.get(result.error_kind or "", 503)
    return json_response(result.as_dict(), status)


async def metrics(request: Request) -> Response:
    """``GET /metrics``: the gateway's own registry in Prometheus text format."""
    gateway: Gateway = request.state.gateway
    return Response(gateway.metrics.render(), media_type=CONTENT_TYPE)
