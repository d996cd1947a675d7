"""uvicorn, with a graceful drain on SIGTERM/SIGINT.

On the first signal the gateway turns /ready to 503 and answers new requests with 503 while
in-flight requests finish, bounded by server.shutdown_timeout_s. Then uvicorn stops, the
requests still running are cancelled (and so aborted in their engines) and the lifespan
closes every engine. A second signal skips the wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import socket
import sys
from collections.abc import Callable, Coroutine, Sequence
from types import FrameType
from typing import Any

import structlog
import uvicorn

from engines.registry import EngineFactory
from router.config import GatewayConfig
from router.gateway import Gateway
from router.reload import ConfigLoader

log = structlog.get_logger("switchboard.server")


class GatewayServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, shutdown_timeout_s: float,
                 supervised: bool = False) -> None:
        super().__init__(config)
        self.shutdown_timeout_s = shutdown_timeout_s
        # An API process under router.processes: its supervisor passes SIGTERM on and
        # SIGKILLs it past the drain's deadline. A signal sent to the whole group (Ctrl-C,
        # systemd's control-group stop) reaches it too, so once it drains it ignores more:
        # a second one would otherwise cut the drain short.
        self.supervised = supervised
        self.gateway: Gateway | None = None
        self._drain_task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def attach(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self._loop = asyncio.get_running_loop()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.supervised and (sig == signal.SIGINT or self._drain_task is not None):
            return
        # Not uvicorn's handler: it re-raises the signal after shutdown, and the process
        # would then die by SIGTERM instead of exiting 0.
        if self.gateway is None or self._loop is None or self._drain_task is not None:
            if self.should_exit:
                self.force_exit = True  # a second signal: stop now
            self.should_exit = True
            return
        log.info("drain_started", signal=signal.Signals(sig).name,
                 in_flight=self.gateway.in_flight.count, timeout_s=self.shutdown_timeout_s)
        self.gateway.draining = True
        self._drain_task = self._loop.create_task(self._drain())

    async def _drain(self) -> None:
        assert self.gateway is not None
        # Shadow copies are nobody's answer: stop them instead of waiting for them.
        await self.gateway.cancel_background()
        try:
            await asyncio.wait_for(self.gateway.in_flight.idle.wait(), self.shutdown_timeout_s)
            log.info("drain_complete")
        except TimeoutError:
            log.warning("drain_timeout", still_running=self.gateway.in_flight.count)
        self.should_exit = True


def event_loop_runner() -> Callable[[Coroutine[Any, Any, None]], None]:
    """uvloop where it is installed (uvicorn[standard] brings it): the gateway's loop writes
    one SSE event per token per stream, and uvloop's transports make that cheaper."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    return uvloop.run


def serve_gateway(
    config: GatewayConfig,
    engine_factory: EngineFactory,
    config_loader: ConfigLoader,
    host: str,
    port: int,
    on_ready: Callable[[list[str]], None],
    watch: bool = False,
    sockets: Sequence[socket.socket] | None = None,
    reload_refusal: str | None = None,
) -> int:
    """Serve one gateway in this process until a signal drains it: 0, or 3 when it could not
    start (the cause on stderr). `sockets`: listen there instead of binding host:port (an
    API process of several, engines.shared_cores); `on_ready` gets the engines that are up."""
    from router.http.app import EngineStartError, build_app

    holder: list[GatewayServer] = []
    start_error: list[BaseException] = []

    def on_state(gateway: Gateway) -> None:
        holder[0].attach(gateway)
        # Everything built so far (engines, tokenizers, language models) lives as long as the
        # process: keep it out of the collector's scans, as vLLM's own server does.
        gc.collect()
        gc.freeze()
        on_ready(gateway.ready_engines())

    app = build_app(config, engine_factory, on_state=on_state, config_loader=config_loader,
                    watch=watch, on_start_error=start_error.append,
                    reload_refusal=reload_refusal)
    uv_config = uvicorn.Config(
        app, host=host, port=port, log_config=None, access_log=False,
        timeout_graceful_shutdown=1, lifespan="on",
    )
    server = GatewayServer(uv_config, shutdown_timeout_s=config.server.shutdown_timeout_s,
                           supervised=sockets is not None)
    holder.append(server)
    with contextlib.suppress(SystemExit):  # uvicorn exits when the lifespan fails; see below
        event_loop_runner()(server.serve(sockets=list(sockets) if sockets else None))
    if not server.started:  # the lifespan failed: no engine or no gateway to serve with
        cause = start_error[0] if start_error else None
        if isinstance(cause, EngineStartError):
            print(f"switchboard: {cause}", file=sys.stderr)
        else:
            print(f"switchboard: start-up failed: {cause!r}", file=sys.stderr)
        return 3
    return 0
