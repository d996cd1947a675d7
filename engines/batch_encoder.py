"""Tokenisation off the event loop, in micro-batches, one loop wake-up per prompt.

At 256 concurrent streams, encoding each prompt on the event loop was the largest single cost
of the gateway (18 % of the loop on an H200 profile): every request that arrived waited behind
the others' tokenisation, and every stream's next token waited too. So prompts go to one
worker thread per engine, which takes everything queued while it worked as its next batch and
hands the batch to the Rust tokenizer's `encode_batch` (which releases the GIL while it works).

The worker resolves each caller's future itself (`call_soon_threadsafe`): a prompt costs the
event loop one wake-up. A loop-side drainer task instead (an executor round trip and a task
step per batch) made every prompt wait several loop iterations, and under 256 streams an
iteration is many milliseconds: 289 ms of a 434 ms time to first token went there in the
replay benchmark (benchmarks/replay.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# Encodes several texts: (texts, add_special_tokens) -> one id list per text.
BatchEncode = Callable[[Sequence[str], bool], list[list[int]]]


@dataclass(slots=True)
class _Pending:
    text: str
    add_special: bool
    future: asyncio.Future[list[int]]


def _resolve(future: asyncio.Future[list[int]], ids: list[int]) -> None:
    if not future.done():  # a caller that was cancelled meanwhile
        future.set_result(ids)


def _fail(future: asyncio.Future[list[int]], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


class BatchEncoder:
    def __init__(self, encode_batch: BatchEncode, name: str, max_batch: int = 256) -> None:
        self._encode_batch = encode_batch
        self._max_batch = max_batch
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._work, name=f"encode-{name}", daemon=True)
        self._thread.start()

    async def encode(self, text: str, add_special: bool) -> list[int]:
        if self._closed:
            raise RuntimeError("the encoder is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[int]] = loop.create_future()
        self._queue.put(_Pending(text, add_special, future))
        return await future  # a cancelled caller's entry is skipped or its result dropped

    def close(self) -> None:
        """Cancel what is still queued and stop the worker (after the batch it is on)."""
        self._closed = True
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item.future.cancel()
        self._queue.put(None)

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            stop = False
            while len(batch) < self._max_batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._encode(batch)
            if stop:
                return

    def _encode(self, batch: list[_Pending]) -> None:
        for add_special in (False, True):
            group = [p for p in batch if p.add_special is add_special and not p.future.done()]
            if not group:
                continue
            try:
                ids = self._encode_batch([p.text for p in group], add_special)
            except Exception as exc:  # every waiter of this batch gets the error
                for p in group:
                    self._deliver(p, _fail, exc)
                continue
            for p, token_ids in zip(group, ids, strict=True):
                self._deliver(p, _resolve, token_ids)

    @staticmethod
    def _deliver(pending: _Pending, how: Callable[..., None], value: object) -> None:
        with contextlib.suppress(RuntimeError):  # the caller's loop is closed: nobody waits
            pending.future.get_loop().call_soon_threadsafe(how, pending.future, value)
