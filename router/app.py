"""The Starlette application: routes, middleware, error rendering, and the lifespan that
owns the engines."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import structlog
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engines.registry import EngineFactory, EngineRegistry
from router import compare, endpoints
from router.auth import AuthMiddleware, KeyStore
from router.config import GatewayConfig, load_config
from router.errors import GatewayError, InternalError, error_response
from router.metrics import GENERATION_PATHS, metrics_endpoint
from router.middleware import RequestContextMiddleware
from router.record import RequestRecord
from router.recorder import open_recorder
from router.reload import ConfigLoader, Reloader, install_sighup, watch_file
from router.routing import RoutingTable, build_classifier
from router.state import GatewayState, limits_for

log = structlog.get_logger("switchboard.app")

HEALTH_INTERVAL_S = 2.0


async def _gateway_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GatewayError)
    record: RequestRecord | None = getattr(request.state, "record", None)
    if record is not None:
        record.error = exc.message[:300]
    return error_response(exc)


async def _unexpected_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled_error", error=f"{type(exc).__name__}: {exc}")
    return error_response(InternalError("internal error; see the gateway log"))


async def _health_loop(registry: EngineRegistry) -> None:
    while True:
        await asyncio.sleep(HEALTH_INTERVAL_S)
        await registry.check_health()


def build_app(
    config: GatewayConfig,
    engine_factory: EngineFactory,
    on_state: Callable[[GatewayState], None] | None = None,
    config_loader: ConfigLoader | None = None,
    watch: bool = False,
) -> Starlette:
    """Build the gateway. `on_state` receives the live state once engines have started
    (the server uses it to drain on SIGTERM; tests use it to reach the engines).
    `config_loader` re-reads routes.yaml on reload; `watch` reloads when the file changes."""
    keys = KeyStore.from_config(config.auth) if config.auth.enabled else None
    current: list[GatewayState] = []  # the lifespan's state, for the middleware's hook

    def on_complete(record: RequestRecord) -> None:
        if not current:
            return
        state = current[0]
        state.metrics.observe_http(record)
        if record.path in GENERATION_PATHS and record.method == "POST":
            state.completed(record, "live")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        registry = EngineRegistry(engine_factory)
        await registry.start(config.engines.values())
        state = GatewayState(
            config=config,
            registry=registry,
            table=RoutingTable(config, build_classifier(config)),
            limits=limits_for(config),
            recorder=open_recorder(config.server.record_file),
        )
        state.metrics.watch_engines(state.engine_snapshots)
        current[:] = [state]
        if on_state is not None:
            on_state(state)
        reloader = Reloader(state, config_loader or load_config,
                            drain_timeout_s=config.server.reload_drain_timeout_s)
        install_sighup(state, reloader)
        if watch and config.source_path:
            state.spawn(watch_file(reloader, config.source_path), name="watch-config")
        monitor = asyncio.create_task(_health_loop(registry))
        log.info("gateway_ready", engines={n: h.state.value for n, h in registry.handles.items()},
                 routes=list(config.routes))
        try:
            yield {"gateway": state, "reloader": reloader}
        finally:
            monitor.cancel()
            await state.cancel_background()  # shadow copies: cancelled, so aborted
            await registry.aclose()
            if state.recorder is not None:
                state.recorder.close()
            current.clear()
            log.info("gateway_stopped")

    routes = [
        Route("/v1/chat/completions", endpoints.chat_completions, methods=["POST"]),
        Route("/v1/completions", endpoints.completions, methods=["POST"]),
        Route("/v1/compare", compare.compare, methods=["POST"]),
        Route("/v1/classify", endpoints.classify, methods=["POST"]),
        Route("/metrics", metrics_endpoint, methods=["GET"]),
        Route("/v1/models", endpoints.list_models, methods=["GET"]),
        Route("/health", endpoints.health, methods=["GET"]),
        Route("/openapi.json", endpoints.openapi, methods=["GET"]),
        Route("/ready", endpoints.ready, methods=["GET"]),
        Route("/admin/status", endpoints.admin_status, methods=["GET"]),
        Route("/admin/reload", endpoints.admin_reload, methods=["POST"]),
    ]
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(RequestContextMiddleware, on_complete=on_complete),
            Middleware(AuthMiddleware, keys=keys),
        ],
        exception_handlers={
            GatewayError: _gateway_error,
            HTTPException: endpoints.not_found,
            Exception: _unexpected_error,
        },
        lifespan=lifespan,
    )
