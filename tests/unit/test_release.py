"""Every resource a request takes is given back exactly once, whatever ends it, and admission
counts the work a request asks for (choices, compare lanes), not requests."""

from __future__ import annotations

import asyncio
from typing import Any

from router.config import parse_config
from router.http.app import build_app
from tests.unit.asgi import call, running
from tests.unit.fakes import FakeGateway

TIMEOUT_CONFIG = """
engines:
  qa: {model: fake-qa, backend: fake, engine_args: {max_model_len: 64, max_num_seqs: 64},
       max_queue: 64}
routes:
  qa: {engine: qa, first_token_timeout_s: 0.1}
"""

SMALL_CONFIG = """
engines:
  qa: {model: fake-qa, backend: fake, engine_args: {max_model_len: 64, max_num_seqs: 4},
       max_queue: 0}
  big: {model: fake-big, backend: fake, engine_args: {max_model_len: 64, max_num_seqs: 10},
        max_queue: 0}
routes:
  qa: {engine: qa}
  ab:
    engine: big
    variants:
      - {name: a, engine: big}
      - {name: b, engine: big}
"""


def chat(model: str = "qa", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "hello"}], **extra}


def test_cancellation_during_the_shielded_abort_leaks_nothing() -> None:
    """Clients hang up around a first-token timeout, many of them while the gateway awaits
    the (slow, vLLM-like) engine abort: afterwards nothing is outstanding anywhere."""
    gateway = FakeGateway(parse_config(TIMEOUT_CONFIG))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> tuple[dict[str, Any], list[int | None]]:
        async with running(app) as state:
            engine = gateway.engines["qa"]
            engine.behaviour.first_token_delay_s = 1.0
            engine.behaviour.abort_delay_s = 0.05
            hang_ups = [0.08 + 0.004 * i for i in range(40)]  # 80 ms .. 236 ms
            answers = await asyncio.gather(*(
                call(app, state, "POST", "/v1/chat/completions", chat(),
                     disconnect_after_s=t) for t in hang_ups))
            await asyncio.sleep(0.2)  # aborts still in flight settle
            status = (await call(app, state, "GET", "/admin/status")).json()
            assert engine.running == set()
            return status, [a.status for a in answers]

    status, codes = asyncio.run(scenario())
    assert set(codes) <= {504, 499, None}  # timed out, or the client left first
    assert status["active_requests"] == 0
    assert status["engines"]["qa"]["outstanding"] == 0
    assert status["engines"]["qa"]["in_flight"] == 0


def test_admission_weighs_a_request_by_its_choices() -> None:
    """qa runs 4 sequences, no queue: the standard bound is 3 units. n=3 takes all three."""
    gateway = FakeGateway(parse_config(SMALL_CONFIG))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> tuple[int, int | None, int | None]:
        async with running(app) as state:
            gateway.engines["qa"].behaviour.first_token_delay_s = 0.5
            wide = asyncio.create_task(call(app, state, "POST", "/v1/chat/completions",
                                            chat(n=3, max_tokens=2)))
            await asyncio.sleep(0.1)
            outstanding = (await call(app, state, "GET", "/admin/status")).json()[
                "engines"]["qa"]["outstanding"]
            one_more = await call(app, state, "POST", "/v1/chat/completions",
                                  chat(max_tokens=2))
            return outstanding, one_more.status, (await wide).status

    outstanding, one_more, wide = asyncio.run(scenario())
    assert outstanding == 3
    assert one_more == 429
    assert wide == 200


def test_compare_takes_one_unit_per_lane_and_choice() -> None:
    gateway = FakeGateway(parse_config(SMALL_CONFIG))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> tuple[int, int, int | None]:
        async with running(app) as state:
            gateway.engines["big"].behaviour.first_token_delay_s = 0.5
            both = asyncio.create_task(call(app, state, "POST", "/v1/compare",
                                            chat("ab", n=3, max_tokens=2)))
            await asyncio.sleep(0.1)
            during = (await call(app, state, "GET", "/admin/status")).json()[
                "engines"]["big"]["outstanding"]
            answer = await both
            after = (await call(app, state, "GET", "/admin/status")).json()[
                "engines"]["big"]["outstanding"]
            return during, after, answer.status

    during, after, status = asyncio.run(scenario())
    assert (during, after, status) == (6, 0, 200)


def test_a_client_leaving_during_the_engine_abort_still_releases_everything() -> None:
    """Deterministic worst moment: the first-token timeout fires at 50 ms, each engine abort
    takes 200 ms, and the client leaves at 350 ms — inside the gateway's shielded abort."""
    gateway = FakeGateway(parse_config(TIMEOUT_CONFIG.replace("0.1}", "0.05}")))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> tuple[dict[str, Any], list[str], str]:
        async with running(app) as state:
            engine = gateway.engines["qa"]
            engine.behaviour.first_token_delay_s = 5.0
            engine.behaviour.abort_delay_s = 0.2
            answer = await call(app, state, "POST", "/v1/chat/completions", chat(),
                                disconnect_after_s=0.35)
            assert answer.status in (None, 499)  # the client was gone before any answer
            during = (await call(app, state, "GET", "/admin/status")).json()
            await asyncio.sleep(0.3)  # the shielded abort completes on its own
            return during, list(engine.aborted), engine.requests[-1].request_id

    during, aborted, request_id = asyncio.run(scenario())
    assert during["active_requests"] == 0
    assert during["engines"]["qa"]["outstanding"] == 0
    assert during["engines"]["qa"]["in_flight"] == 0
    assert request_id in aborted  # and the engine request was aborted all the same


def test_a_client_leaving_while_its_stream_is_held_by_the_pacer_releases_everything() -> None:
    """Worst moment of pacing: the loop is behind, the stream waits between two events
    (router.http.pacing) and the client hangs up inside that wait."""
    from router.http.pacing import LoopPacer

    class Holding(LoopPacer):
        def hold_s(self) -> float:
            return 1.0

    gateway = FakeGateway(parse_config(TIMEOUT_CONFIG))
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> tuple[dict[str, Any], list[str], str, int | None]:
        async with running(app) as state:
            state["pacer"] = Holding()
            engine = gateway.engines["qa"]
            answer = await call(app, state, "POST", "/v1/chat/completions",
                                chat(stream=True, max_tokens=32), disconnect_after_s=0.2)
            await asyncio.sleep(0.1)  # the abort settles
            status = (await call(app, state, "GET", "/admin/status")).json()
            return status, list(engine.aborted), engine.requests[-1].request_id, answer.status

    status, aborted, request_id, code = asyncio.run(scenario())
    assert code == 200  # the stream had started: headers and the first tokens were sent
    assert request_id in aborted  # held, not finished: its engine request was aborted
    assert status["active_requests"] == 0
    assert status["engines"]["qa"]["outstanding"] == 0
    assert status["engines"]["qa"]["in_flight"] == 0
    assert status["engines"]["qa"]["engine_unfinished"] == 0
