"""uvicorn, with a graceful drain on SIGTERM/SIGINT.

On the first signal the gateway turns /ready to 503 and answers new requests with 503 while
in-flight requests finish, bounded by server.shutdown_timeout_s. Then uvicorn stops, the
requests still running are cancelled (and so aborted in their engines) and the lifespan
closes every engine. A second signal skips the wait.
"""

from __future__ import annotations

import asyncio
import signal
from types import FrameType

import structlog
import uvicorn

from router.gateway import Gateway

log = structlog.get_logger("switchboard.server")


class GatewayServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, shutdown_timeout_s: float) -> None:
        super().__init__(config)
        self.shutdown_timeout_s = shutdown_timeout_s
        self.gateway: Gateway | None = None
        self._drain_task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def attach(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self._loop = asyncio.get_running_loop()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
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
