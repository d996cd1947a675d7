"""The memory plan `switchboard check` prints and a reload consults."""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.memory import (
    Device,
    Inventory,
    cgroup_memory_limit,
    detect_inventory,
    format_plan,
    gpus_needed,
    host_inventory,
    plan_memory,
)
from router.config import parse_config

GIB = 1 << 30
CONFIG = """
engines:
  a: {model: /nonexistent/a, engine_args: {kv_cache_memory_bytes: %d}}
  b: {model: /nonexistent/b, engine_args: {gpu_memory_utilization: 0.25}}
routes:
  a: {engine: a}
"""
H200 = 140 * GIB


def engines(text: str):  # type: ignore[no-untyped-def]
    return parse_config(text).engines


def gpu_host(*totals: int) -> Inventory:
    return Inventory(Device("cpu", 128 * GIB),
                     tuple(Device(f"cuda:{i}", total) for i, total in enumerate(totals)))


def test_kv_reservations_add_up_against_the_machine() -> None:
    plan = plan_memory(engines(CONFIG % (2 * GIB)), host_inventory(16 * GIB))
    a, b = plan.engines
    assert a.kv_bytes == 2 * GIB
    assert b.kv_bytes == 4 * GIB  # a quarter of the machine
    assert a.weights_bytes is None  # unknown until the model exists locally
    assert a.devices == ("cpu",)
    assert plan.fits


def test_a_plan_that_does_not_fit_says_so() -> None:
    plan = plan_memory(engines(CONFIG % (20 * GIB)), host_inventory(16 * GIB))
    assert not plan.fits
    assert "DOES NOT FIT" in format_plan(plan)
    assert plan.shortfalls()[0].startswith("cpu: needs")


def test_the_plan_says_how_a_reload_would_swap() -> None:
    roomy = format_plan(plan_memory(engines(CONFIG % GIB), host_inventory(64 * GIB)))
    assert "side by side, no downtime" in roomy
    tight = format_plan(plan_memory(engines(CONFIG % (6 * GIB)), host_inventory(16 * GIB)))
    assert "in place" in tight


TWO_GPU_ENGINES = """
engines:
  qa: {model: /nonexistent/qa, engine_args: {gpu_memory_utilization: %s}}
  translation: {model: /nonexistent/tr, engine_args: {gpu_memory_utilization: %s}}
routes:
  qa: {engine: qa}
"""


def test_gpu_engines_are_planned_on_gpu_memory_not_host_ram() -> None:
    # The H200 host has 128 GiB of RAM and a 140 GiB GPU: 0.4 + 0.4 of the GPU fits there,
    # whatever the host RAM (the old plan counted 0.4 x host RAM per engine).
    plan = plan_memory(engines(TWO_GPU_ENGINES % (0.4, 0.4)), gpu_host(H200))
    assert plan.fits
    assert [e.devices for e in plan.engines] == [("cuda:0",), ("cuda:0",)]
    assert plan.usage() == {"cuda:0": 2 * int(0.4 * H200)}
    assert "cpu" not in plan.usage()


def test_a_gpu_reload_coexists_when_old_and_new_fit_on_the_gpu() -> None:
    plan = plan_memory(engines(TWO_GPU_ENGINES % (0.3, 0.3)), gpu_host(H200))
    old_qa = plan.engine("qa")
    assert plan.fits_with([old_qa])  # 0.3 + 0.3 + 0.3 of the GPU
    crowded = plan_memory(engines(TWO_GPU_ENGINES % (0.4, 0.4)), gpu_host(H200))
    assert crowded.fits
    assert not crowded.fits_with([crowded.engine("qa")])  # 1.2 of the GPU


def test_parallel_engines_span_several_gpus_and_missing_ones_are_a_shortfall() -> None:
    text = """
engines:
  big:
    model: /nonexistent/big
    engine_args: {tensor_parallel_size: 2, gpu_memory_utilization: 0.5}
routes:
  big: {engine: big}
"""
    assert gpus_needed({"tensor_parallel_size": 2, "data_parallel_size": 2}) == 4
    two = plan_memory(engines(text), gpu_host(H200, H200))
    assert two.fits and two.engines[0].devices == ("cuda:0", "cuda:1")
    one = plan_memory(engines(text), gpu_host(H200))
    assert not one.fits
    assert any("cuda:1: not present" in line for line in one.shortfalls())


def test_an_engine_forced_onto_the_cpu_of_a_gpu_host_uses_host_memory() -> None:
    text = """
engines:
  small: {model: /nonexistent/s, engine_args: {device: cpu, kv_cache_memory_bytes: 1073741824}}
routes:
  small: {engine: small}
"""
    plan = plan_memory(engines(text), gpu_host(H200))
    assert plan.engines[0].devices == ("cpu",)


def test_a_non_numeric_memory_setting_names_its_yaml_path() -> None:
    with pytest.raises(ValueError, match=r"engines.qa.engine_args.gpu_memory_utilization"):
        plan_memory(engines(TWO_GPU_ENGINES % ("'lots'", 0.3)), gpu_host(H200))


def test_cgroup_limit_caps_host_memory(tmp_path: Path) -> None:
    (tmp_path / "memory.max").write_text("8589934592\n")
    assert cgroup_memory_limit(tmp_path) == 8 * GIB
    (tmp_path / "memory.max").write_text("max\n")
    assert cgroup_memory_limit(tmp_path) is None


def test_inventory_without_nvml_is_cpu_only() -> None:
    inventory = detect_inventory(gpu_probe=lambda: ())
    assert inventory.gpus == ()
    assert inventory.host.total_bytes > 0
