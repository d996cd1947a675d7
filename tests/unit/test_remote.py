"""The remote engine (engines.remote) against a small OpenAI-compatible upstream served by a
real uvicorn on a free port: SSE parsing, usage, balancing, failover, ejection and recovery,
4xx pass-through, aborts that close the upstream stream, and config validation."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from engines.config import EngineConfig, RemoteConfig
from engines.errors import EngineDeadError, EngineNotReadyError, UpstreamRequestError
from engines.factory import build_engine
from engines.protocol import GenerationChunk, GenerationRequest
from engines.remote import RemoteEngine
from router.config import ConfigError, parse_config
from router.http.app import build_app

CONTEXT_ERROR = ("This model's maximum context length is 512 tokens. However, you requested "
                 "900 tokens (800 in the messages, 100 in the completion).")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class FakeUpstream:
    """What the upstream does; tests turn the knobs between requests."""

    tokens: int = 4
    token_delay_s: float = 0.0
    header_delay_s: float = 0.0  # before the response starts (a slow connect or queue)
    status: int | None = None  # answer every generation with this status
    error_message: str = "bad request"
    die_after: int | None = None  # tokens before the connection is cut
    health_status: int = 200
    models: list[dict[str, Any]] = field(
        default_factory=lambda: [{"id": "qa", "max_model_len": 512}])
    send_usage: bool = True
    usage_with_last: bool = False  # usage in the last delta's event, not an event of its own
    prompt_tokens: int = 7
    bodies: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    clients: list[int] = field(default_factory=list)  # the client port of each request
    completed: int = 0
    disconnected: int = 0
    streaming: int = 0

    def app(self) -> Starlette:
        async def health(request: Request) -> Response:
            return Response(status_code=self.health_status)

        async def models(request: Request) -> Response:
            return JSONResponse({"object": "list", "data": self.models})

        async def generate(request: Request) -> Response:
            body = orjson.loads(await request.body())
            self.bodies.append(body)
            self.headers.append(dict(request.headers))
            self.paths.append(request.url.path)
            self.clients.append(request.client.port if request.client else 0)
            if self.status is not None:
                return JSONResponse({"error": {"message": self.error_message, "type":
                                               "BadRequestError", "param": None,
                                               "code": self.status}}, self.status)
            if self.header_delay_s:
                await asyncio.sleep(self.header_delay_s)
            return StreamingResponse(self._stream(body, request.url.path),
                                     media_type="text/event-stream")

        return Starlette(routes=[
            Route("/health", health), Route("/v1/models", models),
            Route("/v1/chat/completions", generate, methods=["POST"]),
            Route("/v1/completions", generate, methods=["POST"]),
        ])

    async def _stream(self, body: dict[str, Any], path: str) -> AsyncIterator[bytes]:
        chat = path.endswith("chat/completions")
        count = int(body.get("max_tokens") or self.tokens)
        choices = int(body.get("n") or 1)
        finished = False
        self.streaming += 1
        try:
            for step in range(count):
                if self.die_after is not None and step >= self.die_after:
                    raise RuntimeError("upstream died (test)")
                last = step == count - 1
                entries = []
                for index in range(choices):
                    text = f" w{step}"
                    entry: dict[str, Any] = {"index": index,
                                             "finish_reason": "length" if last else None}
                    if chat:
                        entry["delta"] = {"content": text}
                    else:
                        entry["text"] = text
                    entries.append(entry)
                event: dict[str, Any] = {"id": "x", "choices": entries}
                if last and self.usage_with_last:
                    event["usage"] = {"prompt_tokens": self.prompt_tokens,
                                      "completion_tokens": count * choices}
                yield b"data: " + orjson.dumps(event) + b"\n\n"
                if self.token_delay_s:
                    await asyncio.sleep(self.token_delay_s)
            if self.send_usage and not self.usage_with_last and (
                    body.get("stream_options") or {}).get("include_usage"):
                usage = {"prompt_tokens": self.prompt_tokens,
                         "completion_tokens": count * choices,
                         "total_tokens": self.prompt_tokens + count * choices}
                yield b"data: " + orjson.dumps({"id": "x", "choices": [], "usage": usage}) \
                    + b"\n\n"
            yield b"data: [DONE]\n\n"
            finished = True
        finally:
            self.streaming -= 1
            if finished:
                self.completed += 1
            else:
                self.disconnected += 1


class ServerThread:
    """A real uvicorn on its own loop and thread, so that both async tests and TestClient
    (which runs the app on another loop) reach it over real sockets."""

    def __init__(self, upstream: FakeUpstream, port: int | None = None) -> None:
        self.upstream = upstream
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ServerThread:
        config = uvicorn.Config(self.upstream.app(), host="127.0.0.1", port=self.port,
                                log_level="error", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            assert time.monotonic() < deadline, "upstream did not start"
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = self._server.force_exit = True
            self._thread.join(10)
            self._server = None


@pytest.fixture
def upstream() -> Iterator[ServerThread]:
    server = ServerThread(FakeUpstream()).start()
    yield server
    server.stop()


@pytest.fixture
def second() -> Iterator[ServerThread]:
    server = ServerThread(FakeUpstream()).start()
    yield server
    server.stop()


def remote_config(*urls: str, **remote: Any) -> EngineConfig:
    settings: dict[str, Any] = {"health_interval_s": 0.1, "eject_s": 0.5, **remote}
    return EngineConfig(name="qa", model="qa", backend="remote",
                        remote=RemoteConfig(urls=tuple(urls), **settings))


def dead_url() -> str:
    return f"http://127.0.0.1:{free_port()}"  # nothing listens there: connection refused


async def run(engine: RemoteEngine, request_id: str = "r1", messages: bool = True,
              **sampling: Any) -> list[GenerationChunk]:
    prompt = (await engine.prepare_chat([{"role": "user", "content": "hi"}]) if messages
              else await engine.prepare_text("Once upon"))
    request = GenerationRequest(request_id, prompt, sampling, 0,
                                {"traceparent": "00-" + "a" * 32 + "-" + "b" * 16 + "-01"})
    return [chunk async for chunk in engine.generate(request)]


async def wait_for(condition: Any, timeout_s: float = 3.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def test_chat_stream_usage_and_forwarded_fields(upstream: ServerThread) -> None:
    engine = RemoteEngine(remote_config(upstream.url))
    await engine.start()
    try:
        assert engine.max_model_len == 512  # from the upstream's /v1/models
        chunks = await run(engine, "req-7", temperature=0.3, max_tokens=5, seed=3,
                           stop=["x"])
        assert "".join(c.text for c in chunks) == " w0 w1 w2 w3 w4"
        assert sum(c.token_count for c in chunks) == 5
        assert chunks[-1].finish_reason == "length"
        assert chunks[-1].prompt_tokens == 7
        body = upstream.upstream.bodies[-1]
        assert body["model"] == "qa"
        assert body["messages"] == [{"role": "user", "content": "hi"}]
        assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
        assert (body["temperature"], body["max_tokens"], body["seed"], body["stop"]) == (
            0.3, 5, 3, ["x"])
        assert "priority" not in body  # 0 is vLLM's default; non-zero needs its policy
        headers = upstream.upstream.headers[-1]
        assert headers["x-request-id"] == "req-7"
        assert headers["traceparent"].startswith("00-aaaa")
        assert engine.stats().unfinished == 0
    finally:
        await engine.aclose()


async def test_keep_alive_connections_are_reused(upstream: ServerThread) -> None:
    engine = RemoteEngine(remote_config(upstream.url))
    await engine.start()
    try:
        for i in range(3):
            await run(engine, f"k{i}")
        ports = upstream.upstream.clients
        assert len(ports) == 3 and len(set(ports)) == 1  # one connection, kept alive
    finally:
        await engine.aclose()


async def test_text_prompt_goes_to_completions_with_n_choices(upstream: ServerThread) -> None:
    engine = RemoteEngine(remote_config(upstream.url))
    await engine.start()
    try:
        chunks = await run(engine, messages=False, n=2, max_tokens=3)
        assert upstream.upstream.paths[-1] == "/v1/completions"
        assert upstream.upstream.bodies[-1]["prompt"] == "Once upon"
        for index in (0, 1):
            mine = [c for c in chunks if c.index == index]
            assert "".join(c.text for c in mine) == " w0 w1 w2"
            assert mine[-1].finish_reason == "length"
        assert sum(c.token_count for c in chunks) == 6  # the upstream's count, both choices
    finally:
        await engine.aclose()


async def test_without_usage_the_per_delta_estimate_stands(upstream: ServerThread) -> None:
    upstream.upstream.send_usage = False
    engine = RemoteEngine(remote_config(upstream.url))
    await engine.start()
    try:
        chunks = await run(engine, max_tokens=3)
        assert sum(c.token_count for c in chunks) == 3
        assert all(c.prompt_tokens is None for c in chunks)
    finally:
        await engine.aclose()


async def test_usage_in_the_last_deltas_event(upstream: ServerThread) -> None:
    upstream.upstream.usage_with_last = True
    engine = RemoteEngine(remote_config(upstream.url))
    await engine.start()
    try:
        chunks = await run(engine, max_tokens=2, n=2)
        assert sum(c.token_count for c in chunks) == 4
        assert [c.prompt_tokens for c in chunks if c.prompt_tokens is not None] == [7]
    finally:
        await engine.aclose()


async def test_least_outstanding_balancing(upstream: ServerThread,
                                           second: ServerThread) -> None:
    for server in (upstream, second):
        server.upstream.token_delay_s = 0.05
    engine = RemoteEngine(remote_config(upstream.url, second.url))
    await engine.start()
    try:
        await asyncio.gather(*(run(engine, f"r{i}", max_tokens=10) for i in range(6)))
        assert len(upstream.upstream.bodies) == 3 and len(second.upstream.bodies) == 3
        # Least outstanding, not round robin: while one long request holds a URL, short
        # requests one after another all go to the other.
        counts = [len(upstream.upstream.bodies), len(second.upstream.bodies)]
        long = asyncio.create_task(run(engine, "long", max_tokens=40))
        await wait_for(lambda: engine.stats().running == 1)
        busy = 0 if len(upstream.upstream.bodies) > counts[0] else 1
        for i in range(4):
            await run(engine, f"s{i}", max_tokens=1)
        after = [len(upstream.upstream.bodies), len(second.upstream.bodies)]
        assert after[busy] - counts[busy] == 1 and after[1 - busy] - counts[1 - busy] == 4
        status = [u["outstanding"] for u in engine.upstream_status()]
        assert status[busy] == 1 and status[1 - busy] == 0
        await long
    finally:
        await engine.aclose()


async def test_failover_ejection_and_recovery(upstream: ServerThread) -> None:
    down = ServerThread(FakeUpstream())  # its port is reserved but nothing listens yet
    engine = RemoteEngine(remote_config(down.url, upstream.url, eject_after_failures=2))
    # Start-up succeeds with one URL of two healthy.
    await engine.start()
    try:
        assert [u["state"] for u in engine.upstream_status()] == ["unhealthy", "healthy"]
        # Health says the first is down, so nothing is even tried there.
        for i in range(3):
            assert await run(engine, f"a{i}")
        assert len(upstream.upstream.bodies) == 3
        # The health loop marks it healthy once it listens ...
        down.start()
        await wait_for(lambda: engine.upstream_status()[0]["state"] == "healthy")
        await run(engine, "b0")
        await run(engine, "b1")
        assert len(down.upstream.bodies) >= 1  # it takes its share again
        # ... a URL that answers 5xx fails over to the other without the client noticing,
        # and after eject_after_failures in a row it rests for eject_s.
        down.upstream.status = 503
        for i in range(6):
            assert await run(engine, f"c{i}")
        first = engine.upstream_status()[0]
        assert first["ejections"] == 1 and first["failures"] == 2
        assert first["state"] == "ejected"
        down.upstream.status = None
        await wait_for(lambda: engine.upstream_status()[0]["state"] == "healthy")
        before = len(down.upstream.bodies)
        await run(engine, "d0")
        await run(engine, "d1")
        assert len(down.upstream.bodies) > before
    finally:
        await engine.aclose()
        down.stop()


async def test_no_usable_url_is_dead_and_comes_back(upstream: ServerThread) -> None:
    engine = RemoteEngine(remote_config(upstream.url))
    await engine.start()
    try:
        assert engine.recovers
        upstream.upstream.health_status = 503
        await wait_for(lambda: engine.upstream_status()[0]["state"] == "unhealthy")
        with pytest.raises(EngineDeadError):
            await engine.check_health()
        with pytest.raises(EngineDeadError):
            await run(engine)
        upstream.upstream.health_status = 200
        await wait_for(lambda: engine.upstream_status()[0]["state"] == "healthy")
        await engine.check_health()
        assert await run(engine)
    finally:
        await engine.aclose()


async def test_start_fails_when_no_url_answers_or_the_model_is_missing(
        upstream: ServerThread) -> None:
    with pytest.raises(EngineDeadError, match="no upstream answered"):
        await RemoteEngine(remote_config(dead_url())).start()
    upstream.upstream.models = [{"id": "other"}]
    with pytest.raises(EngineDeadError, match="does not serve model 'qa'"):
        await RemoteEngine(remote_config(upstream.url)).start()


async def test_api_key_from_the_environment(upstream: ServerThread,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    config = remote_config(upstream.url, api_key_env="TEST_UPSTREAM_KEY")
    monkeypatch.delenv("TEST_UPSTREAM_KEY", raising=False)
    with pytest.raises(EngineDeadError, match="TEST_UPSTREAM_KEY"):
        await RemoteEngine(config).start()
    monkeypatch.setenv("TEST_UPSTREAM_KEY", "sk-test")
    engine = RemoteEngine(config)
    await engine.start()
    try:
        await run(engine)
        assert upstream.upstream.headers[-1]["authorization"] == "Bearer sk-test"
    finally:
        await engine.aclose()


async def test_4xx_is_the_requests_fault_and_no_url_failure(upstream: ServerThread) -> None:
    engine = RemoteEngine(remote_config(upstream.url, eject_after_failures=1))
    await engine.start()
    try:
        upstream.upstream.status, upstream.upstream.error_message = 400, CONTEXT_ERROR
        with pytest.raises(UpstreamRequestError) as caught:
            await run(engine)
        assert caught.value.status == 400 and caught.value.context_length
        assert str(caught.value) == CONTEXT_ERROR
        # The gateway's own misconfiguration (key, model name) is never the client's 4xx.
        upstream.upstream.status = 401
        with pytest.raises(EngineNotReadyError, match="api_key_env"):
            await run(engine)
        assert engine.upstream_status()[0]["failures"] == 0
        await engine.check_health()
    finally:
        await engine.aclose()


async def test_death_mid_stream_fails_the_request_and_counts(upstream: ServerThread,
                                                             second: ServerThread) -> None:
    upstream.upstream.die_after = 2
    second.upstream.die_after = 2
    engine = RemoteEngine(remote_config(upstream.url, second.url, eject_after_failures=1))
    await engine.start()
    try:
        got: list[GenerationChunk] = []
        with pytest.raises(EngineNotReadyError, match="stream cut"):  # the other URL is up
            prompt = await engine.prepare_chat([{"role": "user", "content": "hi"}])
            async for chunk in engine.generate(GenerationRequest("m1", prompt, {})):
                got.append(chunk)
        assert [c.text for c in got] == [" w0", " w1"]
        with pytest.raises(EngineDeadError, match="stream cut"):  # now none is left
            await run(engine, "m2")
        assert [u["state"] for u in engine.upstream_status()] == ["ejected", "ejected"]
        assert engine.stats().unfinished == 0
    finally:
        await engine.aclose()


async def test_abort_and_close_end_the_upstream_stream(upstream: ServerThread) -> None:
    upstream.upstream.token_delay_s = 0.05
    engine = RemoteEngine(remote_config(upstream.url))
    await engine.start()
    try:
        prompt = await engine.prepare_chat([{"role": "user", "content": "hi"}])
        stream = engine.generate(GenerationRequest("x1", prompt, {"max_tokens": 200}))
        await anext(stream)
        await engine.abort("x1")
        rest = [chunk async for chunk in stream]  # ends quietly, cut short
        assert len(rest) < 10 and all(c.finish_reason is None for c in rest)
        await wait_for(lambda: upstream.upstream.disconnected == 1)
        # Closing the iterator (a client leaving) closes the upstream response too.
        stream = engine.generate(GenerationRequest("x2", prompt, {"max_tokens": 200}))
        await anext(stream)
        await stream.aclose()
        await wait_for(lambda: upstream.upstream.disconnected == 2)
        assert engine.stats().unfinished == 0 and upstream.upstream.streaming == 0
    finally:
        await engine.aclose()


async def test_abort_while_connecting_ends_the_request_once_connected(
        upstream: ServerThread) -> None:
    upstream.upstream.header_delay_s = 0.3
    upstream.upstream.token_delay_s = 0.05
    engine = RemoteEngine(remote_config(upstream.url))
    await engine.start()
    try:
        prompt = await engine.prepare_chat([{"role": "user", "content": "hi"}])
        stream = engine.generate(GenerationRequest("c1", prompt, {"max_tokens": 100}))
        first = asyncio.create_task(anext(stream, None))
        await wait_for(lambda: len(upstream.upstream.bodies) == 1)
        await engine.abort("c1")
        assert await asyncio.wait_for(first, 3) is None  # ended without a delta
        await wait_for(lambda: upstream.upstream.disconnected == 1)
        assert upstream.upstream.completed == 0 and engine.stats().unfinished == 0
        # An abort for a request that is not running leaves nothing behind.
        await engine.abort("never-seen")
        assert not engine._aborted  # the bookkeeping of aborts stays bounded
    finally:
        await engine.aclose()


def gateway_config(url: str, **remote: Any) -> str:
    settings = {"urls": [url], "health_interval_s": 0.1, "eject_s": 0.5, **remote}
    return f"""
default_route: qa
engines:
  qa: {{model: qa, backend: remote, remote: {orjson.dumps(settings).decode()},
        max_in_flight: 8}}
  local: {{model: fake-local, backend: fake, engine_args: {{max_model_len: 512}}}}
routes:
  qa: {{engine: qa, fallback: local-route}}
  local-route: {{engine: local}}
"""


def test_through_the_gateway(upstream: ServerThread) -> None:
    config = parse_config(gateway_config(upstream.url, eject_after_failures=1))
    app = build_app(config, build_engine)
    with TestClient(app) as client:
        chat = {"model": "qa", "messages": [{"role": "user", "content": "hi"}],
                "max_tokens": 3}
        answer = client.post("/v1/chat/completions", json=chat)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["choices"][0]["message"]["content"] == " w0 w1 w2"
        assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 3,
                                 "total_tokens": 10}
        # No max_tokens asked: none is sent, the upstream fills the context left.
        client.post("/v1/chat/completions", json={**chat, "max_tokens": None})
        assert "max_tokens" not in upstream.upstream.bodies[-1]
        with client.stream("POST", "/v1/chat/completions",
                           json={**chat, "stream": True,
                                 "stream_options": {"include_usage": True}}) as streamed:
            events = [line for line in streamed.iter_lines() if line.startswith("data: ")]
        assert events[-1] == "data: [DONE]"
        assert orjson.loads(events[-2][6:])["usage"]["prompt_tokens"] == 7
        # A max_tokens beyond the upstream's context is refused here, without a request.
        too_long = client.post("/v1/chat/completions", json={**chat, "max_tokens": 600})
        assert too_long.status_code == 400
        assert too_long.json()["error"]["code"] == "context_length_exceeded"
        # The upstream's own 400 is passed through in the OpenAI shape.
        upstream.upstream.status, upstream.upstream.error_message = 400, CONTEXT_ERROR
        refused = client.post("/v1/chat/completions", json=chat)
        assert refused.status_code == 400
        assert refused.json()["error"]["message"] == CONTEXT_ERROR
        assert refused.json()["error"]["code"] == "context_length_exceeded"
        status = client.get("/admin/status").json()["engines"]["qa"]
        assert status["upstreams"][0]["url"] == upstream.url
        assert status["upstreams"][0]["state"] == "healthy"
        metrics = client.get("/metrics").text
        assert 'switchboard_prompt_tokens_total{' in metrics
        # The upstream fails: that request is a 503, new ones fall back to the local route.
        upstream.upstream.status, upstream.upstream.error_message = 500, "engine died"
        failed = client.post("/v1/chat/completions", json=chat)
        assert failed.status_code == 503
        fallback = client.post("/v1/chat/completions", json=chat)
        assert fallback.status_code == 200
        assert fallback.headers["x-switchboard-engine"] == "local"
        assert fallback.headers["x-switchboard-fallback-from"] == "qa"
        # Back again: the registry's health loop makes it ready without a restart.
        upstream.upstream.status = None
        deadline = time.monotonic() + 10
        while client.get("/admin/status").json()["engines"]["qa"]["state"] != "ready":
            assert time.monotonic() < deadline, "the remote engine did not recover"
            time.sleep(0.1)
        assert client.post("/v1/chat/completions", json=chat).json()["usage"][
            "prompt_tokens"] == 7


@pytest.mark.parametrize(("remote", "message"), [
    ("{}", "engines.qa.remote.urls: required"),
    ("{urls: []}", "engines.qa.remote.urls: required"),
    ("{urls: [ftp://h:1]}", "engines.qa.remote.urls[0]: must be an http:// or https://"),
    ("{urls: ['http://h:1/v1']}", "without /v1"),
    ("{urls: ['http://h:x']}", "bad port"),
    ("{urls: ['http://u:p@h:1']}", "credentials"),
    ("{urls: [http://h:1, 'http://h:1/']}", "the same URL twice"),
    ("{urls: [http://h:1], api_key_env: 'sk-123 x'}", "must name an environment variable"),
    ("{urls: [http://h:1], max_model_len: 0}", "max_model_len: must be >= 1"),
    ("{urls: [http://h:1], eject_after_failures: 0}", "eject_after_failures: must be >= 1"),
    ("{urls: [http://h:1], eject_s: -1}", "eject_s: must be > 0"),
    ("{urls: [http://h:1], health_interval_s: true}", "health_interval_s: must be a number"),
    ("{urls: [http://h:1], api_key: sk-1}",
     "engines.qa.remote.api_key: unknown key 'api_key'; did you mean 'api_key_env'"),
])
def test_remote_config_errors(remote: str, message: str) -> None:
    text = f"engines: {{qa: {{model: qa, backend: remote, remote: {remote}}}}}\n" \
           "routes: {qa: {engine: qa}}\n"
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    assert message in str(caught.value)


@pytest.mark.parametrize(("engine", "message"), [
    ("{model: qa, backend: remote}", "engines.qa.remote: required"),
    ("{model: qa, backend: remote, remote: {urls: [http://h:1]}, engine_args: {dtype: f}}",
     "engines.qa.engine_args: a remote engine has no engine_args"),
    ("{model: qa, backend: remote, remote: {urls: [http://h:1]}, restart_on_failure: true}",
     "engines.qa.restart_on_failure: not for a remote engine"),
    ("{model: qa, backend: fake, remote: {urls: [http://h:1]}}",
     "engines.qa.remote: only for backend: remote"),
])
def test_remote_engine_entry_errors(engine: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(f"engines: {{qa: {engine}}}\nroutes: {{qa: {{engine: qa}}}}\n")
    assert message in str(caught.value)


def test_remote_config_parses_and_url_changes_need_a_new_engine() -> None:
    text = ("engines: {qa: {model: qa, backend: remote, max_in_flight: 32, remote: "
            "{urls: ['http://10.0.0.5:8000/', 'https://b.example'], api_key_env: KEY, "
            "max_model_len: 2048, connect_timeout_s: 2, eject_after_failures: 4, eject_s: 9,"
            " health_interval_s: 1}}}\nroutes: {qa: {engine: qa}}\n")
    engine = parse_config(text).engines["qa"]
    assert engine.remote == RemoteConfig(
        urls=("http://10.0.0.5:8000", "https://b.example"), api_key_env="KEY",
        max_model_len=2048, connect_timeout_s=2.0, eject_after_failures=4, eject_s=9.0,
        health_interval_s=1.0)
    moved = parse_config(text.replace("10.0.0.5", "10.0.0.6")).engines["qa"]
    assert engine.needs_restart_for(moved)
    bigger = parse_config(text.replace("max_in_flight: 32", "max_in_flight: 64")).engines["qa"]
    assert not engine.needs_restart_for(bigger)  # admission is the gateway's, applied live
    renamed = parse_config(text.replace("model: qa", "model: qa2")).engines["qa"]
    assert engine.needs_restart_for(renamed)


def test_route_timeout_closes_the_upstream_stream(upstream: ServerThread) -> None:
    upstream.upstream.token_delay_s = 0.1
    text = gateway_config(upstream.url).replace(
        "qa: {engine: qa, fallback: local-route}", "qa: {engine: qa, timeout_s: 0.4}")
    app = build_app(parse_config(text), build_engine)
    with TestClient(app) as client:
        answer = client.post("/v1/chat/completions", json={
            "model": "qa", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 50})
        assert answer.status_code == 504
        deadline = time.monotonic() + 3
        while upstream.upstream.disconnected < 1:
            assert time.monotonic() < deadline, "the upstream stream was not closed"
            time.sleep(0.02)
        assert upstream.upstream.completed == 0
        assert client.get("/admin/status").json()["engines"]["qa"]["engine_unfinished"] == 0
