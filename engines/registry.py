"""The set of running engines, built from routes.yaml's `engines:` section.

Engines start concurrently; one that fails to start is marked failed (the gateway then
refuses to start unless a degraded start is allowed). The registry tracks each engine's
state so /ready and /admin/status can report it, and a health loop marks an engine failed
when its core process dies. Each handle owns its engine's admission.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

import structlog

from engines.admission import Admission
from engines.config import EngineConfig
from engines.errors import EngineError
from engines.protocol import Engine

log = structlog.get_logger("switchboard.engines")


class EngineState(StrEnum):
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    DRAINING = "draining"
    STOPPED = "stopped"


EngineFactory = Callable[[EngineConfig], Engine]


@dataclass
class EngineHandle:
    config: EngineConfig
    engine: Engine
    state: EngineState = EngineState.STARTING
    error: str | None = None
    # Gateway request ids running on this engine, so a retired engine can abort what is left.
    requests: set[str] = field(default_factory=set)
    # Ids the gateway itself aborted (drain timeout): their streams end cut short.
    cut_off: set[str] = field(default_factory=set)
    started_s: float | None = None
    startup_s: float | None = None
    failures: int = field(default=0)
    restarts: int = 0
    admission: Admission = field(init=False)

    def __post_init__(self) -> None:
        # Sized for real once the engine has started and knows its max_num_seqs.
        self.admission = Admission(self.config.name, self.config.max_in_flight or 1,
                                   self.config.max_queue)

    @property
    def name(self) -> str:
        return self.config.name

    def size_admission(self) -> None:
        in_flight = self.config.max_in_flight or max(1, self.engine.max_num_seqs)
        self.admission.resize(in_flight, self.config.max_queue)

    def reconfigure(self, config: EngineConfig) -> None:
        """Apply gateway-side fields (admission bounds, restart policy, default sampling)
        without restarting the engine."""
        assert not self.config.needs_restart_for(config), "this change needs a new engine"
        self.config = config
        if self.state is EngineState.READY:
            self.size_admission()

    @property
    def in_flight(self) -> int:
        return len(self.requests)

    def status(self) -> dict[str, object]:
        return {
            "state": self.state.value,
            "model": self.config.model,
            "in_flight": self.in_flight,
            "startup_s": None if self.startup_s is None else round(self.startup_s, 2),
            "error": self.error,
            "failures": self.failures,
            "restarts": self.restarts,
            "pids": list(getattr(self.engine, "pids", list)()),
            "outstanding": self.admission.outstanding,
            "queued": self.admission.waiting,
            "max_in_flight": self.admission.max_in_flight,
            "max_queue": self.admission.max_queue,
        }


RESTART_BACKOFF_S = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)


class EngineRegistry:
    def __init__(self, factory: EngineFactory) -> None:
        self._factory = factory
        self._handles: dict[str, EngineHandle] = {}
        self._restarts: dict[str, asyncio.Task[None]] = {}

    @property
    def handles(self) -> Mapping[str, EngineHandle]:
        return self._handles

    def get(self, name: str) -> EngineHandle:
        return self._handles[name]

    async def start(self, configs: Iterable[EngineConfig]) -> list[EngineHandle]:
        """Start engines concurrently; failures are recorded on their handles, not raised."""
        new = [EngineHandle(config=c, engine=self._factory(c)) for c in configs]
        for handle in new:
            self._handles[handle.name] = handle
        await self._start_all(new)
        return new

    async def start_detached(self, configs: Iterable[EngineConfig]) -> list[EngineHandle]:
        """Start engines that take no traffic yet (a reload installs them after warm-up)."""
        new = [EngineHandle(config=c, engine=self._factory(c)) for c in configs]
        await self._start_all(new)
        return new

    async def _start_all(self, handles: list[EngineHandle]) -> None:
        """Start `handles` concurrently. Cancelled meanwhile (SIGTERM during start-up, a
        cancelled reload), it closes every one of them before re-raising: a start still in
        its build thread would otherwise leave an engine-core process nobody owns."""
        try:
            await asyncio.gather(*(self._start_one(h) for h in handles))
        except BaseException:
            for handle in handles:
                if self._handles.get(handle.name) is handle:
                    del self._handles[handle.name]
            # Shielded: the close must finish even though this task is being cancelled.
            await asyncio.shield(self.close_handles(handles))
            raise

    def install(self, handle: EngineHandle) -> EngineHandle | None:
        """Make `handle` the engine of its name; returns the one it replaces."""
        previous = self._handles.get(handle.name)
        self._handles[handle.name] = handle
        return previous

    def detach(self, name: str) -> EngineHandle | None:
        return self._handles.pop(name, None)

    async def retire(self, handle: EngineHandle, drain_timeout_s: float) -> None:
        """Let a replaced engine finish its requests (bounded), abort the rest, close it."""
        handle.state = EngineState.DRAINING
        deadline = time.monotonic() + drain_timeout_s
        while handle.requests and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        left = list(handle.requests)
        if left:
            log.warning("engine_drain_timeout", engine=handle.name, aborted=len(left))
            handle.cut_off.update(left)
            for request_id in left:
                try:
                    await handle.engine.abort(request_id)
                except Exception as exc:  # closing follows anyway
                    log.warning("engine_abort_failed", engine=handle.name, error=str(exc))
        await self._close_one(handle)

    async def close_handles(self, handles: Iterable[EngineHandle]) -> None:
        await asyncio.gather(*(self._close_one(h) for h in handles))

    async def _start_one(self, handle: EngineHandle) -> None:
        handle.state = EngineState.STARTING
        handle.started_s = time.monotonic()
        log.info("engine_starting", engine=handle.name, model=handle.config.model)
        try:
            await handle.engine.start()
        except Exception as exc:  # any start failure isolates this engine only
            handle.state = EngineState.FAILED
            handle.error = f"{type(exc).__name__}: {exc}"
            log.error("engine_start_failed", engine=handle.name, error=handle.error)
            return
        handle.startup_s = time.monotonic() - handle.started_s
        handle.size_admission()
        handle.state = EngineState.READY
        log.info("engine_ready", engine=handle.name, startup_s=round(handle.startup_s, 2),
                 max_model_len=handle.engine.max_model_len)

    async def check_health(self) -> None:
        for handle in list(self._handles.values()):
            if handle.state is EngineState.FAILED and handle.engine.recovers:
                await self._check_recovery(handle)
                continue
            if handle.state is not EngineState.READY:
                continue
            try:
                await handle.engine.check_health()
            except EngineError as exc:
                self.mark_failed(handle, exc)

    async def _check_recovery(self, handle: EngineHandle) -> None:
        """An engine that comes back on its own (a remote one, once an upstream answers its
        health checks again) is ready again without a restart."""
        try:
            await handle.engine.check_health()
        except EngineError:
            return
        handle.state = EngineState.READY
        handle.error = None
        log.info("engine_recovered", engine=handle.name)

    def mark_failed(self, handle: EngineHandle, exc: BaseException) -> None:
        if handle.state is EngineState.FAILED:
            return
        handle.state = EngineState.FAILED
        handle.failures += 1
        handle.error = f"{type(exc).__name__}: {exc}"
        log.error("engine_failed", engine=handle.name, error=handle.error)
        if handle.config.restart_on_failure and handle.name not in self._restarts:
            # A fresh context: the failing request's bound log fields (its request_id)
            # must not follow the restart's log lines.
            task = asyncio.get_running_loop().create_task(self._restart(handle),
                                                          context=contextvars.Context())
            self._restarts[handle.name] = task
            task.add_done_callback(lambda _: self._restarts.pop(handle.name, None))

    async def _restart(self, handle: EngineHandle) -> None:
        """Replace a dead engine with a fresh one, backing off between attempts."""
        for attempt, delay in enumerate(RESTART_BACKOFF_S, start=1):
            await asyncio.sleep(delay)
            if self._handles.get(handle.name) is not handle:
                return  # removed or replaced (a reload) meanwhile
            await self._close_quietly(handle.engine)
            handle.engine = self._factory(handle.config)
            log.info("engine_restarting", engine=handle.name, attempt=attempt)
            await self._start_one(handle)
            if handle.state is EngineState.READY:
                handle.restarts += 1
                handle.error = None
                return
        log.error("engine_restart_gave_up", engine=handle.name, attempts=len(RESTART_BACKOFF_S))

    async def _close_quietly(self, engine: Engine) -> None:
        try:
            await engine.aclose()
        except Exception as exc:  # the old engine is dead; whatever is left must not stop us
            log.warning("engine_close_failed", engine=engine.name, error=str(exc))

    async def remove(self, name: str) -> None:
        handle = self._handles.pop(name, None)
        if handle is not None:
            await self._close_one(handle)

    async def aclose(self) -> None:
        for task in list(self._restarts.values()):
            task.cancel()
        handles = list(self._handles.values())
        await asyncio.gather(*(self._close_one(h) for h in handles))

    async def _close_one(self, handle: EngineHandle) -> None:
        try:
            await handle.engine.aclose()
        except Exception as exc:  # closing must go on for the other engines
            log.warning("engine_close_failed", engine=handle.name, error=str(exc))
        handle.state = EngineState.STOPPED
        log.info("engine_stopped", engine=handle.name)
