"""SSE encoding: the per-token fast path writes exactly what the general path writes."""

from __future__ import annotations

import orjson
import pytest

from router.http.sse import ResponseShape


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
