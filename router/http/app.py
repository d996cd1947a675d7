"""The Starlette application: the route table, middleware, error rendering, and the
lifespan that starts the engines and builds the gateway's first snapshot.

A request's walk: RequestContextMiddleware (id, record, log line, telemetry hand-off) →
AuthMiddleware (keys of the current snapshot) → an endpoint (body parsed once) → the
pipeline's one entry (router.pipeline.entry) → the engine; the answer goes back as JSON or
SSE (router.http.sse).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import structlog
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from engines.registry import EngineFactory, EngineHandle, EngineRegistry, EngineState
from router.config import GatewayConfig, TracingConfig, load_config
from router.errors import GatewayError, InternalError, MethodNotAllowedError, NotFoundError
from router.gateway import Gateway
from router.http import admin, completions, info, playground
from router.http.auth import AuthMiddleware
from router.http.compare import compare
from router.http.middleware import RequestContextMiddleware
from router.http.openapi import Endpoint, openapi_document
from router.http.pacing import LoopPacer
from router.http.ratelimit import RateLimitMiddleware
from router.http.responses import error_response, json_response
from router.http.sse import SERVER_SEND
from router.http.tracing import TracingMiddleware
from router.keys import KeyStore
from router.pipeline.choose import build_classifier
from router.pipeline.entry import Pipeline
from router.pipeline.ratelimit import RateLimitCollector
from router.reload import ConfigLoader, Reloader, install_sighup, watch_file
from router.snapshot import Snapshot
from router.telemetry.metrics import GatewayMetrics
from router.telemetry.record import RequestRecord
from router.telemetry.recorder import RecordCollector, open_recorder
from router.telemetry.tracing import Tracing

log = structlog.get_logger("switchboard.app")

HEALTH_INTERVAL_S = 2.0
_GENERATION_ERRORS = (400, 401, 404, 413, 429, 503, 504)


async def _openapi(request: Request) -> Response:
    gateway: Gateway = request.state.gateway
    return json_response(openapi_document(ENDPOINTS, gateway.snapshot.limits.max_n))


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("/v1/chat/completions", "POST", completions.chat_completions,
             "Chat completion (OpenAI-compatible)", "chat", _GENERATION_ERRORS, stream=True),
    Endpoint("/v1/completions", "POST", completions.completions,
             "Text completion (OpenAI-compatible)", "text", _GENERATION_ERRORS, stream=True),
    Endpoint("/v1/compare", "POST", compare,
             "Several variants of the request's route, side by side", "compare",
             _GENERATION_ERRORS, stream=True),
    Endpoint("/v1/classify", "POST", info.classify,
             "Routing decision for a chat body, without generating", "chat",
             (400, 401, 404, 413)),
    Endpoint("/v1/models", "GET", info.list_models, "Routes, engines and 'auto'", None, (401,)),
    Endpoint("/health", "GET", info.health, "Liveness"),
    Endpoint("/ready", "GET", info.ready, "Readiness: 200 when every engine is up", None,
             (503,)),
    Endpoint("/openapi.json", "GET", _openapi, "This document"),
    Endpoint("/metrics", "GET", admin.metrics, "Prometheus metrics", None, (401, 403),
             media_type="text/plain"),
    Endpoint("/admin/status", "GET", admin.admin_status, "Engines, routes, config", None,
             (401, 403)),
    Endpoint("/admin/reload", "POST", admin.admin_reload,
             "Re-read routes.yaml and apply it (?strategy=auto|coexist|in_place)", None,
             (400, 401, 403, 422, 503)),
    *playground.ENDPOINTS,
)


class GatewayApp(Starlette):
    """Starlette, handing the server's own ``send`` to the streamed responses.

    Every middleware layer (Starlette's two error layers, its route wrapper, ours) wraps
    ``send`` to act on the response start; each streamed token then paid all of those
    calls (~3 us of the event loop per token at 256 streams) for nothing. The start still
    goes through every layer; router.http.sse writes the body parts with this one.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope[SERVER_SEND] = send
        await super().__call__(scope, receive, send)


class EngineStartError(RuntimeError):
    """Engines failed to start and the config does not allow a degraded start."""

    def __init__(self, failed: Iterable[EngineHandle]) -> None:
        causes = "; ".join(f"engine {h.name!r} failed to start: {h.error}" for h in failed)
        super().__init__(f"{causes} (set server.allow_degraded_start: true to serve without "
                         "it)")


async def _gateway_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GatewayError)
    record: RequestRecord | None = getattr(request.state, "record", None)
    if record is not None:
        record.error = exc.message[:300]
    return error_response(exc)


async def _unexpected_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled_error", error=f"{type(exc).__name__}: {exc}")
    return error_response(InternalError("internal error; see the gateway log"))


async def _not_found(request: Request, exc: Exception) -> Response:
    if getattr(exc, "status_code", 404) == 405:
        error: GatewayError = MethodNotAllowedError(
            f"method {request.method} is not allowed on {request.url.path}")
    else:
        error = NotFoundError(f"no endpoint at {request.url.path}")
    return error_response(error)


async def _health_loop(registry: EngineRegistry) -> None:
    while True:
        await asyncio.sleep(HEALTH_INTERVAL_S)
        await registry.check_health()


def build_app(
    config: GatewayConfig,
    engine_factory: EngineFactory,
    on_state: Callable[[Gateway], None] | None = None,
    config_loader: ConfigLoader | None = None,
    watch: bool = False,
    on_start_error: Callable[[BaseException], None] | None = None,
    make_tracing: Callable[[TracingConfig], Tracing | None] = Tracing.from_config,
    reload_refusal: str | None = None,
) -> Starlette:
    """Build the gateway. `on_state` receives the gateway once its engines are up (the
    server uses it to drain on SIGTERM; tests use it to reach the engines);
    `on_start_error` what stopped the start-up (uvicorn only logs it).
    `config_loader` re-reads routes.yaml on reload; `watch` reloads when the file changes;
    `make_tracing` builds tracing from routes.yaml's `tracing:` (tests give their exporter);
    `reload_refusal`, when set, is why this gateway cannot reload (every reload says it)."""
    # Read now, so that a bad auth section fails before any engine starts.
    keys = KeyStore.from_config(config.auth) if config.auth.enabled else None

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        registry = EngineRegistry(engine_factory)
        handles = await registry.start(config.engines.values())
        failed = [h for h in handles if h.state is not EngineState.READY]
        if failed and not config.server.allow_degraded_start:
            await registry.aclose()
            error = EngineStartError(failed)
            log.error("gateway_start_failed", error=str(error))
            if on_start_error is not None:
                on_start_error(error)
            raise error
        tracing = make_tracing(config.tracing)
        # Building a classifier loads language models (~0.5 s of CPU): not on the loop.
        classifier = await asyncio.to_thread(build_classifier, config)
        gateway = Gateway(
            snapshot=Snapshot.build(config, classifier, keys, registry.handles),
            registry=registry,
            metrics=GatewayMetrics(http_paths=(e.path for e in ENDPOINTS)),
            recorder=open_recorder(config.server.record_file, config.server.record_max_bytes,
                                   config.server.record_backups,
                                   config.server.record_queue_lines),
        )
        if gateway.recorder is not None:
            gateway.metrics.add_collector(RecordCollector(gateway.recorder))
            gateway.recorder.install_reopen_signal()
        gateway.metrics.add_collector(RateLimitCollector(lambda: gateway.limiter))
        gateway.tracing = tracing
        gateway.metrics.watch_engines(gateway.engine_snapshots)
        reloader = Reloader(gateway, config_loader or load_config,
                            drain_timeout_s=config.server.reload_drain_timeout_s,
                            refusal=reload_refusal)
        install_sighup(gateway, reloader)
        if watch and config.source_path:
            gateway.spawn(watch_file(reloader, config.source_path), name="watch-config")
        monitor = asyncio.create_task(_health_loop(registry))
        log.info("gateway_ready", engines=gateway.ready_engines(),
                 failed=[h.name for h in failed] or None, routes=list(config.routes))
        if on_state is not None:
            on_state(gateway)
        pacer = LoopPacer(config.server.stream_pacing)
        pacer.start()
        try:
            yield {"gateway": gateway, "pipeline": Pipeline(gateway), "reloader": reloader,
                   "pacer": pacer}
        finally:
            pacer.stop()
            monitor.cancel()
            await gateway.cancel_background()  # shadow copies: cancelled, so aborted
            await registry.aclose()
            if gateway.recorder is not None:
                await asyncio.to_thread(gateway.recorder.close)
            if gateway.tracing is not None:
                await asyncio.to_thread(gateway.tracing.shutdown)
            log.info("gateway_stopped")

    return GatewayApp(
        routes=[Route(e.path, e.handler, methods=[e.method]) for e in ENDPOINTS],
        middleware=[Middleware(TracingMiddleware), Middleware(RequestContextMiddleware),
                    Middleware(AuthMiddleware), Middleware(RateLimitMiddleware)],
        exception_handlers={
            GatewayError: _gateway_error,
            HTTPException: _not_found,
            Exception: _unexpected_error,
        },
        lifespan=lifespan,
    )
