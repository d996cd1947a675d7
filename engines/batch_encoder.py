"""Tokenisation off the event loop, in micro-batches.

At 256 concurrent streams, encoding each prompt on the event loop was the largest single cost
of the gateway (18 % of the loop on an H200 profile): every request that arrived waited behind
the others' tokenisation, and every stream's next token waited too. Requests that arrive while
a batch is being encoded are gathered into the next one, and each batch goes to the Rust
tokenizer's `encode_batch` in one worker thread, which releases the GIL while it works.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

# Encodes several texts: (texts, add_special_tokens) -> one id list per text.
BatchEncode = Callable[[Sequence[str], bool], list[list[int]]]


@dataclass(slots=True)
class _Pending:
    text: str
    add_special: bool
    future: asyncio.Future[list[int]]


class BatchEncoder:
    def __init__(self, encode_batch: BatchEncode, name: str, max_batch: int = 256) -> None:
        self._encode_batch = encode_batch
        self._max_batch = max_batch
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"encode-{name}")
        self._pending: list[_Pending] = []
        self._drainer: asyncio.Task[None] | None = None

    async def encode(self, text: str, add_special: bool) -> list[int]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[int]] = loop.create_future()
        self._pending.append(_Pending(text, add_special, future))
        if self._drainer is None or self._drainer.done():
            self._drainer = loop.create_task(self._drain(), name="batch-encoder")
        return await future  # a cancelled caller's slot is skipped when its batch returns

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            batch = self._pending[: self._max_batch]
            del self._pending[: self._max_batch]
            for add_special in (False, True):
                group = [p for p in batch if p.add_special is add_special and not p.future.done()]
                if not group:
                    continue
                try:
                    ids = await loop.run_in_executor(
                        self._executor, self._encode_batch, [p.text for p in group], add_special)
                except Exception as exc:  # every waiter of this batch gets the error
                    for p in group:
                        if not p.future.done():
                            p.future.set_exception(exc)
                    continue
                for p, token_ids in zip(group, ids, strict=True):
                    if not p.future.done():
                        p.future.set_result(token_ids)

    def close(self) -> None:
        for p in self._pending:
            if not p.future.done():
                p.future.cancel()
        self._pending.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)
