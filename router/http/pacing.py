"""Coalesce streamed tokens when the event loop falls behind.

Every streamed token costs the loop the same work whatever it carries: waking the stream,
the pipeline's and the SSE layer's steps, one ASGI send and one socket write. At 256
streams on an H200 that per-event work is what the loop runs out of. vLLM already merges a
stream's undelivered deltas (DELTA outputs accumulate until the stream asks for the next
one), so a stream that waits a little before asking gets several tokens in one event, for
the price of one.

`LoopPacer` measures how late the loop runs a timer (its lag: how long other work kept it
busy) and, only while that lag is above a threshold, asks each stream to hold between
events. A loop that keeps up adds no delay; the first token of a stream is never held.

`server.stream_pacing: off` never holds (every engine output its own event). Measured on an
H100 at 256 streams (benchmarks/results/gpu-h100-2026-12-05-split-client-notes.md): with
pacing off, 256-token answers ran at 0.72× the output tok/s of the default; a hold of at
least one token interval per stream ("merge", two tokens or more per event) was tried and
was no better than holding for the lag, so it was not kept.
"""

from __future__ import annotations

import asyncio

SAMPLE_INTERVAL_S = 0.005
HOLD_AFTER_LAG_S = 0.002  # lag below this: the loop keeps up, stream every token
MAX_HOLD_S = 0.05  # never hold a stream longer than this between two events
_SMOOTHING = 0.3  # weight of the newest lag sample


PACING_MODES = ("lag", "off")


class LoopPacer:
    def __init__(self, mode: str = "lag") -> None:
        if mode not in PACING_MODES:
            raise ValueError(f"stream pacing {mode!r} is not one of {PACING_MODES}")
        self.mode = mode
        self._lag_s = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._due = 0.0

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if self.mode != "off":
            self._schedule()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._lag_s = 0.0

    def hold_s(self) -> float:
        """How long a stream should wait before taking its next delta (0: don't), from the
        smoothed lateness of the loop's timers."""
        lag = self._lag_s
        if self.mode == "off" or lag < HOLD_AFTER_LAG_S:
            return 0.0
        return min(lag, MAX_HOLD_S)

    def observe(self, lag_s: float) -> None:
        self._lag_s += _SMOOTHING * (max(0.0, lag_s) - self._lag_s)

    def _schedule(self) -> None:
        assert self._loop is not None
        self._due = self._loop.time() + SAMPLE_INTERVAL_S
        self._timer = self._loop.call_at(self._due, self._tick)

    def _tick(self) -> None:
        assert self._loop is not None
        self.observe(self._loop.time() - self._due)
        self._schedule()
