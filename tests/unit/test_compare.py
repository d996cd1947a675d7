"""POST /v1/compare on fake engines: every variant answers, forced like x-switchboard-variant."""

from __future__ import annotations

from typing import Any

import orjson

from tests.unit.fakes import FakeGateway, fake_client
from tests.unit.test_metrics import value
from tests.unit.test_variants import AB_CONFIG

BODY: dict[str, Any] = {"model": "translation",
                        "messages": [{"role": "user", "content": "hello world"}]}


def events(text: str) -> list[Any]:
    out = []
    for block in text.split("\n\n"):
        if block.startswith("data: "):
            data = block[len("data: "):]
            out.append(data if data == "[DONE]" else orjson.loads(data))
    return out


def outstanding(gateway: FakeGateway) -> dict[str, int]:
    assert gateway.state is not None
    return {name: h.admission.outstanding for name, h in gateway.state.snapshot.engines.items()}


def test_compare_answers_every_variant_with_tokens_and_timings() -> None:
    with fake_client(AB_CONFIG) as (client, gateway):
        resp = client.post("/v1/compare", json=BODY)
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert resp.headers["x-switchboard-variant"] == "gemma,smol"
        metrics = client.get("/metrics").text
        assert set(outstanding(gateway).values()) == {0}
    assert body["object"] == "compare" and body["route"] == "translation"
    results = {r["variant"]: r for r in body["results"]}
    assert list(results) == ["gemma", "smol"]
    assert results["gemma"]["engine"] == "translation" and results["smol"]["engine"] == "qa"
    assert results["gemma"]["usage"]["completion_tokens"] == 4
    assert results["smol"]["usage"]["completion_tokens"] == 3
    assert results["smol"]["choices"][0]["message"]["content"] == " alpha bravo charlie"
    for result in results.values():
        assert result["error"] is None
        assert result["usage"]["prompt_tokens"] > 0
        assert 0 <= result["ttft_s"] <= result["duration_s"]
        assert result["tpot_s"] is not None
        assert result["finish_reason"] == "length"
    # Each variant has its own engine request id and is counted as compare traffic.
    ids = {gateway.engines["translation"].requests[0].request_id,
           gateway.engines["qa"].requests[0].request_id}
    assert ids == {r["request_id"] for r in results.values()}
    assert value(metrics, "switchboard_requests_total", route="translation", variant="smol",
                 engine="qa", traffic="compare", outcome="ok") == 1
    assert value(metrics, "switchboard_requests_total", route="translation", variant="smol",
                 engine="qa", traffic="live", outcome="ok") == 0


def test_compare_streams_events_that_each_name_their_variant() -> None:
    with fake_client(AB_CONFIG) as (client, gateway):
        resp = client.post("/v1/compare", json={**BODY, "stream": True})
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("text/event-stream")
        assert set(outstanding(gateway).values()) == {0}
    got = events(resp.text)
    assert got[-1] == "[DONE]"
    payloads = got[:-1]
    assert all(p["variant"] in ("gemma", "smol") for p in payloads)
    for variant, tokens in (("gemma", 4), ("smol", 3)):
        mine = [p for p in payloads if p["variant"] == variant]
        chunks = [p for p in mine if p["object"] == "chat.completion.chunk"]
        assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
        text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
        assert len(text.split()) == tokens
        done = [p for p in mine if p["object"] == "compare.variant.done"]
        assert len(done) == 1 and done[0]["usage"]["completion_tokens"] == tokens
        assert done[0]["ttft_s"] is not None
        assert mine[-1] is done[0]


def test_compare_a_subset_and_reject_bad_variant_lists() -> None:
    with fake_client(AB_CONFIG) as (client, _):
        resp = client.post("/v1/compare", json={**BODY, "variants": ["smol"]})
        assert [r["variant"] for r in resp.json()["results"]] == ["smol"]
        for variants, message in (
            (["x"], "route 'translation' has no variant 'x' (known: gemma, smol)"),
            (["smol", "smol"], "variant 'smol' is listed twice"),
            ([], "'variants' must be a non-empty array of variant names"),
        ):
            bad = client.post("/v1/compare", json={**BODY, "variants": variants})
            assert bad.status_code == 400
            assert bad.json()["error"]["message"] == message
        plain = client.post("/v1/compare", json={**BODY, "model": "qa"})
        assert plain.status_code == 400
        assert plain.json()["error"]["message"] == "route 'qa' has no variants to compare"


def test_one_variant_rejected_the_other_answers_and_no_slot_leaks() -> None:
    with fake_client(AB_CONFIG) as (client, gateway):
        assert gateway.state is not None
        busy = gateway.state.snapshot.engines["qa"].admission
        busy.outstanding = busy.capacity
        resp = client.post("/v1/compare", json=BODY)
        assert resp.status_code == 200
        results = {r["variant"]: r for r in resp.json()["results"]}
        assert results["smol"]["error"]["code"] == "overloaded"
        assert results["gemma"]["error"] is None
        streamed = events(client.post("/v1/compare", json={**BODY, "stream": True}).text)
        assert {"object": "compare.variant.error", "variant": "smol", "engine": "qa"}.items() <= \
            streamed[0].items()
        busy.outstanding = 0
        assert outstanding(gateway) == {"qa": 0, "translation": 0}
        registry = gateway.state.registry
        registry.mark_failed(registry.get("translation"), RuntimeError("gone"))
        busy.outstanding = busy.capacity
        both = client.post("/v1/compare", json=BODY)
        busy.outstanding = 0
        assert both.status_code == 503  # every variant rejected: the first one's error


def test_engine_failing_mid_compare_is_that_variants_error() -> None:
    with fake_client(AB_CONFIG) as (client, gateway):
        gateway.engines["translation"].behaviour.dead = True
        # The engine is still READY in the registry; it fails once generating.
        resp = client.post("/v1/compare", json=BODY)
        results = {r["variant"]: r for r in resp.json()["results"]}
        assert results["gemma"]["error"]["code"] == "engine_unavailable"
        assert results["smol"]["error"] is None
        assert set(outstanding(gateway).values()) == {0}
