"""Cancel the work of a request when its client goes away.

uvicorn reports a closed connection as an ``http.disconnect`` message on ``receive``; a small
watcher task waits for it and cancels the task doing the work, whose cancellation then
aborts the request in its engine (see router.pipeline.generate). It covers streaming and
non-streaming requests alike, also while no token has been produced yet.
"""

from __future__ import annotations

import asyncio
from types import TracebackType

from starlette.types import Receive


class DisconnectWatcher:
    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        self._watcher: asyncio.Task[None] | None = None
        self._target: asyncio.Task[object] | None = None
        self.disconnected = False

    async def __aenter__(self) -> DisconnectWatcher:
        self._target = asyncio.current_task()
        self._watcher = asyncio.create_task(self._watch())
        return self

    async def _watch(self) -> None:
        while True:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                self.disconnected = True
                if self._target is not None:
                    self._target.cancel()
                return

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if self._watcher is not None:
            self._watcher.cancel()
        if self.disconnected and exc_type is asyncio.CancelledError and self._target:
            self._target.uncancel()
            return True  # the client is gone: nothing to answer, the work was cancelled
        return False
