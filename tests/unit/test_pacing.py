"""Streams coalesce tokens only while the event loop is behind (router.http.pacing)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator

import pytest

from engines.protocol import GenerationChunk
from router.http.pacing import HOLD_AFTER_LAG_S, MAX_HOLD_S, LoopPacer
from router.http.sse import ResponseShape, Usage, stream_events


def test_a_loop_that_keeps_up_holds_nothing() -> None:
    pacer = LoopPacer()
    for _ in range(20):
        pacer.observe(HOLD_AFTER_LAG_S / 4)
    assert pacer.hold_s() == 0.0


def test_a_late_loop_holds_about_its_lag_and_never_more_than_the_cap() -> None:
    pacer = LoopPacer()
    for _ in range(30):
        pacer.observe(0.010)
    assert 0.009 < pacer.hold_s() <= 0.010
    for _ in range(30):
        pacer.observe(1.0)
    assert pacer.hold_s() == MAX_HOLD_S
    for _ in range(60):  # the loop caught up again
        pacer.observe(0.0)
    assert pacer.hold_s() == 0.0


def test_the_pacer_sees_a_blocked_loop_and_forgets_it_once_the_loop_is_free() -> None:
    async def scenario() -> tuple[float, float]:
        pacer = LoopPacer()
        pacer.start()
        try:
            for _ in range(6):  # work that keeps the loop busy for 30 ms at a time
                time.sleep(0.03)
                await asyncio.sleep(0)
            busy = pacer.hold_s()
            await asyncio.sleep(0.3)
            return busy, pacer.hold_s()
        finally:
            pacer.stop()

    busy, idle = asyncio.run(scenario())
    assert busy > HOLD_AFTER_LAG_S
    assert idle == 0.0


class _FixedPacer(LoopPacer):
    def __init__(self, hold: float) -> None:
        super().__init__()
        self._hold = hold

    def hold_s(self) -> float:
        return self._hold


def test_a_stream_waits_between_events_but_not_before_the_first_or_after_the_last() -> None:
    pulls: list[float] = []

    async def deltas() -> AsyncIterator[GenerationChunk]:
        for i in range(4):
            pulls.append(time.monotonic())
            yield GenerationChunk(index=0, text=f"t{i}", token_count=1,
                                  finish_reason="length" if i == 3 else None)

    async def scenario() -> tuple[list[bytes], float, float]:
        shape = ResponseShape(response_id="chatcmpl-x", model="qa", kind="chat")
        started = time.monotonic()
        events: list[bytes] = []
        first_delta_at = 0.0
        async for event in stream_events(shape, deltas(), lambda: Usage(1, 4), 1, False,
                                         pacer=_FixedPacer(0.05)):
            events.append(event)
            if len(events) == 2:
                first_delta_at = time.monotonic() - started
        return events, first_delta_at, time.monotonic() - started

    events, first_delta_at, took = asyncio.run(scenario())
    assert sum(e.count(b"data: ") for e in events) == 1 + 4 + 1  # role, four deltas, [DONE]
    assert len(events) == 5  # the last delta and [DONE] go out in one write
    assert b'"finish_reason":"length"' in events[-1] and events[-1].endswith(b"[DONE]\n\n")
    assert first_delta_at < 0.02  # the first token is never held
    gaps = [b - a for a, b in itertools.pairwise(pulls)]
    assert len(gaps) == 3 and all(gap >= 0.045 for gap in gaps)  # held between events
    assert took < 0.05 * 3 + 0.04  # three holds, none after the last token


def test_off_mode_never_holds_and_an_unknown_mode_is_refused() -> None:
    pacer = LoopPacer("off")
    for _ in range(40):
        pacer.observe(0.1)
    assert pacer.hold_s() == 0.0
    with pytest.raises(ValueError, match="not one of"):
        LoopPacer("fast")
