"""One running gateway: the current snapshot, the engines' lifecycle, and what outlives a
snapshot (metrics, record file, requests in flight, background work).

No module-level state: the app's lifespan builds one Gateway and passes it explicitly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from engines.registry import EngineRegistry, EngineState
from router.pipeline.ratelimit import RateLimiter
from router.snapshot import Snapshot
from router.telemetry.metrics import EngineSnapshot, GatewayMetrics
from router.telemetry.record import RequestRecord
from router.telemetry.recorder import RecordWriter
from router.telemetry.tracing import Tracing


class InFlight:
    """Generation requests in progress, so a drain knows when it may stop the engines."""

    def __init__(self) -> None:
        self.count = 0
        self.idle = asyncio.Event()
        self.idle.set()

    def enter(self) -> None:
        self.count += 1
        self.idle.clear()

    def leave(self) -> None:
        self.count = max(0, self.count - 1)
        if self.count == 0:
            self.idle.set()


@dataclass
class Gateway:
    snapshot: Snapshot  # replaced whole by a reload, never mutated
    registry: EngineRegistry
    metrics: GatewayMetrics
    recorder: RecordWriter | None = None
    draining: bool = False
    in_flight: InFlight = field(default_factory=InFlight)
    # What each API key used of its rate limits; the limits themselves are in the snapshot.
    limiter: RateLimiter = field(default_factory=RateLimiter)
    tracing: Tracing | None = None  # None: tracing is off
    # Work the gateway runs beside requests (shadow copies); cancelled at shutdown.
    background: set[asyncio.Task[None]] = field(default_factory=set)

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
        self, record: RequestRecord, traffic: str, extra: dict[str, Any] | None = None
    ) -> None:
        """One generation finished: count it and queue its line for the record file."""
        self.metrics.observe(record, traffic)
        if self.recorder is not None:
            self.recorder.write(record, traffic, extra)

    def ready_engines(self) -> list[str]:
        return [n for n, h in self.snapshot.engines.items() if h.state is EngineState.READY]

    def engine_snapshots(self) -> list[EngineSnapshot]:
        out: list[EngineSnapshot] = []
        for name, handle in self.snapshot.engines.items():
            try:
                stats = handle.engine.stats()
                running, waiting, kv = stats.running, stats.waiting, stats.kv_cache_usage
            except Exception:  # a stopped engine has no stats
                running, waiting, kv = None, None, None
            out.append(EngineSnapshot(
                engine=name, state=handle.state.value, running=running, waiting=waiting,
                outstanding=handle.admission.outstanding, queued=handle.admission.waiting,
                kv_cache_usage=kv,
            ))
        return out

    def engine_states(self) -> Mapping[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for name, handle in self.snapshot.engines.items():
            status = handle.status()
            # What the engine itself still holds: the proof that aborted requests are gone.
            stats = handle.engine.stats()
            status["engine_unfinished"] = stats.unfinished
            status["engine_running"] = stats.running
            status["engine_waiting"] = stats.waiting
            kv = stats.kv_cache_usage  # None: the engine does not measure it
            status["kv_cache_usage"] = None if kv is None else round(kv, 4)
            out[name] = status
        return out
