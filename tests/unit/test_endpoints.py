"""The OpenAI-compatible endpoints on fake engines: shapes, headers, errors, precedence."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.unit.fakes import FakeGateway, fake_client


def chat(content: str = "hello there", **extra: Any) -> dict[str, Any]:
    return {"model": "qa", "messages": [{"role": "user", "content": content}], **extra}


def sse_payloads(text: str) -> list[Any]:
    events = [line[len("data: "):] for line in text.split("\n\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    return [json.loads(e) for e in events[:-1]]


@pytest.fixture()
def gw() -> Any:
    with fake_client() as pair:
        yield pair


def test_non_streaming_chat_shape_and_headers(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    response = client.post("/v1/chat/completions", json=chat())
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"]["role"] == "assistant"
    assert body["choices"][0]["message"]["content"].split() == [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] == 8
    assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + 8
    assert response.headers["x-switchboard-route"] == "qa"
    assert response.headers["x-switchboard-engine"] == "qa"
    assert len(response.headers["x-request-id"]) == 32
    assert body["id"] == "chatcmpl-" + response.headers["x-request-id"]


def test_streaming_chat_chunks_usage_and_done(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    body = chat(stream=True, stream_options={"include_usage": True}, max_tokens=5)
    response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert "content-length" not in response.headers
    payloads = sse_payloads(response.text)
    assert payloads[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    content = [p["choices"][0]["delta"].get("content", "") for p in payloads[1:-1]]
    assert "".join(content).split() == ["alpha", "bravo", "charlie", "delta", "echo"]
    assert payloads[-2]["choices"][0]["finish_reason"] == "length"
    assert payloads[-1]["choices"] == []
    assert payloads[-1]["usage"]["completion_tokens"] == 5
    assert all(p["object"] == "chat.completion.chunk" for p in payloads)


def test_streaming_without_usage_has_no_usage_chunk(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    payloads = sse_payloads(client.post("/v1/chat/completions", json=chat(stream=True)).text)
    assert all("usage" not in p for p in payloads)


def test_text_completions_stream_and_whole(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    whole = client.post("/v1/completions", json={"model": "qa", "prompt": "once upon",
                                                  "max_tokens": 3})
    assert whole.status_code == 200
    assert whole.json()["object"] == "text_completion"
    assert whole.json()["choices"][0]["text"].split() == ["alpha", "bravo", "charlie"]
    streamed = client.post("/v1/completions", json={"model": "qa", "prompt": "once",
                                                     "max_tokens": 2, "stream": True})
    payloads = sse_payloads(streamed.text)
    assert "".join(p["choices"][0]["text"] for p in payloads).split() == ["alpha", "bravo"]


def test_n_choices_are_indexed(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    body = client.post("/v1/chat/completions", json=chat(n=2, max_tokens=2)).json()
    assert [c["index"] for c in body["choices"]] == [0, 1]
    assert body["usage"]["completion_tokens"] == 4


def test_sampling_precedence_reaches_the_engine(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    client.post("/v1/chat/completions", json=chat(top_k=5, seed=3))
    sent = fakes.engines["qa"].requests[-1].sampling
    # route temperature 0.6 beats engine 0.5; engine max_tokens 8 applies; request adds top_k.
    assert sent["temperature"] == 0.6
    assert sent["max_tokens"] == 8
    assert sent["top_k"] == 5 and sent["seed"] == 3
    client.post("/v1/chat/completions", json=chat(temperature=1.5))
    assert fakes.engines["qa"].requests[-1].sampling["temperature"] == 1.5


def test_route_system_prompt_is_added(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    client.post("/v1/chat/completions", json=chat("hi"))
    assert fakes.engines["qa"].requests[-1].prompt.text.startswith("<system>Be brief.</system>")
    with_own = {"model": "qa", "messages": [{"role": "system", "content": "Mine."},
                                            {"role": "user", "content": "hi"}]}
    client.post("/v1/chat/completions", json=with_own)
    assert "Be brief." not in fakes.engines["qa"].requests[-1].prompt.text


def test_auto_routes_translation_and_fills_the_template(
    gw: tuple[TestClient, FakeGateway],
) -> None:
    client, fakes = gw
    body = {"model": "auto",
            "messages": [{"role": "user", "content": "Translate into German: good night"}]}
    response = client.post("/v1/chat/completions", json=body)
    assert response.headers["x-switchboard-route"] == "translation"
    assert response.headers["x-switchboard-engine"] == "translation"
    assert "German" in response.headers["x-switchboard-route-reason"]
    assert fakes.engines["translation"].requests[-1].prompt.text == (
        "Translate into German: good night")


def test_x_route_header_overrides_model(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    response = client.post("/v1/chat/completions", json=chat(), headers={"X-Route": "translation"})
    assert response.headers["x-switchboard-route"] == "translation"


def test_engine_name_is_a_model_id(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    models = client.get("/v1/models").json()["data"]
    ids = {m["id"] for m in models}
    assert {"auto", "qa", "translation", "code"} <= ids
    assert all(m["object"] == "model" for m in models)


def test_client_request_id_is_echoed_not_used(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    response = client.post("/v1/chat/completions", json=chat(), headers={"X-Request-Id": "abc"})
    assert response.headers["x-request-id"] == "abc"
    internal = response.headers["x-switchboard-request-id"]
    assert fakes.engines["qa"].requests[-1].request_id == internal != "abc"


def test_request_ids_are_unique(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    for _ in range(20):
        client.post("/v1/chat/completions", json=chat(max_tokens=1))
    ids = [r.request_id for r in fakes.engines["qa"].requests]
    assert len(set(ids)) == len(ids) == 20


@pytest.mark.parametrize(
    ("body", "status", "param"),
    [
        (b"{not json", 400, None),
        (b'{"model": "qa", "messages": [', 400, None),
        (b"[1, 2]", 400, None),
        (b"", 400, None),
        (b'{"model": "qa"}', 400, "messages"),
        (b'{"model": "qa", "messages": []}', 400, "messages"),
        (b'{"model": "qa", "messages": "hi"}', 400, "messages"),
        (b'{"model": "qa", "messages": [{"role": "wizard", "content": "x"}]}', 400,
         "messages[0].role"),
        (b'{"model": "qa", "messages": [{"role": "user", "content": 5}]}', 400,
         "messages[0].content"),
        (b'{"model": "qa", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]}',
         400, "messages[0].content[0]"),
        (b'{"model": 7, "messages": [{"role": "user", "content": "x"}]}', 400, "model"),
        (b'{"model": "qa", "stream": "yes", "messages": [{"role": "user", "content": "x"}]}',
         400, "stream"),
        (b'{"model": "qa", "temperature": -1, "messages": [{"role": "user", "content": "x"}]}',
         400, "temperature"),
        (b'{"model": "qa", "n": 1000, "messages": [{"role": "user", "content": "x"}]}', 400, "n"),
        (b'{"model": "gpt-17", "messages": [{"role": "user", "content": "x"}]}', 404, "model"),
        (b'{"model": "qa", "max_tokens": 100, "messages": [{"role": "user", "content": "x"}]}',
         400, "max_tokens"),
        (b'{"model": "code", "max_tokens": 30, "messages": [{"role": "user", "content": "x"}]}',
         400, "max_tokens"),
        (b'{"model": "qa", "messages": [{"role": "system", "content": "x"}]}', 400, "messages"),
        (b'{"model": "qa", "prompt": "x"}', 400, "messages"),
        (b'{"model": "qa", "messages": [{"role": "user", "content": "x"}], "logprobs": true}',
         400, "logprobs"),
    ],
)
def test_bad_input_is_a_4xx_in_openai_shape(
    gw: tuple[TestClient, FakeGateway], body: bytes, status: int, param: str | None
) -> None:
    client, fakes = gw
    response = client.post("/v1/chat/completions", content=body,
                           headers={"content-type": "application/json"})
    assert response.status_code == status
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["message"]
    if param is not None:
        assert error["param"] == param
    assert fakes.engines["qa"].requests == []  # decided before any engine work
    assert client.post("/v1/chat/completions", json=chat()).status_code == 200


def test_prompt_longer_than_context_is_400(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    response = client.post("/v1/chat/completions", json=chat("word " * 100))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "context_length_exceeded"
    assert "maximum context length is 64" in response.json()["error"]["message"]


def test_default_max_tokens_is_clamped_to_the_context(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    response = client.post("/v1/chat/completions", json={
        "model": "translation", "messages": [{"role": "user", "content": "word " * 50}]})
    assert response.status_code == 200
    sent = fakes.engines["translation"].requests[-1]
    assert sent.sampling["max_tokens"] == 64 - len(sent.prompt.token_ids)


def test_oversized_body_is_413(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    response = client.post("/v1/chat/completions", json=chat("x" * 1_100_000))
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


def test_unknown_path_and_method_are_openai_errors(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    assert client.get("/v1/nothing").json()["error"]["code"] == "not_found"
    response = client.get("/v1/chat/completions")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_dead_engine_gives_503_for_its_routes_only(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    fakes.engines["translation"].behaviour.dead = True
    first = client.post("/v1/chat/completions", json={
        "model": "translation", "messages": [{"role": "user", "content": "hola"}]})
    assert first.status_code == 503
    assert first.json()["error"]["type"] == "service_unavailable"
    again = client.post("/v1/chat/completions", json={
        "model": "translation", "messages": [{"role": "user", "content": "hola"}]})
    assert again.status_code == 503  # marked failed: refused before reaching the engine
    assert client.post("/v1/chat/completions", json=chat()).status_code == 200
    ready = client.get("/ready")
    assert ready.status_code == 503
    assert ready.json()["engines"]["translation"]["state"] == "failed"
    assert ready.json()["engines"]["qa"]["state"] == "ready"


def test_route_timeout_aborts_and_answers_504() -> None:
    with fake_client() as (client, fakes):
        fakes.engines["qa"].behaviour.token_delay_s = 0.2
        response = client.post("/v1/chat/completions", json={
            "model": "code", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]})
        assert response.status_code == 504
        assert response.json()["error"]["type"] == "timeout"
        assert fakes.engines["qa"].running == set()
        assert fakes.engines["qa"].aborted == [fakes.engines["qa"].requests[-1].request_id]


def test_error_after_stream_start_is_an_error_event() -> None:
    with fake_client() as (client, fakes):
        fakes.engines["qa"].behaviour.token_delay_s = 0.2
        response = client.post("/v1/chat/completions", json={
            "model": "code", "stream": True, "max_tokens": 10,
            "messages": [{"role": "user", "content": "x"}]})
        assert response.status_code == 200
        events = [e for e in response.text.split("\n\n") if e]
        assert events[-1] == "data: [DONE]"
        assert json.loads(events[-2][len("data: "):])["error"]["type"] == "timeout"


def test_classify_endpoint_returns_the_decision(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    response = client.post("/v1/classify", json={"messages": [
        {"role": "user", "content": "Übersetze ins Englische: Guten Morgen"}]})
    assert response.status_code == 200
    decision = response.json()
    assert decision["route"] == "translation" and decision["tier"] == "language"
    assert decision["target_language"] == "English"
    assert decision["engine"] == "translation"
    assert fakes.engines["translation"].requests == []  # classifying generates nothing
    qa = client.post("/v1/classify", json={"messages": [
        {"role": "user", "content": "Which language is spoken in Brazil?"}]}).json()
    assert qa["route"] == "qa"


def test_health_and_ready(gw: tuple[TestClient, FakeGateway]) -> None:
    client, _ = gw
    assert client.get("/health").json() == {"status": "ok"}
    ready = client.get("/ready")
    assert ready.status_code == 200
    assert set(ready.json()["engines"]) == {"qa", "translation"}


def test_draining_gateway_refuses_new_work(gw: tuple[TestClient, FakeGateway]) -> None:
    client, fakes = gw
    assert fakes.state is not None
    fakes.state.draining = True
    assert client.get("/ready").status_code == 503
    response = client.post("/v1/chat/completions", json=chat())
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "shutting_down"
    assert client.get("/health").status_code == 200


def test_overload_is_429_with_retry_after() -> None:
    config = """
engines:
  qa: {model: m, backend: fake, engine_args: {max_num_seqs: 1}, max_queue: 0}
routes:
  qa: {engine: qa}
"""
    with fake_client(config) as (client, fakes):
        assert fakes.state is not None
        admission = fakes.state.snapshot.engines["qa"].admission
        admission.outstanding = admission.capacity  # as if requests were in flight
        response = client.post("/v1/chat/completions", json=chat())
        assert response.status_code == 429
        assert response.headers["retry-after"] == "1"
        assert fakes.engines["qa"].requests == []
