"""Everything one running gateway shares, held in the Starlette lifespan state.

No module-level state: the app factory builds one GatewayState and passes it explicitly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from engines.registry import EngineRegistry
from router.admission import Admission
from router.config import EngineConfig, GatewayConfig
from router.metrics import EngineSnapshot, GatewayMetrics
from router.record import RequestRecord
from router.recorder import RecordWriter
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
    metrics: GatewayMetrics = field(default_factory=GatewayMetrics)
    recorder: RecordWriter | None = None
    # Work the gateway runs beside requests (shadow copies); cancelled at shutdown.
    background: set[asyncio.Task[None]] = field(default_factory=set)

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

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task

    async def cancel_background(self) -> None:
        """Cancel background work; a cancelled generation aborts its engine request."""
        tasks = list(self.background)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def completed(
        self, record: RequestRecord, traffic: str = "live", extra: dict[str, Any] | None = None
    ) -> None:
        """One generation finished: count it and append it to the record file."""
        self.metrics.observe(record, traffic)
        if self.recorder is not None:
            self.recorder.write(record, traffic, extra)

    def engine_snapshots(self) -> list[EngineSnapshot]:
        out: list[EngineSnapshot] = []
        for name, handle in self.registry.handles.items():
            admission = self.admissions.get(name)
            try:
                stats = handle.engine.stats()
                running, waiting, kv = stats.running, stats.waiting, stats.kv_cache_usage
            except Exception:  # a stopped engine has no stats
                running, waiting, kv = 0, 0, 0.0
            out.append(EngineSnapshot(
                engine=name, state=handle.state.value, running=running, waiting=waiting,
                outstanding=admission.outstanding if admission else 0,
                queued=admission.waiting if admission else 0, kv_cache_usage=kv,
            ))
        return out

    def engine_states(self) -> Mapping[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for name, handle in self.registry.handles.items():
            status = handle.status()
            # What the engine itself still holds: the proof that aborted requests are gone.
            stats = handle.engine.stats()
            status["engine_unfinished"] = stats.unfinished
            status["engine_running"] = stats.running
            status["engine_waiting"] = stats.waiting
            status["kv_cache_usage"] = round(stats.kv_cache_usage, 4)
            admission = self.admissions.get(name)
            if admission is not None:
                status["outstanding"] = admission.outstanding
                status["queued"] = admission.waiting
            out[name] = status
        return out
