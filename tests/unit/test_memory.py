"""The memory plan `switchboard check` prints and a reload consults."""

from __future__ import annotations

from engines.memory import format_plan, plan_memory
from router.config import parse_config

GIB = 1 << 30
CONFIG = """
engines:
  a: {model: /nonexistent/a, engine_args: {kv_cache_memory_bytes: %d}}
  b: {model: /nonexistent/b, engine_args: {gpu_memory_utilization: 0.25}}
routes:
  a: {engine: a}
"""


def test_kv_reservations_add_up_against_the_machine() -> None:
    plan = plan_memory(parse_config(CONFIG % (2 * GIB)), available_bytes=16 * GIB)
    a, b = plan.engines
    assert a.kv_bytes == 2 * GIB
    assert b.kv_bytes == 4 * GIB  # a quarter of the machine
    assert a.weights_bytes is None  # unknown until the model exists locally
    assert plan.fits


def test_a_plan_that_does_not_fit_says_so() -> None:
    plan = plan_memory(parse_config(CONFIG % (20 * GIB)), available_bytes=16 * GIB)
    assert not plan.fits
    assert "DOES NOT FIT" in format_plan(plan)


def test_the_plan_says_how_a_reload_would_swap() -> None:
    roomy = format_plan(plan_memory(parse_config(CONFIG % GIB), available_bytes=64 * GIB))
    assert "side by side, no downtime" in roomy
    tight = format_plan(plan_memory(parse_config(CONFIG % (6 * GIB)), available_bytes=16 * GIB))
    assert "in place" in tight
