"""Everything one running gateway shares, held in the Starlette lifespan state.

No module-level state: the app factory builds one GatewayState and passes it explicitly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from engines.registry import EngineRegistry
from router.admission import Admission
from router.config import EngineConfig, GatewayConfig
from router.routing import RoutingTable
from router.schemas import RequestLimits


def admission_for(config: EngineConfig, max_num_seqs: int) -> Admission:
    return Admission(
        engine=config.name,
        max_in_flight=config.max_in_flight or max(1, max_num_seqs),
        max_queue=config.max_queue,
    )


def limits_for(config: GatewayConfig) -> RequestLimits:
    server = config.server
    return RequestLimits(
        max_body_bytes=server.max_body_bytes,
        max_messages=server.max_messages,
        max_message_chars=server.max_message_chars,
        max_n=server.max_n,
    )


@dataclass
class GatewayState:
    config: GatewayConfig
    registry: EngineRegistry
    table: RoutingTable
    limits: RequestLimits
    admissions: dict[str, Admission] = field(default_factory=dict)
    draining: bool = False
    # Generation requests in progress, so a drain knows when it may stop the engines.
    active: int = 0
    idle: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.idle.set()

    def admission(self, engine: str) -> Admission:
        found = self.admissions.get(engine)
        if found is None:
            handle = self.registry.get(engine)
            found = admission_for(handle.config, handle.engine.max_num_seqs)
            self.admissions[engine] = found
        return found

    def request_started(self) -> None:
        self.active += 1
        self.idle.clear()

    def request_finished(self) -> None:
        self.active -= 1
        if self.active <= 0:
            self.active = 0
            self.idle.set()

    def engine_states(self) -> Mapping[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for name, handle in self.registry.handles.items():
            status = handle.status()
            admission = self.admissions.get(name)
            if admission is not None:
                status["outstanding"] = admission.outstanding
                status["queued"] = admission.waiting
            out[name] = status
        return out
