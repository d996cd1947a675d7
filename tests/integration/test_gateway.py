"""The gateway core end to end: real vLLM CPU engines, real uvicorn, real clients."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from urllib.parse import urlparse

import httpx
import openai
import pytest

from tests.integration.conftest import RunningGateway

pytestmark = pytest.mark.integration


def client_for(gateway: RunningGateway) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{gateway.base_url}/v1", api_key="unused", max_retries=0)


def test_streamed_qa_answer_arrives_in_chunks_with_usage(gateway: RunningGateway) -> None:
    stream = client_for(gateway).chat.completions.create(
        model="qa",
        messages=[{"role": "user", "content": "What is the capital of France?"}],
        stream=True,
        stream_options={"include_usage": True},
        max_tokens=24,
        temperature=0,
    )
    content_chunks, usage = [], None
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            content_chunks.append(chunk.choices[0].delta.content)
        if chunk.usage is not None:
            usage = chunk.usage
    assert len(content_chunks) >= 2
    assert "Paris" in "".join(content_chunks)
    assert usage is not None and usage.completion_tokens >= len(content_chunks)
    assert usage.prompt_tokens > 0


def test_raw_stream_ends_with_done(gateway: RunningGateway) -> None:
    body = {"model": "qa", "stream": True, "max_tokens": 5,
            "messages": [{"role": "user", "content": "Say hi"}]}
    with httpx.stream("POST", f"{gateway.base_url}/v1/chat/completions", json=body,
                      timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["x-switchboard-engine"] == "qa"
        lines = [line for line in response.iter_lines() if line]
    assert lines[-1] == "data: [DONE]"
    assert json.loads(lines[0][6:])["choices"][0]["delta"]["role"] == "assistant"


def test_translation_request_reaches_the_translation_engine(gateway: RunningGateway) -> None:
    # The translation route is an A/B split; pin the Gemma variant, as a debugging user would.
    raw = client_for(gateway).chat.completions.with_raw_response.create(
        model="auto",
        messages=[{"role": "user", "content": "Translate into French: good morning"}],
        max_tokens=16,
        extra_headers={"x-switchboard-variant": "gemma-fewshot"},
    )
    assert raw.headers["x-switchboard-route"] == "translation"
    assert raw.headers["x-switchboard-engine"] == "translation"
    completion = raw.parse()
    assert completion.choices[0].message.content
    assert completion.model == "translation"
    explicit = client_for(gateway).chat.completions.with_raw_response.create(
        model="engine:translation", messages=[{"role": "user", "content": "Hello, friend."}],
        max_tokens=8)
    assert explicit.headers["x-switchboard-engine"] == "translation"


def test_text_completions_work(gateway: RunningGateway) -> None:
    completion = client_for(gateway).completions.create(
        model="qa", prompt="The sky is", max_tokens=6, temperature=0)
    assert completion.choices[0].text
    assert completion.usage is not None and completion.usage.completion_tokens <= 6


async def _timed_stream(client: httpx.AsyncClient, model: str) -> tuple[float, float]:
    body = {"model": model, "stream": True, "max_tokens": 48, "ignore_eos": True,
            "messages": [{"role": "user", "content": "Tell me a long story."}]}
    first = last = 0.0
    async with client.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if line.startswith("data: {") and '"content":"' in line and not first:
                first = time.monotonic()
            last = time.monotonic()
    return first, last


def test_two_engines_serve_concurrently(gateway: RunningGateway) -> None:
    async def both() -> list[tuple[float, float]]:
        async with httpx.AsyncClient(base_url=gateway.base_url, timeout=120) as client:
            return list(await asyncio.gather(_timed_stream(client, "qa"),
                                             _timed_stream(client, "engine:translation")))

    (qa_first, qa_last), (mt_first, mt_last) = asyncio.run(both())
    assert qa_first and mt_first
    # Each stream produced tokens while the other was still producing: they overlapped.
    assert qa_first < mt_last and mt_first < qa_last


def test_stream_disconnect_aborts_the_engine_request(gateway: RunningGateway) -> None:
    body = {"model": "qa", "stream": True, "max_tokens": 1500, "ignore_eos": True,
            "messages": [{"role": "user", "content": "Count to a thousand."}]}
    with httpx.stream("POST", f"{gateway.base_url}/v1/chat/completions", json=body,
                      timeout=60) as response:
        seen = 0
        for line in response.iter_lines():
            seen += bool(line)
            if seen >= 4:
                break
    assert gateway.wait_engine_idle("qa") == 0


def test_non_streaming_disconnect_aborts_the_engine_request(gateway: RunningGateway) -> None:
    body = json.dumps({"model": "qa", "max_tokens": 1500, "ignore_eos": True,
                       "messages": [{"role": "user", "content": "Count to a thousand."}]})
    url = urlparse(gateway.base_url)
    request = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {url.netloc}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}")
    with socket.create_connection((url.hostname, url.port)) as sock:
        sock.sendall(request.encode())
        deadline = time.monotonic() + 10
        while gateway.engine_unfinished("qa") == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert gateway.engine_unfinished("qa") == 1  # generating, no answer yet
    assert gateway.wait_engine_idle("qa") == 0


def test_too_long_prompt_is_400_and_the_server_stays_healthy(gateway: RunningGateway) -> None:
    client = client_for(gateway)
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(
            model="engine:translation",
            messages=[{"role": "user", "content": "lorem ipsum dolor " * 800}],
        )
    assert info.value.status_code == 400
    assert "maximum context length" in str(info.value)
    answer = client.chat.completions.create(
        model="engine:translation", messages=[{"role": "user", "content": "Hello"}],
        max_tokens=4)
    assert answer.choices[0].message.content is not None


def test_bad_input_is_4xx_on_the_real_server(gateway: RunningGateway) -> None:
    url = f"{gateway.base_url}/v1/chat/completions"
    bad = httpx.post(url, content=b'{"messages": [', headers={"content-type": "application/json"})
    assert bad.status_code == 400 and bad.json()["error"]["type"] == "invalid_request_error"
    message = {"role": "user", "content": "x"}
    unknown = httpx.post(url, json={"model": "nope", "messages": [message]})
    assert unknown.status_code == 404
    assert httpx.get(f"{gateway.base_url}/health").status_code == 200


def test_ready_reports_every_engine(gateway: RunningGateway) -> None:
    ready = httpx.get(f"{gateway.base_url}/ready").json()
    assert ready["status"] == "ready"
    assert {name: e["state"] for name, e in ready["engines"].items()} == {
        "qa": "ready", "translation": "ready"}
