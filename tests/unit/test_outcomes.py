"""An answer the gateway cut short is never a success: reload aborts are errors (503 before
the first byte, an error event after), client hang-ups are recorded as such, and A/B data
leaves out what would skew it (aborted requests, self-selected variants)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from router.config import load_config, parse_config
from router.http.app import build_app
from router.tools.ab_report import build_reports
from router.tools.records import read_records
from tests.unit.asgi import call, running
from tests.unit.fakes import FakeGateway, fake_client

RELOAD_CONFIG = """
server: {{reload_drain_timeout_s: 0.2, record_file: {record}}}
engines:
  qa: {{model: {model}, backend: fake, engine_args: {{max_model_len: 256}}}}
routes:
  qa: {{engine: qa}}
"""


def chat(model: str = "qa", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "hello"}], **extra}


def sse_events(body: bytes) -> list[str]:
    return [part[len("data: "):] for part in body.decode().split("\n\n")
            if part.startswith("data: ")]


@pytest.mark.parametrize("strategy", ["coexist", "in_place"])
def test_requests_cut_by_a_reload_are_errors(tmp_path: Path, strategy: str) -> None:
    path = tmp_path / "routes.yaml"
    record = tmp_path / "records.jsonl"
    path.write_text(RELOAD_CONFIG.format(record=record, model="fake-qa-v1"))
    gateway = FakeGateway(load_config(path))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> tuple[Any, Any, Any]:
        async with running(app) as state:
            old = gateway.engines["qa"]
            old.behaviour.first_token_delay_s = 0.05
            old.behaviour.token_delay_s = 0.05
            # One waits for its first token for longer than the drain allows; one streams.
            silent = asyncio.create_task(call(app, state, "POST", "/v1/chat/completions",
                                              chat(max_tokens=200)))
            streaming = asyncio.create_task(call(app, state, "POST", "/v1/chat/completions",
                                                 chat(max_tokens=200, stream=True)))
            await asyncio.sleep(0.01)
            old.behaviour.first_token_delay_s = 5.0
            await asyncio.sleep(0.01)
            silent_late = asyncio.create_task(call(app, state, "POST", "/v1/chat/completions",
                                                   chat(max_tokens=200)))
            await asyncio.sleep(0.1)
            path.write_text(RELOAD_CONFIG.format(record=record, model="fake-qa-v2"))
            reload = await call(app, state, "POST", f"/admin/reload?strategy={strategy}")
            assert reload.status == 200, reload.body
            return await silent_late, await streaming, await silent

    silent_late, streaming, silent = asyncio.run(scenario())
    assert silent_late.status == 503
    assert silent_late.json()["error"]["code"] == "engine_unavailable"
    assert silent.status == 200 or silent.status == 503  # had its first token, or not
    assert streaming.status == 200  # headers were sent before the reload
    events = sse_events(bytes(streaming.body))
    assert events[-1] == "[DONE]"
    assert "error" in json.loads(events[-2])
    lines = {line["request_id"]: line for line in read_records(record).lines}
    late = lines[silent_late.headers["x-request-id"]]
    assert late["status"] == 503 and late["error_kind"] == "engine_unavailable"
    cut = lines[streaming.headers["x-request-id"]]
    assert cut["aborted"] is True and cut["error_kind"] is not None


def test_a_client_hanging_up_mid_stream_is_recorded_as_aborted(tmp_path: Path) -> None:
    record = tmp_path / "records.jsonl"
    config = parse_config(RELOAD_CONFIG.format(record=record, model="fake-qa"))
    gateway = FakeGateway(config)
    app = build_app(config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> Any:
        async with running(app) as state:
            gateway.engines["qa"].behaviour.token_delay_s = 0.02
            return await call(app, state, "POST", "/v1/chat/completions",
                              chat(max_tokens=50, stream=True), disconnect_after_bytes=400)

    answer = asyncio.run(scenario())
    assert answer.status == 200
    line = read_records(record).lines[0]
    assert line["aborted"] is True
    assert line["error_kind"] == "client_closed"
    assert 0 < line["completion_tokens"] < 50


AB_CONFIG = """
server: {{record_file: {record}}}
engines:
  qa: {{model: fake-qa, backend: fake}}
  cand: {{model: fake-cand, backend: fake}}
routes:
  qa:
    engine: qa
    variants:
      - {{name: base, engine: qa}}
      - {{name: cand, engine: cand}}
"""


def test_forced_variants_are_marked_and_ab_report_leaves_them_out(tmp_path: Path) -> None:
    record = tmp_path / "records.jsonl"
    with fake_client(AB_CONFIG.format(record=record)) as (client, _):
        for i in range(4):
            assert client.post("/v1/chat/completions", json=chat(user=f"u{i}")).status_code == 200
        forced = client.post("/v1/chat/completions", json=chat(),
                             headers={"x-switchboard-variant": "cand"})
        assert forced.status_code == 200
    lines = read_records(record).lines
    by_id = {line["request_id"]: line for line in lines}
    assert by_id[forced.headers["x-request-id"]]["forced"] is True
    assert sum(1 for line in lines if line["forced"] is False) == 4
    counted = sum(v.n for report in build_reports(lines) for v in report.variants)
    assert counted == 4


def test_ab_report_leaves_out_aborted_requests_unless_asked() -> None:
    def line(variant: str, aborted: bool) -> dict[str, Any]:
        return {"traffic": "live", "route": "qa", "variant": variant, "status": 200,
                "aborted": aborted, "forced": False, "ttft_s": 0.1, "tpot_s": 0.01,
                "duration_s": 1.0, "completion_tokens": 10, "error_kind": None}

    lines = [line("a", False), line("a", True), line("b", False), line("b", True)]
    assert sum(v.n for r in build_reports(lines) for v in r.variants) == 2
    everything = build_reports(lines, include_aborted=True, include_forced=True)
    assert sum(v.n for r in everything for v in r.variants) == 4


SHADOW_CONFIG = """
server: {{record_file: {record}}}
engines:
  qa: {{model: fake-qa, backend: fake}}
  cand: {{model: fake-cand, backend: fake, engine_args: {{max_num_seqs: 5}}, max_queue: 0}}
routes:
  qa:
    engine: qa
    shadow: {{engine: cand, fraction: 1.0, name: candidate}}
"""


def test_a_shadow_without_room_is_skipped_not_recorded_as_a_candidate_error(
    tmp_path: Path,
) -> None:
    """cand: 5 running slots, no queue; standard traffic may hold 4 (the rest is VIP's).
    With 4 held, a shadow has no room: skipped, never a 429 in the candidate's record."""
    record = tmp_path / "records.jsonl"
    config = parse_config(SHADOW_CONFIG.format(record=record))
    gateway = FakeGateway(config)
    app = build_app(config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> str:
        async with running(app) as state:
            gateway.engines["cand"].behaviour.first_token_delay_s = 0.4
            holders = [asyncio.create_task(call(app, state, "POST", "/v1/chat/completions",
                                                chat("cand", max_tokens=2))) for _ in range(4)]
            await asyncio.sleep(0.1)
            live = await call(app, state, "POST", "/v1/chat/completions", chat(max_tokens=2))
            assert live.status == 200
            assert [a.status for a in await asyncio.gather(*holders)] == [200] * 4
            await asyncio.sleep(0.05)
            return bytes((await call(app, state, "GET", "/metrics")).body).decode()

    metrics = asyncio.run(scenario())
    shadows = [line for line in read_records(record).lines if line["traffic"] == "shadow"]
    assert shadows == []
    assert 'switchboard_shadow_skipped_total{reason="no_capacity",route="qa"} 1.0' in metrics
