"""Tokenisation off the loop: concurrent requests share a batch, cancellation and errors."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import pytest

from engines.batch_encoder import BatchEncoder


class Recorder:
    def __init__(self, gate: threading.Event | None = None, fail: bool = False) -> None:
        self.batches: list[tuple[list[str], bool]] = []
        self.threads: set[str] = set()
        self.gate = gate
        self.fail = fail

    def __call__(self, texts: Sequence[str], add_special: bool) -> list[list[int]]:
        if self.gate is not None:
            self.gate.wait(5)
        self.threads.add(threading.current_thread().name)
        self.batches.append((list(texts), add_special))
        if self.fail:
            raise ValueError("tokenizer exploded")
        return [[len(t), int(add_special)] for t in texts]


async def test_each_caller_gets_its_own_ids_and_the_work_runs_off_the_loop() -> None:
    recorder = Recorder()
    encoder = BatchEncoder(recorder, "qa")
    ids = await asyncio.gather(*(encoder.encode("x" * n, add_special=n % 2 == 0)
                                 for n in range(1, 9)))
    assert ids == [[n, int(n % 2 == 0)] for n in range(1, 9)]
    assert recorder.threads == {"encode-qa"}  # the worker thread, never the loop's
    encoder.close()


async def test_requests_arriving_during_a_batch_are_encoded_together() -> None:
    gate = threading.Event()
    recorder = Recorder(gate)
    encoder = BatchEncoder(recorder, "qa")
    first = asyncio.ensure_future(encoder.encode("first", add_special=False))
    await asyncio.sleep(0.05)  # the first batch is now blocked in the worker
    later = [asyncio.ensure_future(encoder.encode(f"later {i}", add_special=False))
             for i in range(20)]
    await asyncio.sleep(0)
    gate.set()
    await asyncio.gather(first, *later)
    assert [len(texts) for texts, _ in recorder.batches] == [1, 20]
    encoder.close()


async def test_a_cancelled_caller_is_skipped_and_the_others_are_answered() -> None:
    gate = threading.Event()
    encoder = BatchEncoder(Recorder(gate), "qa")
    blocker = asyncio.ensure_future(encoder.encode("blocker", add_special=False))
    await asyncio.sleep(0.05)
    gone = asyncio.ensure_future(encoder.encode("gone", add_special=False))
    kept = asyncio.ensure_future(encoder.encode("kept", add_special=False))
    await asyncio.sleep(0)
    gone.cancel()
    gate.set()
    assert await kept == [4, 0]
    assert await blocker == [7, 0]
    assert gone.cancelled()
    encoder.close()


async def test_a_tokenizer_error_reaches_every_waiter_of_its_batch() -> None:
    encoder = BatchEncoder(Recorder(fail=True), "qa")
    results = await asyncio.gather(encoder.encode("a", add_special=False),
                                   encoder.encode("b", add_special=False),
                                   return_exceptions=True)
    assert all(isinstance(r, ValueError) for r in results)
    encoder.close()


async def test_close_cancels_what_is_still_waiting() -> None:
    gate = threading.Event()
    encoder = BatchEncoder(Recorder(gate), "qa")
    running = asyncio.ensure_future(encoder.encode("running", add_special=False))
    await asyncio.sleep(0.05)
    waiting = asyncio.ensure_future(encoder.encode("waiting", add_special=False))
    await asyncio.sleep(0)
    encoder.close()
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    running.cancel()
