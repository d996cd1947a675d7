"""Drive the gateway's ASGI app directly, on one event loop, with a client that can hang up
at a chosen moment (TestClient cannot: it buffers and never sends `http.disconnect`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import orjson
from starlette.applications import Starlette


@dataclass
class Answer:
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytearray = field(default_factory=bytearray)

    def json(self) -> Any:
        return orjson.loads(bytes(self.body))


@asynccontextmanager
async def running(app: Starlette) -> AsyncIterator[dict[str, Any]]:
    """The app's lifespan (engines started), yielding the state requests see."""
    async with app.router.lifespan_context(app) as state:
        yield dict(state or {})


async def call(
    app: Starlette,
    state: Mapping[str, Any],
    method: str,
    path: str,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    disconnect_after_s: float | None = None,
    disconnect_after_bytes: int | None = None,
) -> Answer:
    """One request; the client hangs up after a delay or once it has read some body bytes."""
    raw = b"" if body is None else orjson.dumps(body)
    path, _, query = path.partition("?")
    answer = Answer()
    hang_up = asyncio.Event()
    sent_body = False

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": raw, "more_body": False}
        if disconnect_after_s is not None:
            with suppress(TimeoutError):
                await asyncio.wait_for(hang_up.wait(), disconnect_after_s)
        else:
            await hang_up.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer.status = message["status"]
            answer.headers = {k.decode(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            answer.body.extend(message.get("body", b""))
            if disconnect_after_bytes is not None and len(answer.body) >= disconnect_after_bytes:
                hang_up.set()
            if not message.get("more_body", False):
                hang_up.set()

    scope = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1",
        "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
        "query_string": query.encode(), "root_path": "", "client": ("127.0.0.1", 1234),
        "server": ("127.0.0.1", 8000), "state": dict(state),
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        + [(b"content-type", b"application/json")],
    }  # fmt: skip
    await app(scope, receive, send)
    return answer
