"""The remote adapter: an engine whose tokens come from OpenAI-compatible servers elsewhere
(a `vllm serve`, an llm-d / inference gateway, another switchboard).

    generate ─▶ pick a URL (least outstanding; healthy, not ejected)
                 ├─ connect error / 5xx before any byte ─▶ count a failure, try the next URL
                 ├─ 4xx ─▶ UpstreamRequestError (the client gets the upstream's 4xx)
                 └─ 200 ─▶ stream SSE deltas; the upstream's usage closes the stream
    abort / cancel / close ─▶ close the upstream response: vLLM aborts on disconnect

The gateway never tokenises here: chat requests go to /v1/chat/completions with their
messages (the upstream applies its chat template), rendered text to /v1/completions. Token
counts are the upstream's (``stream_options.include_usage``). A URL that fails
``eject_after_failures`` times in a row (connect errors, 5xx, streams cut mid-way) rests
for ``eject_s``; a health loop probes each URL's ``/health`` (else ``/v1/models``). The
engine is dead only while no URL is usable, and comes back on its own (``recovers``) when
one is again.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import structlog

from engines.config import REMOTE_DEFAULT_MAX_IN_FLIGHT, SAMPLING_FIELDS, EngineConfig, RemoteConfig
from engines.errors import (
    EngineDeadError,
    EngineNotReadyError,
    UpstreamRequestError,
)
from engines.protocol import EngineStats, GenerationChunk, GenerationRequest, PreparedPrompt

log = structlog.get_logger("switchboard.remote")

# The gateway's sampling fields are vLLM's SamplingParams names, which vLLM's OpenAI server
# accepts under the same names in the request body.
_SAMPLING_KEYS = tuple(SAMPLING_FIELDS)
_PROBE_TIMEOUT_S = 5.0
# Connections beyond the admission bound: health probes, and streams still closing.
_POOL_SLACK = 16
_SHARD_CONNECTIONS = 32
_MAX_SHARDS = 16
# Upstream statuses that are the gateway's own misconfiguration (key, model name, path),
# not the client's fault: answered as 503, never passed through as the client's 4xx.
_CONFIG_STATUSES = frozenset({401, 403, 404, 405})


class UpstreamFailure(Exception):
    """One URL failed one request (connect error, 5xx, a stream cut short)."""


@dataclass
class Upstream:
    """One base URL's live state."""

    url: str
    outstanding: int = 0
    healthy: bool = False
    consecutive_failures: int = 0
    ejected_until: float = 0.0
    requests: int = 0
    failures: int = 0
    ejections: int = 0
    last_error: str | None = None
    health_path: str = "/health"

    def usable(self, now: float) -> bool:
        return self.healthy and now >= self.ejected_until

    def status(self, now: float) -> dict[str, object]:
        if now < self.ejected_until:
            state = "ejected"
        else:
            state = "healthy" if self.healthy else "unhealthy"
        return {
            "url": self.url, "state": state, "outstanding": self.outstanding,
            "requests": self.requests, "failures": self.failures,
            "consecutive_failures": self.consecutive_failures, "ejections": self.ejections,
            "ejected_for_s": round(max(0.0, self.ejected_until - now), 1),
            "last_error": self.last_error,
        }  # fmt: skip


class RemoteEngine:
    recovers = True  # ready again once a URL answers (engines.protocol.Engine.recovers)

    def __init__(self, config: EngineConfig, transport: httpx.AsyncBaseTransport | None = None):
        assert config.remote is not None, "backend: remote needs a remote: section"
        self._config = config
        self._remote: RemoteConfig = config.remote
        self._upstreams = [Upstream(url) for url in self._remote.urls]
        self._transport = transport  # tests may inject one; None: real sockets
        # Several small connection pools instead of one large one: httpcore walks its whole
        # pool (polling each idle socket) on every request open and close, so one pool of
        # N connections costs O(N) per request; shards of at most _SHARD_CONNECTIONS keep
        # that walk short (14 % of the gateway's samples at 64 streams with one pool).
        self._clients: list[httpx.AsyncClient] = []
        self._headers: dict[str, str] = {}
        self._max_model_len = self._remote.max_model_len or 0
        self._max_in_flight = config.max_in_flight or REMOTE_DEFAULT_MAX_IN_FLIGHT
        self._open: dict[str, httpx.Response] = {}
        # Requests still connecting, and those of them aborted meanwhile.
        self._connecting: set[str] = set()
        self._aborted: set[str] = set()
        self._health_task: asyncio.Task[None] | None = None
        self._next = 0  # round-robin start among equally loaded URLs
        self._closed = False

    @property
    def name(self) -> str:
        return self._config.name

    @property
    def model(self) -> str:
        return self._config.model

    @property
    def max_model_len(self) -> int:
        return self._max_model_len

    @property
    def max_num_seqs(self) -> int:
        return self._max_in_flight

    @property
    def has_chat_template(self) -> bool:
        return True  # the upstream applies its own

    @property
    def upstreams(self) -> Sequence[Upstream]:
        return self._upstreams

    async def start(self) -> None:
        headers = {"content-type": "application/json"}
        key_env = self._remote.api_key_env
        if key_env is not None:
            key = os.environ.get(key_env)
            if not key:
                raise EngineDeadError(
                    f"engine {self.name!r}: environment variable {key_env} (remote.api_key_env)"
                    " is not set")
            headers["authorization"] = f"Bearer {key}"
        self._headers = headers
        timeout = httpx.Timeout(connect=self._remote.connect_timeout_s, read=None,
                                write=max(10.0, self._remote.connect_timeout_s), pool=None)
        # No connection cap: admission already bounds the streams, and it is resized live on
        # reload, where a pool cap fixed here would become a stale second bound (httpx's
        # default of 100 would cap concurrency). Idle keep-alive connections are kept for
        # as many streams as admission lets run. trust_env off: an HTTP(S)_PROXY meant for
        # the outside world must not capture traffic to in-cluster upstreams.
        shards = max(1, min(_MAX_SHARDS, -(-self._max_in_flight // _SHARD_CONNECTIONS)))
        keepalive = -(-(self._max_in_flight + _POOL_SLACK) // shards)
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=keepalive)
        self._clients = [httpx.AsyncClient(timeout=timeout, limits=limits, trust_env=False,
                                           transport=self._transport, headers=headers)
                         for _ in range(shards)]
        await asyncio.gather(*(self._probe(u, first=True) for u in self._upstreams))
        if not any(u.healthy for u in self._upstreams):
            problems = "; ".join(f"{u.url}: {u.last_error}" for u in self._upstreams)
            await self.aclose()
            raise EngineDeadError(f"engine {self.name!r}: no upstream answered ({problems})")
        self._health_task = asyncio.get_running_loop().create_task(
            self._health_loop(), name=f"remote-health-{self.name}")
        log.info("remote_engine_started", engine=self.name, model=self.model,
                 urls=[u.url for u in self._upstreams if u.healthy],
                 max_model_len=self._max_model_len or None)

    async def _probe(self, upstream: Upstream, first: bool = False) -> None:
        """GET /health (vLLM's), else /v1/models; the first probe also reads the model's
        max_model_len from /v1/models and checks that the upstream serves the model."""
        if not self._clients:
            return
        client = self._clients[0]
        try:
            if first:
                await self._read_models(client, upstream)
            response = await client.get(upstream.url + upstream.health_path,
                                        timeout=_PROBE_TIMEOUT_S)
            if response.status_code == 404 and upstream.health_path == "/health":
                upstream.health_path = "/v1/models"
                response = await client.get(upstream.url + upstream.health_path,
                                            timeout=_PROBE_TIMEOUT_S)
            ok = response.status_code == 200
            error = None if ok else f"{upstream.health_path} answered {response.status_code}"
        except (httpx.HTTPError, OSError, _WrongModel) as exc:
            ok, error = False, _describe(exc)
        was = upstream.healthy
        upstream.healthy = ok
        if ok:
            upstream.last_error = upstream.last_error if was else None
        else:
            upstream.last_error = error
        if was != ok and not first:
            if ok:
                log.info("remote_upstream_healthy", engine=self.name, url=upstream.url)
            else:
                log.warning("remote_upstream_unhealthy", engine=self.name, url=upstream.url,
                            error=error)

    async def _read_models(self, client: httpx.AsyncClient, upstream: Upstream) -> None:
        response = await client.get(upstream.url + "/v1/models", timeout=_PROBE_TIMEOUT_S)
        if response.status_code != 200:
            return  # not every OpenAI-compatible server lists its models; /health decides
        try:
            entries = orjson.loads(response.content).get("data") or []
        except (orjson.JSONDecodeError, AttributeError):
            return
        ids = [e.get("id") for e in entries if isinstance(e, dict)]
        entry = next((e for e in entries if isinstance(e, dict) and e.get("id") == self.model),
                     None)
        if entry is None:
            if ids:
                raise _WrongModel(f"does not serve model {self.model!r} (it serves "
                                  f"{', '.join(map(str, ids))})")
            return
        found = entry.get("max_model_len")
        if self._remote.max_model_len is None and isinstance(found, int) and found > 0:
            # Several URLs serving one model could differ; the smallest is safe for all.
            self._max_model_len = min(self._max_model_len or found, found)

    async def _health_loop(self) -> None:
        while True:
            await asyncio.sleep(self._remote.health_interval_s)
            await asyncio.gather(*(self._probe(u) for u in self._upstreams))

    async def prepare_chat(self, messages: Sequence[Mapping[str, str]]) -> PreparedPrompt:
        return PreparedPrompt(token_ids=(), text="", messages=[dict(m) for m in messages],
                              counted=False)

    async def prepare_text(self, prompt: str) -> PreparedPrompt:
        return PreparedPrompt(token_ids=(), text=prompt, counted=False)

    def _body(self, request: GenerationRequest) -> tuple[str, bytes]:
        prompt = request.prompt
        body: dict[str, Any] = {"model": self.model, "stream": True,
                                "stream_options": {"include_usage": True}}
        if prompt.messages is not None:
            path = "/v1/chat/completions"
            body["messages"] = list(prompt.messages)
        else:
            path = "/v1/completions"
            body["prompt"] = prompt.text
        sampling = request.sampling
        for key in _SAMPLING_KEYS:
            if key in sampling:
                body[key] = sampling[key]
        if request.priority:
            # vLLM refuses a non-zero priority unless it schedules by priority; 0 is its
            # default, so it is only sent when it means something.
            body["priority"] = request.priority
        return path, orjson.dumps(body)

    def _pick(self, tried: set[int]) -> int | None:
        now = time.monotonic()
        best: int | None = None
        count = len(self._upstreams)
        for step in range(count):
            index = (self._next + step) % count
            upstream = self._upstreams[index]
            if index in tried or not upstream.usable(now):
                continue
            if best is None or upstream.outstanding < self._upstreams[best].outstanding:
                best = index
        if best is not None:
            self._next = (best + 1) % count
        return best

    def _failed(self, upstream: Upstream, error: str) -> None:
        upstream.failures += 1
        upstream.consecutive_failures += 1
        upstream.last_error = error
        now = time.monotonic()
        if now < upstream.ejected_until:
            return  # streams that were already running there when it was ejected
        if upstream.consecutive_failures >= self._remote.eject_after_failures:
            upstream.ejected_until = now + self._remote.eject_s
            upstream.consecutive_failures = 0
            upstream.ejections += 1
            log.warning("remote_upstream_ejected", engine=self.name, url=upstream.url,
                        eject_s=self._remote.eject_s, error=error)

    def _failure_error(self, upstream: Upstream, error: str) -> Exception:
        """What one request's failure becomes: dead when no URL is usable any more (the
        gateway then marks the engine failed and routes fall back), else a plain 503."""
        message = f"engine {self.name!r}: upstream {upstream.url} failed: {error}"
        now = time.monotonic()
        if any(u.usable(now) for u in self._upstreams):
            return EngineNotReadyError(message)
        return EngineDeadError(message)

    def _stream_error(self, upstream: Upstream, error: object) -> Exception:
        """An error event inside the upstream's stream (vLLM sends one when generation
        fails after its 200): a 4xx code is the request's fault, anything else the URL's."""
        fields = error if isinstance(error, dict) else {"message": str(error)}
        message = str(fields.get("message") or fields)
        code = fields.get("code")
        if isinstance(code, int) and 400 <= code < 500:
            return _refusal(self.name, upstream, code, message)
        self._failed(upstream, f"error event: {message}")
        return self._failure_error(upstream, f"error event: {message}")

    async def _open_stream(self, request: GenerationRequest) -> tuple[Upstream, httpx.Response]:
        """Send the request to the least loaded usable URL, failing over to the next while
        nothing has been streamed yet."""
        if not self._clients or self._closed:
            raise EngineNotReadyError(f"engine {self.name!r} is not started")
        # Fill shards in order, so light traffic keeps reusing shard 0's warm connections.
        streams = sum(u.outstanding for u in self._upstreams)
        client = self._clients[min(streams // _SHARD_CONNECTIONS, len(self._clients) - 1)]
        path, body = self._body(request)
        headers = {"x-request-id": request.request_id, **request.trace_headers}
        tried: set[int] = set()
        last: tuple[Upstream, str] | None = None
        while (index := self._pick(tried)) is not None:
            tried.add(index)
            upstream = self._upstreams[index]
            upstream.outstanding += 1
            upstream.requests += 1
            try:
                sent = client.build_request("POST", upstream.url + path, content=body,
                                            headers=headers)
                response = await client.send(sent, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                upstream.outstanding -= 1
                last = (upstream, _describe(exc))
                self._failed(upstream, last[1])
                continue
            except BaseException:
                upstream.outstanding -= 1
                raise
            if response.status_code >= 500:
                text = await _read_error(response)
                upstream.outstanding -= 1
                last = (upstream, f"HTTP {response.status_code}: {text}")
                self._failed(upstream, last[1])
                continue
            if response.status_code >= 400:
                upstream.outstanding -= 1
                raise _refusal(self.name, upstream, response.status_code,
                               await _read_error(response))
            upstream.consecutive_failures = 0
            return upstream, response
        if last is None:
            raise EngineDeadError(f"engine {self.name!r}: no usable upstream (all unhealthy "
                                  "or ejected)")
        raise self._failure_error(*last)

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]:
        request_id = request.request_id
        self._connecting.add(request_id)
        aborted = False
        try:
            upstream, response = await self._open_stream(request)
        finally:
            self._connecting.discard(request_id)
            aborted = request_id in self._aborted
            self._aborted.discard(request_id)
        if aborted:  # while it was connecting (a first-token timeout, a drain)
            upstream.outstanding -= 1
            await asyncio.shield(response.aclose())
            return
        self._open[request_id] = response
        choices = int(request.sampling.get("n") or 1)
        chat = request.prompt.messages is not None
        counted = 0
        held: GenerationChunk | None = None  # the last finishing delta, until usage comes
        open_choices = choices
        done = False
        try:
            try:
                async for data in _sse_data(response):
                    if done:
                        continue  # read to the end, so the connection goes back to the pool
                    if data == b"[DONE]":
                        done = True
                        continue
                    event = orjson.loads(data)
                    if "error" in event:
                        raise self._stream_error(upstream, event["error"])
                    for choice in event.get("choices") or ():
                        finish = choice.get("finish_reason")
                        # One token per delta until usage says otherwise (vLLM sends one
                        # delta per step, empty ones included).
                        chunk = GenerationChunk(index=int(choice.get("index", 0)),
                                                text=_delta_text(choice, chat), token_count=1,
                                                finish_reason=finish,
                                                stop_reason=choice.get("stop_reason"))
                        counted += 1
                        if finish is not None:
                            open_choices -= 1
                            if open_choices == 0:
                                held = chunk
                                continue
                        yield chunk
                    usage = event.get("usage")
                    if usage and held is not None:
                        # The exact completion count replaces the per-delta estimate.
                        completion = int(usage.get("completion_tokens") or counted)
                        yield _with_usage(held, completion - counted + held.token_count,
                                          usage.get("prompt_tokens"))
                        held = None
            except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
                if request_id not in self._open:
                    return  # aborted: closing the response ended the read
                self._failed(upstream, f"stream cut: {_describe(exc)}")
                raise self._failure_error(upstream, f"stream cut: {_describe(exc)}") from exc
            if held is not None:
                yield held  # an upstream that sends no usage: the estimate stands
                held = None
            if not done and open_choices > 0 and request_id in self._open:
                # The connection ended cleanly but the answer did not: the upstream stopped.
                self._failed(upstream, "stream ended before [DONE]")
                raise self._failure_error(upstream, "the stream ended before [DONE]")
        finally:
            self._open.pop(request_id, None)
            upstream.outstanding -= 1
            # Closing mid-stream drops the connection: vLLM aborts the request on disconnect.
            await asyncio.shield(response.aclose())

    async def abort(self, request_id: str) -> None:
        response = self._open.pop(request_id, None)
        if response is not None:
            await response.aclose()
        elif request_id in self._connecting:
            self._aborted.add(request_id)  # generate() closes it as soon as it is connected

    async def check_health(self) -> None:
        if not self._clients:
            raise EngineNotReadyError(f"engine {self.name!r} is not started")
        now = time.monotonic()
        if not any(u.usable(now) for u in self._upstreams):
            problems = "; ".join(f"{u.url}: {u.last_error or 'ejected'}"
                                 for u in self._upstreams)
            raise EngineDeadError(f"engine {self.name!r}: no usable upstream ({problems})")

    def stats(self) -> EngineStats:
        outstanding = sum(u.outstanding for u in self._upstreams)
        return EngineStats(running=outstanding, unfinished=outstanding)

    def upstream_status(self) -> list[dict[str, object]]:
        now = time.monotonic()
        return [u.status(now) for u in self._upstreams]

    async def aclose(self) -> None:
        self._closed = True
        task, self._health_task = self._health_task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        for request_id in list(self._open):
            await self.abort(request_id)
        clients, self._clients = self._clients, []
        await asyncio.gather(*(c.aclose() for c in clients), return_exceptions=True)


class _WrongModel(Exception):
    pass


async def _sse_data(response: httpx.Response) -> AsyncIterator[bytes]:
    """The ``data:`` payloads of an SSE stream. Hand-written rather than httpx-sse: the
    upstreams send one ``data:`` line per event (OpenAI's framing), and this loop is the
    per-token hot path; multi-line data, ``event:``/``id:`` fields and comments are not
    used by OpenAI-compatible servers, and are skipped."""
    buffer = b""
    async for piece in response.aiter_bytes():
        buffer += piece
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            line = buffer[start:end]
            start = end + 1
            if line.startswith(b"data:"):
                yield line[5:].strip()
        buffer = buffer[start:]
    if buffer.startswith(b"data:"):
        yield buffer[5:].strip()


def _delta_text(choice: Mapping[str, Any], chat: bool) -> str:
    if chat:
        delta = choice.get("delta") or {}
        return str(delta.get("content") or "")
    return str(choice.get("text") or "")


def _with_usage(chunk: GenerationChunk, token_count: int,
                prompt_tokens: object) -> GenerationChunk:
    return GenerationChunk(index=chunk.index, text=chunk.text, token_count=token_count,
                           finish_reason=chunk.finish_reason, stop_reason=chunk.stop_reason,
                           prompt_tokens=prompt_tokens if isinstance(prompt_tokens, int)
                           else None)


async def _read_error(response: httpx.Response) -> str:
    try:
        raw = await response.aread()
    except httpx.HTTPError as exc:
        return _describe(exc)
    finally:
        await response.aclose()
    try:
        parsed = orjson.loads(raw)
        error = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
        if isinstance(error, dict):
            return str(error.get("message") or error.get("detail") or raw[:500].decode())
        return str(error)[:2000]
    except orjson.JSONDecodeError:
        return raw[:500].decode(errors="replace")


def _refusal(engine: str, upstream: Upstream, status: int, message: str) -> Exception:
    if status in _CONFIG_STATUSES:
        return EngineNotReadyError(f"engine {engine!r}: upstream {upstream.url} refused the "
                                   f"gateway's request (HTTP {status}: {message}); check the "
                                   "engine's model name, URL and api_key_env")
    return UpstreamRequestError(message, status=status, param=None,
                                context_length="context length" in message.lower())


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]
