"""GatewayServer's signals: the first drains, a second cuts the drain short, and an API
process under a supervisor (server.api_processes) ignores Ctrl-C and repeated signals."""

from __future__ import annotations

import asyncio
import signal

import uvicorn

from router.gateway import InFlight
from router.server import GatewayServer


class _Gateway:
    def __init__(self) -> None:
        self.in_flight = InFlight()
        self.in_flight.enter()  # one request still running: the drain waits for it
        self.draining = False

    async def cancel_background(self) -> None:
        return None


async def _server(supervised: bool) -> tuple[GatewayServer, _Gateway]:
    server = GatewayServer(uvicorn.Config(app=None), shutdown_timeout_s=30,  # type: ignore[arg-type]
                           supervised=supervised)
    gateway = _Gateway()
    server.attach(gateway)  # type: ignore[arg-type]
    return server, gateway


def test_one_process_drains_then_a_second_signal_stops_it_now() -> None:
    async def run() -> None:
        server, gateway = await _server(supervised=False)
        server.handle_exit(signal.SIGINT, None)
        assert gateway.draining and not server.should_exit
        server.handle_exit(signal.SIGTERM, None)
        assert server.should_exit  # the drain is cut short
        gateway.in_flight.leave()
        await asyncio.sleep(0)

    asyncio.run(run())


def test_an_api_process_ignores_ctrl_c_and_a_repeated_sigterm() -> None:
    async def run() -> None:
        server, gateway = await _server(supervised=True)
        server.handle_exit(signal.SIGINT, None)  # the terminal's, meant for the supervisor
        assert not gateway.draining and not server.should_exit
        server.handle_exit(signal.SIGTERM, None)  # the supervisor's
        assert gateway.draining and not server.should_exit
        server.handle_exit(signal.SIGTERM, None)  # the group's copy: the drain goes on
        assert not server.should_exit and not server.force_exit
        gateway.in_flight.leave()  # the last request finishes: the drain completes
        for _ in range(5):
            await asyncio.sleep(0)
        assert server.should_exit

    asyncio.run(run())
