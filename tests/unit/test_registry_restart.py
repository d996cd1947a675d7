"""An engine that fails with restart_on_failure is replaced by a fresh one, in a task of
its own: the failing request's log context does not follow it."""

from __future__ import annotations

import asyncio

import pytest
import structlog

from engines import registry as registry_module
from engines.config import EngineConfig
from engines.errors import EngineError
from engines.fake import FakeEngine
from engines.protocol import Engine
from engines.registry import EngineRegistry, EngineState


async def test_a_failed_engine_is_restarted_outside_the_failing_requests_context(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry_module, "RESTART_BACKOFF_S", (0.0,))
    seen: list[dict[str, object]] = []

    def factory(config: EngineConfig) -> Engine:
        seen.append(structlog.contextvars.get_contextvars())
        return FakeEngine(config.name)

    registry = EngineRegistry(factory)
    config = EngineConfig(name="qa", model="m", backend="fake", restart_on_failure=True)
    (handle,) = await registry.start([config])
    first = handle.engine

    async def failing_request() -> None:
        structlog.contextvars.bind_contextvars(request_id="req-1")
        registry.mark_failed(handle, EngineError("engine core died"))

    await asyncio.create_task(failing_request())
    assert handle.state is EngineState.FAILED and handle.failures == 1
    for _ in range(200):
        if handle.state is EngineState.READY:
            break
        await asyncio.sleep(0.01)
    assert handle.state is EngineState.READY and handle.restarts == 1
    assert handle.engine is not first and first.closed  # type: ignore[attr-defined]
    assert seen == [{}, {}]  # the start, then the restart: no request_id in either
    await registry.aclose()
