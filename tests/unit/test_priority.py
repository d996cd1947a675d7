"""A caller's tier follows its request everywhere: into the shadow copy (always behind live
traffic) and into every /v1/compare lane (VIP priority and the VIP admission bound)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from router.config import parse_config
from router.http.app import build_app
from tests.unit.asgi import call, running
from tests.unit.fakes import FakeGateway

CONFIG = """
auth: {keys_env: TEST_PRIORITY_KEYS, direct_engine_tiers: [standard]}
engines:
  qa: {model: fake-qa, backend: fake, engine_args: {max_num_seqs: 5}, max_queue: 0}
  cand: {model: fake-cand, backend: fake}
routes:
  qa:
    engine: qa
    shadow: {engine: cand, fraction: 1.0, name: candidate}
  ab:
    engine: qa
    variants:
      - {name: a, engine: qa}
"""
VIP = {"Authorization": "Bearer sk-vip"}
STANDARD = {"Authorization": "Bearer sk-std"}


def chat(model: str = "qa", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "hello"}], **extra}


@pytest.fixture()
def gateway(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGateway]:
    monkeypatch.setenv("TEST_PRIORITY_KEYS", "sk-std:standard,sk-vip:vip")
    yield FakeGateway(parse_config(CONFIG))


def test_a_vip_shadow_runs_behind_every_live_request(gateway: FakeGateway) -> None:
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> None:
        async with running(app) as state:
            for headers in (VIP, STANDARD):
                assert (await call(app, state, "POST", "/v1/chat/completions", chat(),
                                   headers=headers)).status == 200
            for _ in range(100):
                if len(gateway.engines["cand"].finished) == 2:
                    break
                await asyncio.sleep(0.01)

    asyncio.run(scenario())
    live_tiers = gateway.config.auth.tiers.values()
    shadow_vip, shadow_std = (r.priority for r in gateway.engines["cand"].requests)
    assert shadow_vip > max(live_tiers) and shadow_std > max(live_tiers)
    assert shadow_vip < shadow_std  # among shadows, the VIP's still goes first


def test_compare_lanes_carry_the_callers_tier(gateway: FakeGateway) -> None:
    """qa: 5 slots, no queue, 4 for standard traffic. With 4 held, a VIP compare still runs."""
    app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)

    async def scenario() -> tuple[int | None, int | None]:
        async with running(app) as state:
            qa = gateway.engines["qa"]
            qa.behaviour.first_token_delay_s = 0.3
            holders = [asyncio.create_task(call(app, state, "POST", "/v1/chat/completions",
                                                chat("engine:qa", max_tokens=1),
                                                headers=STANDARD)) for _ in range(4)]
            await asyncio.sleep(0.05)
            standard = await call(app, state, "POST", "/v1/compare", chat("ab", max_tokens=1),
                                  headers=STANDARD)
            vip = await call(app, state, "POST", "/v1/compare", chat("ab", max_tokens=1),
                             headers=VIP)
            await asyncio.gather(*holders)
            return standard.status, vip.status

    standard, vip = asyncio.run(scenario())
    assert standard == 429
    assert vip == 200
    assert gateway.engines["qa"].requests[-1].priority == gateway.config.auth.tiers["vip"]
