"""A cancelled engine start (SIGTERM during start-up, a cancelled reload) closes its engines."""

from __future__ import annotations

import asyncio

import pytest

from engines.config import EngineConfig
from engines.fake import FakeEngine, FakeEngineBehaviour
from engines.protocol import Engine
from engines.registry import EngineRegistry, EngineState


def slow_factory(built: list[FakeEngine]) -> object:
    def factory(config: EngineConfig) -> Engine:
        engine = FakeEngine(config.name, behaviour=FakeEngineBehaviour(start_delay_s=30))
        built.append(engine)
        return engine

    return factory


CONFIGS = [EngineConfig(name="a", model="m", backend="fake"),
           EngineConfig(name="b", model="m", backend="fake")]


@pytest.mark.parametrize("detached", [False, True])
async def test_cancelled_start_closes_every_engine(detached: bool) -> None:
    built: list[FakeEngine] = []
    registry = EngineRegistry(slow_factory(built))  # type: ignore[arg-type]
    start = registry.start_detached if detached else registry.start
    task = asyncio.create_task(start(CONFIGS))
    await asyncio.sleep(0.05)
    assert len(built) == 2 and not any(e.closed for e in built)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [e.closed for e in built] == [True, True]
    assert dict(registry.handles) == {}  # nothing half-started is left to serve or close


async def test_a_completed_start_is_not_closed() -> None:
    registry = EngineRegistry(lambda c: FakeEngine(c.name))
    handles = await registry.start(CONFIGS)
    assert [h.state for h in handles] == [EngineState.READY, EngineState.READY]
    assert not any(h.engine.closed for h in handles)  # type: ignore[attr-defined]
    await registry.aclose()
