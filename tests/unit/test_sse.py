"""SSE encoding: the per-token fast path writes exactly what the general path writes, and
events due together share one write."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import orjson
import pytest

from engines.protocol import GenerationChunk
from router.http.sse import ResponseShape, Usage, stream_events


@pytest.mark.parametrize("kind", ["chat", "text"])
@pytest.mark.parametrize("extra", [{}, {"variant": "b%d", "route": "qa"}])
@pytest.mark.parametrize(
    "text", ["", " token", 'quote " and \\ back', "line\nbreak", "é 中 \u2028"])
@pytest.mark.parametrize("index", [0, 7])
def test_open_delta_event_is_the_general_chunk(kind: str, extra: dict[str, str], text: str,
                                               index: int) -> None:
    shape = ResponseShape("chatcmpl-1", "model-%s", kind, extra=extra)
    fast = shape.delta_event(index, text, None)
    assert fast == shape.chunk([shape.delta_choice(index, text, None)])
    assert fast.startswith(b"data: ") and fast.endswith(b"\n\n")
    event = orjson.loads(fast[len(b"data: "):])
    choice = event["choices"][0]
    assert choice["index"] == index and choice["finish_reason"] is None
    assert (choice["delta"]["content"] if kind == "chat" else choice["text"]) == text
    assert {k: event[k] for k in extra} == extra and event["model"] == "model-%s"


@pytest.mark.parametrize("kind", ["chat", "text"])
def test_finishing_delta_event_carries_its_reason(kind: str) -> None:
    shape = ResponseShape("cmpl-1", "m", kind)
    event = orjson.loads(shape.delta_event(1, "", "length")[len(b"data: "):])
    assert event["choices"][0]["finish_reason"] == "length"
    assert event["choices"][0]["index"] == 1


def _events(writes: list[bytes]) -> list[bytes]:
    return [b"data: " + e for w in writes for e in w.split(b"data: ") if e]


def test_events_due_together_go_out_in_one_write() -> None:
    async def deltas() -> AsyncIterator[GenerationChunk]:
        yield GenerationChunk(index=0, text="a", token_count=1)
        yield GenerationChunk(index=0, text="b", token_count=1, finish_reason="stop")
        yield GenerationChunk(index=1, text="c", token_count=1)
        yield GenerationChunk(index=1, text="d", token_count=1, finish_reason="length")

    async def scenario() -> list[bytes]:
        shape = ResponseShape("chatcmpl-1", "m", "chat")
        first = GenerationChunk(index=1, text="z", token_count=1)
        return [w async for w in stream_events(shape, deltas(), lambda: Usage(3, 5), 2, True,
                                               first=first)]

    writes = asyncio.run(scenario())
    events = _events(writes)
    # role, first, a, b, c, d, usage, [DONE] — every event once, in order
    assert len(events) == 8 and events[-1] == b"data: [DONE]\n\n"
    assert [orjson.loads(e[6:])["choices"][0]["delta"].get("content")
            for e in events[1:6]] == ["z", "a", "b", "c", "d"]
    assert orjson.loads(events[6][6:])["usage"]["completion_tokens"] == 5
    # role + first delta together; choice 0's finish waits for choice 1's next delta;
    # the last finish, the usage and [DONE] together
    assert [w.count(b"data: ") for w in writes] == [2, 1, 2, 3]
