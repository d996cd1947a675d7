"""OpenAI response bodies: streamed chunks (Server-Sent Events), whole responses, and the
events of a stream that already started: an error, and /v1/compare's per-variant events.

SSE framing is one line per event (``data: <json>\\n\\n``), so it is written here directly on
the per-token hot path rather than through a generic SSE library: sse-starlette's
EventSourceResponse adds ping tasks and closes streams on server shutdown, which would cut
in-flight answers short during a graceful drain.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from engines.protocol import GenerationChunk
from router.errors import GatewayError
from router.http.disconnect import DisconnectWatcher
from router.http.pacing import LoopPacer

DONE = b"data: [DONE]\n\n"
# Scope key of the server's unwrapped `send` (router.http.app.GatewayApp): body parts of a
# stream whose start went through every middleware need none of their wrappers.
SERVER_SEND = "switchboard.server_send"


def encode_event(payload: Mapping[str, Any]) -> bytes:
    return b"data: " + orjson.dumps(payload) + b"\n\n"


def error_event(error: GatewayError) -> bytes:
    """The SSE form of an error, for streams that already sent their headers."""
    return encode_event(error.body()) + DONE


def compare_done_event(summary: Mapping[str, Any]) -> bytes:
    return encode_event({"object": "compare.variant.done", **summary})


def compare_error_event(variant: str, engine: str, error: GatewayError) -> bytes:
    return encode_event({"object": "compare.variant.error", "variant": variant,
                         "engine": engine, "error": error.body()["error"]})


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }


@dataclass(frozen=True)
class ResponseShape:
    """What every chunk of one response shares."""

    response_id: str
    model: str
    kind: str  # "chat" or "text"
    created: int = field(default_factory=lambda: int(time.time()))
    # Fields every chunk carries beyond OpenAI's (a compare lane's variant and route).
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def chunk_object(self) -> str:
        return "chat.completion.chunk" if self.kind == "chat" else "text_completion"

    @cached_property
    def _head(self) -> bytes:
        """``data: {"id":…,"model":…,`` encoded once per response, not once per token."""
        shared = {"id": self.response_id, "object": self.chunk_object,
                  "created": self.created, "model": self.model, **self.extra}
        return b"data: " + orjson.dumps(shared)[:-1] + b","

    def chunk(self, choices: list[dict[str, Any]], usage: Usage | None = None) -> bytes:
        body = b'"choices":' + orjson.dumps(choices)
        if usage is not None:
            body += b',"usage":' + orjson.dumps(usage.as_dict())
        return self._head + body + b"}\n\n"

    @cached_property
    def _open_delta(self) -> tuple[bytes, bytes, bytes]:
        """The bytes around index and text of a delta that does not finish its choice."""
        field = b',"delta":{"content":' if self.kind == "chat" else b',"text":'
        close = b"}" if self.kind == "chat" else b""
        return (self._head + b'"choices":[{"index":', field,
                close + b',"logprobs":null,"finish_reason":null}]}\n\n')

    def delta_event(self, index: int, text: str, finish_reason: str | None) -> bytes:
        """One choice's delta as an SSE event. The per-token case (the choice goes on) is
        spliced from pre-encoded parts; it is byte-for-byte what `chunk` makes of it."""
        if finish_reason is not None:
            return self.chunk([self.delta_choice(index, text, finish_reason)])
        head, field, tail = self._open_delta
        return head + b"%d" % index + field + orjson.dumps(text) + tail

    def delta_choice(self, index: int, text: str, finish_reason: str | None) -> dict[str, Any]:
        if self.kind == "chat":
            delta: dict[str, Any] = {"content": text} if text or finish_reason is None else {}
            return {"index": index, "delta": delta, "logprobs": None,
                    "finish_reason": finish_reason}
        return {"index": index, "text": text, "logprobs": None, "finish_reason": finish_reason}

    def role_chunk(self, n: int) -> bytes:
        """A chat stream opens with the assistant role for each choice."""
        return self.chunk([
            {"index": i, "delta": {"role": "assistant", "content": ""}, "logprobs": None,
             "finish_reason": None}
            for i in range(n)
        ])


async def stream_events(
    shape: ResponseShape,
    chunks: AsyncIterator[GenerationChunk],
    usage: Callable[[], Usage],
    n: int,
    include_usage: bool,
    first: GenerationChunk | None = None,
    pacer: LoopPacer | None = None,
) -> AsyncIterator[bytes]:
    """Turn engine deltas into SSE bytes; an error mid-stream becomes an error event.
    While the event loop is behind, `pacer` makes the stream wait between events so that
    the engine's next deltas arrive merged (router.http.pacing). The chunks are closed when
    the stream ends, however it ends.

    Events that are due together go out in one write (one send, one syscall): a chat's role
    with the first delta, and a choice's finishing delta with what follows it (another
    choice's delta, or the usage and [DONE])."""
    held = b""  # a finishing delta, written with the next event
    try:
        opening = shape.role_chunk(n) if shape.kind == "chat" else b""
        try:
            if first is not None:
                opening += shape.delta_event(first.index, first.text, first.finish_reason)
            if opening:
                yield opening
            async for item in chunks:
                event = shape.delta_event(item.index, item.text, item.finish_reason)
                if item.finish_reason is not None:
                    held += event
                    continue  # a choice's last chunk is never followed by a hold
                if held:
                    event, held = held + event, b""
                yield event
                if pacer is not None:
                    hold = pacer.hold_s()
                    if hold:
                        await asyncio.sleep(hold)
        except GatewayError as exc:
            yield held + error_event(exc)
            return
        yield held + (shape.chunk([], usage()) if include_usage else b"") + DONE
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()


@dataclass
class CollectedChoice:
    text: list[str] = field(default_factory=list)
    finish_reason: str | None = None


async def collect(
    chunks: AsyncIterator[GenerationChunk], n: int, first: GenerationChunk | None = None
) -> list[CollectedChoice]:
    choices = [CollectedChoice() for _ in range(n)]

    def add(item: GenerationChunk) -> None:
        choice = choices[item.index]
        choice.text.append(item.text)
        if item.finish_reason is not None:
            choice.finish_reason = item.finish_reason

    if first is not None:
        add(first)
    async for item in chunks:
        add(item)
    return choices


def whole_response(
    shape: ResponseShape, choices: list[CollectedChoice], usage: Usage, echo_prefix: str = ""
) -> dict[str, Any]:
    rendered: list[dict[str, Any]] = []
    for index, choice in enumerate(choices):
        text = "".join(choice.text)
        if shape.kind == "chat":
            rendered.append({
                "index": index,
                "message": {"role": "assistant", "content": text},
                "logprobs": None,
                "finish_reason": choice.finish_reason,
            })
        else:
            rendered.append({"index": index, "text": echo_prefix + text, "logprobs": None,
                             "finish_reason": choice.finish_reason})
    return {
        "id": shape.response_id,
        "object": "chat.completion" if shape.kind == "chat" else "text_completion",
        "created": shape.created,
        "model": shape.model,
        "choices": rendered,
        "usage": usage.as_dict(),
    }


class EventStreamResponse(Response):
    """Streams SSE bytes; a client disconnect cancels the stream (and so the engine request).

    Starlette's StreamingResponse only notices a disconnect on its next write under ASGI
    2.4, which for a request still in prefill can be seconds later.
    """

    media_type = "text/event-stream"

    def __init__(self, events: AsyncIterator[bytes], headers: Mapping[str, str] | None = None):
        super().__init__(content=None, status_code=200, headers=headers)
        # A stream has no length; Response.__init__ would announce an empty body.
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]
        self.raw_headers.append((b"cache-control", b"no-cache"))
        self.raw_headers.append((b"x-accel-buffering", b"no"))
        self.events = events

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})
        send_body: Send = scope.get(SERVER_SEND, send)
        try:
            async with DisconnectWatcher(receive):
                async for data in self.events:
                    await send_body({"type": "http.response.body", "body": data,
                                     "more_body": True})
                await send_body({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away between our disconnect check and the write
        finally:
            aclose = getattr(self.events, "aclose", None)
            if aclose is not None:
                await aclose()
