"""Shadow traffic on fake engines: mirrored in the background, never visible to the user."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from starlette.testclient import TestClient

from router.gateway import Gateway
from router.pipeline.shadow import SHADOW_PRIORITY_OFFSET, mirror, shadow_priority
from router.tools.records import read_records
from tests.unit.fakes import FakeGateway, fake_client

CONFIG = """
server: {{record_file: {record}}}
default_route: qa
engines:
  qa: {{model: fake-qa, backend: fake, engine_args: {{max_model_len: 128}}}}
  cand: {{model: fake-cand, backend: fake, engine_args: {{max_model_len: 128}},
         max_in_flight: 2}}
routes:
  qa:
    engine: qa
    sampling: {{max_tokens: 6}}
    shadow: {{engine: cand, fraction: {fraction}, name: candidate,
             sampling: {{max_tokens: 8}}, prompt_template: "Q: {{text}}"}}
"""

BODY = {"model": "qa", "messages": [{"role": "user", "content": "hello there"}]}


def config(tmp_path: Path, fraction: float = 1.0) -> str:
    return CONFIG.format(record=tmp_path / "records.jsonl", fraction=fraction)


def state_of(gateway: FakeGateway) -> Gateway:
    assert gateway.state is not None
    return gateway.state


def wait_for_shadows(gateway: FakeGateway, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while state_of(gateway).background:
        assert time.monotonic() < end, "shadow tasks did not finish"
        time.sleep(0.005)


def answer(resp: Any) -> Any:
    body = resp.json()
    return body["choices"], body["usage"]


def records(tmp_path: Path) -> list[dict[str, Any]]:
    return read_records(tmp_path / "records.jsonl").lines


def timed_post(client: TestClient, **kwargs: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    resp = client.post("/v1/chat/completions", **kwargs)
    return resp, time.perf_counter() - start


def test_shadow_runs_in_background_with_own_id_lower_priority_and_is_recorded(
    tmp_path: Path,
) -> None:
    with fake_client(config(tmp_path)) as (client, gateway):
        resp = client.post("/v1/chat/completions", json=BODY)
        assert resp.status_code == 200
        assert "x-switchboard-variant" not in resp.headers  # the live route has no variants
        wait_for_shadows(gateway)
        live_id = gateway.engines["qa"].requests[-1].request_id
        sent = gateway.engines["cand"].requests[-1]
        assert sent.request_id != live_id
        # behind every live tier (vip -10, standard 0): standard's shadow is 0 + 10 + offset
        assert sent.priority == shadow_priority(0, [-10, 0]) == 10 + SHADOW_PRIORITY_OFFSET
        assert sent.prompt.text == "Q: hello there"
        assert sent.sampling["max_tokens"] == 8
        metrics = client.get("/metrics").text
    lines = records(tmp_path)
    live = [line for line in lines if line["traffic"] == "live"]
    shadow = [line for line in lines if line["traffic"] == "shadow"]
    assert len(live) == 1 and len(shadow) == 1
    assert shadow[0]["live_request_id"] == live[0]["request_id"]
    assert shadow[0]["request_id"] == sent.request_id
    assert shadow[0]["variant"] == "candidate" and shadow[0]["engine"] == "cand"
    assert shadow[0]["completion_tokens"] == 8 and shadow[0]["status"] == 200
    assert shadow[0]["text"] == [" alpha bravo charlie delta echo foxtrot golf hotel"]
    assert shadow[0]["ttft_s"] is not None and shadow[0]["duration_s"] > 0
    assert "text" not in live[0]  # only shadow answers are written, never prompts
    assert ('switchboard_requests_total{engine="cand",outcome="ok",route="qa",'
            'traffic="shadow",variant="candidate"} 1.0') in metrics


def test_slow_shadow_changes_neither_the_live_answer_nor_its_latency(tmp_path: Path) -> None:
    with fake_client(config(tmp_path, fraction=0.0)) as (client, gateway):
        base = [timed_post(client, json=BODY) for _ in range(15)]
    with fake_client(config(tmp_path / "s", fraction=1.0)) as (client, gateway):
        gateway.engines["cand"].behaviour.first_token_delay_s = 0.3
        gateway.engines["cand"].behaviour.token_delay_s = 0.05
        shadowed = [timed_post(client, json=BODY) for _ in range(15)]
        state = state_of(gateway)
        assert state.background  # shadows still running after every live answer was sent
    assert all(answer(r) == answer(base[0][0]) for r, _ in base + shadowed)
    base_median = statistics.median(t for _, t in base)
    shadow_median = statistics.median(t for _, t in shadowed)
    # A shadow takes >= 0.3 s; a live request that waited for it would show that much.
    assert shadow_median < base_median + 0.05, (base_median, shadow_median)


def test_failing_shadow_leaves_the_live_request_alone(tmp_path: Path) -> None:
    with fake_client(config(tmp_path)) as (client, gateway):
        reference = client.post("/v1/chat/completions", json={**BODY, "model": "qa"})
        wait_for_shadows(gateway)
        gateway.engines["cand"].behaviour.dead = True
        resp = client.post("/v1/chat/completions", json=BODY)
        wait_for_shadows(gateway)
        assert resp.status_code == 200 and answer(resp) == answer(reference)
        assert "x-switchboard-fallback-from" not in resp.headers
        stream = client.post("/v1/chat/completions", json={**BODY, "stream": True})
        assert stream.status_code == 200 and stream.text.endswith("data: [DONE]\n\n")
        wait_for_shadows(gateway)
        metrics = client.get("/metrics").text
    shadows = [line for line in records(tmp_path) if line["traffic"] == "shadow"]
    assert [s["status"] for s in shadows] == [200, 503]  # then the engine is marked failed
    assert shadows[1]["error_kind"] == "engine_unavailable"
    assert 'reason="engine_unavailable",route="qa"} 1.0' in metrics


def test_shadow_is_skipped_without_spare_capacity(tmp_path: Path) -> None:
    with fake_client(config(tmp_path)) as (client, gateway):
        admission = state_of(gateway).snapshot.engines["cand"].admission
        # cand's max_in_flight is 2: no running slot left
        held = [admission.acquire(), admission.acquire()]
        resp = client.post("/v1/chat/completions", json=BODY)
        assert resp.status_code == 200
        assert gateway.engines["cand"].requests == []
        held[0].release()
        client.post("/v1/chat/completions", json=BODY)
        wait_for_shadows(gateway)
        assert len(gateway.engines["cand"].requests) == 1
        metrics = client.get("/metrics").text
    assert 'switchboard_shadow_skipped_total{reason="no_capacity",route="qa"} 1.0' in metrics


def test_shadow_fraction_is_respected(tmp_path: Path) -> None:
    with fake_client(config(tmp_path, fraction=0.3)) as (client, gateway):
        for _ in range(300):
            client.post("/v1/chat/completions", json=BODY)
        wait_for_shadows(gateway)
        mirrored = len(gateway.engines["cand"].requests)
    # Binomial(300, 0.3): mean 90, sd 7.9.
    assert 55 < mirrored < 125


def test_shutdown_cancels_and_aborts_running_shadows(tmp_path: Path) -> None:
    with fake_client(config(tmp_path)) as (client, gateway):
        gateway.engines["cand"].behaviour.first_token_delay_s = 30
        assert client.post("/v1/chat/completions", json=BODY).status_code == 200
        end = time.monotonic() + 2
        while not gateway.engines["cand"].running:
            assert time.monotonic() < end
            time.sleep(0.005)
        shadow_id = next(iter(gateway.engines["cand"].running))
        started = time.monotonic()
    assert time.monotonic() - started < 5  # shutdown did not wait for the 30 s shadow
    cand = gateway.engines["cand"]
    assert shadow_id in cand.aborted and not cand.running
    assert not state_of(gateway).background
    assert state_of(gateway).snapshot.engines["cand"].admission.outstanding == 0
    assert [line["traffic"] for line in records(tmp_path)] == ["live"]


def test_no_shadow_while_draining(tmp_path: Path) -> None:
    with fake_client(config(tmp_path)) as (client, gateway):
        state = state_of(gateway)

        class Plan:  # the fields mirror() reads before it gives up
            route = state.snapshot.config.routes["qa"]

        class Live:
            plan = Plan()

        state.draining = True
        live: Any = Live()
        mirror(state, live, lambda: 0.0)
        assert not state.background
        assert "reason=\"draining\"" in client.get("/metrics").text


@pytest.mark.parametrize("stream", [False, True])
def test_record_file_lines_are_json(tmp_path: Path, stream: bool) -> None:
    with fake_client(config(tmp_path)) as (client, gateway):
        client.post("/v1/chat/completions", json={**BODY, "stream": stream})
        wait_for_shadows(gateway)
    raw = (tmp_path / "records.jsonl").read_bytes().splitlines()
    assert len(raw) == 2
    assert all(isinstance(orjson.loads(line), dict) for line in raw)
