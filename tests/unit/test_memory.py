"""The memory plan `switchboard check` prints and a reload consults."""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from engines.config import EngineConfig
from engines.memory import (
    Device,
    Inventory,
    cgroup_memory_limit,
    detect_inventory,
    format_plan,
    host_inventory,
    plan_memory,
)
from engines.placement import (
    CUDA_VISIBLE_DEVICES,
    EnvironmentLock,
    data_parallel_ranks,
    gpus_needed,
    parse_gpus,
    visible_devices_for,
)
from engines.vllm_engine import admission_seqs
from router import cli
from router.config import ConfigError, parse_config

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


# --- placement: parallel engines, GPU pins, Ray, non-vLLM backends ---------------------------


def vllm_engine(name: str, gpus: tuple[int, ...] | None = None, **args: object) -> EngineConfig:
    return EngineConfig(name, f"/nonexistent/{name}", engine_args=args, gpus=gpus)


def by_name(*configs: EngineConfig) -> dict[str, EngineConfig]:
    return {c.name: c for c in configs}


def test_engines_pinned_to_their_own_gpu_fit_where_packed_ones_do_not() -> None:
    packed = plan_memory(by_name(vllm_engine("qa", gpu_memory_utilization=0.6),
                                 vllm_engine("mt", gpu_memory_utilization=0.6)),
                         gpu_host(H200, H200))
    assert not packed.fits  # both on cuda:0, 1.2 of it
    assert packed.shortfalls()[0].startswith("cuda:0: needs")
    pinned = plan_memory(by_name(vllm_engine("qa", (0,), gpu_memory_utilization=0.6),
                                 vllm_engine("mt", (1,), gpu_memory_utilization=0.6)),
                         gpu_host(H200, H200))
    assert pinned.fits
    assert [e.devices for e in pinned.engines] == [("cuda:0",), ("cuda:1",)]
    assert pinned.usage() == {"cuda:0": int(0.6 * H200), "cuda:1": int(0.6 * H200)}


def test_engines_pinned_to_the_same_gpu_add_up_and_overlaps_that_do_not_fit_are_refused() -> None:
    sharing = plan_memory(by_name(vllm_engine("qa", (1,), gpu_memory_utilization=0.4),
                                  vllm_engine("mt", (1,), gpu_memory_utilization=0.4)),
                          gpu_host(H200, H200))
    assert sharing.fits and sharing.usage() == {"cuda:1": 2 * int(0.4 * H200)}
    crowded = plan_memory(by_name(vllm_engine("qa", (1,), gpu_memory_utilization=0.6),
                                  vllm_engine("mt", (1,), gpu_memory_utilization=0.6)),
                          gpu_host(H200, H200))
    assert not crowded.fits
    assert crowded.shortfalls() == [f"cuda:1: needs {2 * int(0.6 * H200) / GIB:.2f} GiB of "
                                    f"{H200 / GIB:.2f} GiB"]


def test_a_data_parallel_engine_is_placed_on_its_pinned_gpus_in_order() -> None:
    plan = plan_memory(by_name(vllm_engine("dp", (3, 1), data_parallel_size=2,
                                           gpu_memory_utilization=0.5)),
                       gpu_host(H200, H200, H200, H200))
    engine = plan.engines[0]
    assert engine.devices == ("cuda:3", "cuda:1")
    assert engine.gpus_needed == 2 and engine.pinned


def test_a_pin_to_a_gpu_that_is_not_there_is_a_shortfall() -> None:
    plan = plan_memory(by_name(vllm_engine("qa", (2,), gpu_memory_utilization=0.3)),
                       gpu_host(H200, H200))
    assert not plan.fits
    assert plan.shortfalls() == ["cuda:2: not present (visible GPUs: 2)"]


@pytest.mark.parametrize(("gpus", "args", "message"), [
    ((0,), {"tensor_parallel_size": 2}, r"lists 1 GPUs but the engine spans 2 "
                                        r"\(tensor_parallel_size=2\)"),
    ((0, 1, 2), {"tensor_parallel_size": 2, "data_parallel_size": 2},
     r"lists 3 GPUs but the engine spans 4 \(tensor_parallel_size=2 × data_parallel_size=2\)"),
    ((0, 0), {"data_parallel_size": 2}, "lists a GPU twice"),
    ((0, 1), {"tensor_parallel_size": 2, "distributed_executor_backend": "ray"},
     "cannot pin an engine that Ray places"),
])
def test_a_gpu_list_that_does_not_match_the_engine_names_its_yaml_path(
        gpus: tuple[int, ...], args: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=r"^engines\.big\.gpus: " + message):
        plan_memory(by_name(vllm_engine("big", gpus, **args)), gpu_host(H200, H200))


@pytest.mark.parametrize("raw", [[], [-1], ["0"], [True], 1, "0,1"])
def test_parse_gpus_refuses_what_is_not_a_list_of_gpu_indices(raw: object) -> None:
    with pytest.raises(ValueError, match="non-empty list of GPU indices"):
        parse_gpus(raw, {})


def test_parse_gpus_refuses_gpus_beside_vllms_own_device_ids() -> None:
    assert parse_gpus(None, {}) is None
    assert parse_gpus([1, 0], {"tensor_parallel_size": 2}) == (1, 0)
    with pytest.raises(ValueError, match=r"either with gpus or with engine_args\.device_ids"):
        parse_gpus([1], {"device_ids": [1]})


def test_vllms_own_device_ids_place_the_engine_too() -> None:
    text = """
engines:
  qa: {model: /nonexistent/qa, engine_args: {device_ids: [1], gpu_memory_utilization: 0.5}}
routes:
  qa: {engine: qa}
"""
    plan = plan_memory(engines(text), gpu_host(H200, H200))
    assert plan.engines[0].devices == ("cuda:1",)
    bad = text.replace("device_ids: [1]", "device_ids: [0, 1]")
    with pytest.raises(ValueError, match=r"engines\.qa\.engine_args\.device_ids: lists 2"):
        plan_memory(engines(bad), gpu_host(H200, H200))


def test_engines_that_ray_places_are_listed_but_not_placed_on_this_host() -> None:
    text = """
engines:
  big:
    model: /nonexistent/big
    engine_args: {tensor_parallel_size: 4, pipeline_parallel_size: 2,
                  distributed_executor_backend: ray}
  wide: {model: /nonexistent/w, engine_args: {data_parallel_size: 4, data_parallel_backend: ray}}
routes:
  big: {engine: big}
"""
    plan = plan_memory(engines(text), gpu_host(H200))  # one local GPU, 12 asked of Ray
    assert plan.fits and plan.usage() == {}
    assert [(e.gpus_needed, e.placed_by_ray) for e in plan.engines] == [(8, True), (4, True)]
    printed = format_plan(plan)
    assert "GPUs: needs 8, placed by Ray" in printed and "not checked on this host" in printed


@pytest.mark.parametrize("backend", ["fake", "remote"])
def test_engines_that_are_not_in_process_vllm_place_nothing(backend: str) -> None:
    remote = EngineConfig("up", "org/model", engine_args={"tensor_parallel_size": 8},
                          backend=backend)
    plan = plan_memory({"up": remote}, gpu_host(H200))
    assert plan.engines[0].placements == {} and plan.usage() == {} and plan.fits
    assert f"up: no memory here ({backend} engine)" in format_plan(plan)


def test_the_printed_plan_says_which_gpus_each_engine_needs_and_gets() -> None:
    plan = plan_memory(by_name(vllm_engine("qa", (1,), gpu_memory_utilization=0.4),
                               vllm_engine("tp", tensor_parallel_size=2,
                                           gpu_memory_utilization=0.4)),
                       gpu_host(H200, H200))
    printed = format_plan(plan)
    assert "    GPUs: needs 1, gets cuda:1 (pinned)" in printed
    assert "    GPUs: needs 2, gets cuda:0, cuda:1 (the first visible)" in printed
    assert "  cuda:1: " in printed and "fits" in printed


def test_gpu_count_is_the_product_of_vllms_parallel_sizes() -> None:
    assert gpus_needed({}) == 1
    assert gpus_needed({"tensor_parallel_size": 2, "pipeline_parallel_size": 2,
                        "data_parallel_size": 2}) == 8
    assert gpus_needed({"tensor_parallel_size": 2, "prefill_context_parallel_size": 2}) == 4


# --- admission: one engine's bound over its data-parallel ranks ------------------------------


def vllm_config(max_num_seqs: int, **parallel: object) -> SimpleNamespace:
    return SimpleNamespace(scheduler_config=SimpleNamespace(max_num_seqs=max_num_seqs),
                           parallel_config=SimpleNamespace(**parallel))


def test_admission_is_max_num_seqs_times_the_data_parallel_ranks_the_engine_balances() -> None:
    assert admission_seqs(vllm_config(256, data_parallel_size=1)) == 256
    assert admission_seqs(vllm_config(256, data_parallel_size=2)) == 512
    # Hybrid load balancing: this AsyncLLM spreads over its node's ranks only.
    assert admission_seqs(vllm_config(128, data_parallel_size=4, data_parallel_size_local=2,
                                      data_parallel_hybrid_lb=True)) == 256
    # An external load balancer sends each rank its own traffic: one rank's worth here.
    assert admission_seqs(vllm_config(128, data_parallel_size=4,
                                      data_parallel_external_lb=True)) == 128
    assert data_parallel_ranks(SimpleNamespace()) == 1  # a vLLM without these fields


# --- the start lock: CUDA_VISIBLE_DEVICES for pinned engine starts -----------------------------


def test_visible_devices_index_into_the_gateways_own_list() -> None:
    assert visible_devices_for((1,), None) == "1"
    assert visible_devices_for((1, 0), "4,6") == "6,4"
    assert visible_devices_for((0,), "GPU-aaaa,GPU-bbbb") == "GPU-aaaa"
    with pytest.raises(ValueError, match=r"GPUs \[2\] are not visible"):
        visible_devices_for((2,), "4,6")


def test_a_pinned_start_narrows_the_environment_alone_and_restores_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CUDA_VISIBLE_DEVICES, "4,6")
    lock = EnvironmentLock()
    seen: list[str | None] = []
    entered = threading.Event()
    release = threading.Event()

    def pinned_start() -> None:
        with lock.for_start((1,), {}):
            seen.append(os.environ.get(CUDA_VISIBLE_DEVICES))
            entered.set()
            release.wait(5)

    def plain_start() -> None:
        with lock.for_start(None, {}):
            seen.append(os.environ.get(CUDA_VISIBLE_DEVICES))

    first = threading.Thread(target=pinned_start)
    first.start()
    assert entered.wait(5)
    second = threading.Thread(target=plain_start)
    second.start()
    time.sleep(0.2)
    assert seen == ["6"]  # the plain start waits: it must not spawn with the pinned devices
    assert lock.visible_devices() == "4,6"  # a plan made meanwhile still sees every GPU
    release.set()
    first.join(5)
    second.join(5)
    assert seen == ["6", "4,6"]
    assert os.environ[CUDA_VISIBLE_DEVICES] == "4,6"


def test_a_pinned_start_without_a_gateway_list_removes_the_variable_after(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CUDA_VISIBLE_DEVICES, raising=False)
    lock = EnvironmentLock()
    with pytest.raises(RuntimeError), lock.for_start((0, 1), {"tensor_parallel_size": 2}):
        assert os.environ[CUDA_VISIBLE_DEVICES] == "0,1"
        raise RuntimeError("the engine failed to start")
    assert CUDA_VISIBLE_DEVICES not in os.environ
    assert lock.visible_devices() is None


def test_plain_starts_share_the_lock() -> None:
    lock = EnvironmentLock()
    inside = threading.Barrier(2, timeout=5)

    def start() -> None:
        with lock.for_start(None, {}):
            inside.wait()  # both starts are inside at once, or this times out

    threads = [threading.Thread(target=start) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert not inside.broken


def test_starts_that_profile_device_memory_never_overlap() -> None:
    # vLLM sizes its KV cache from the accelerator memory it sees free while it profiles:
    # a neighbour starting on the same device meanwhile made the second of two engines
    # fail on an H100 ("No available memory for the cache blocks").
    lock = EnvironmentLock()
    inside = 0
    most = 0
    guard = threading.Lock()

    def start() -> None:
        nonlocal inside, most
        with lock.for_start(None, {}, profiles_device=True):
            with guard:
                inside += 1
                most = max(most, inside)
            time.sleep(0.05)
            with guard:
                inside -= 1

    threads = [threading.Thread(target=start) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert most == 1


# --- switchboard check on fake GPU inventories ------------------------------------------------


CHECK_CONFIG = """
engines:
  qa: {model: /nonexistent/qa, engine_args: {gpu_memory_utilization: 0.6}}
  tp: {model: /nonexistent/tp, engine_args: {tensor_parallel_size: 2,
                                             gpu_memory_utilization: 0.3}}
routes:
  qa: {engine: qa}
"""


def run_check(tmp_path: Path, text: str, inventory: Inventory,
              capsys: pytest.CaptureFixture[str],
              monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.setattr(cli, "_engine_arg_names", lambda: None)  # no vLLM import here
    path = tmp_path / "routes.yaml"
    path.write_text(text)
    code = cli.cmd_check(argparse.Namespace(config=str(path)), inventory)
    return code, capsys.readouterr().out


def test_check_prints_each_engines_gpus_and_passes_a_plan_that_fits(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run_check(tmp_path, CHECK_CONFIG, gpu_host(H200, H200), capsys, monkeypatch)
    assert code == 0, out
    assert "  qa: " in out and "    GPUs: needs 1, gets cuda:0 (the first visible)" in out
    assert "    GPUs: needs 2, gets cuda:0, cuda:1 (the first visible)" in out
    assert "\n  fits\n" in out


def test_check_exits_non_zero_when_the_gpus_are_not_there_or_too_small(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run_check(tmp_path, CHECK_CONFIG, gpu_host(H200), capsys, monkeypatch)
    assert code == 2
    assert "DOES NOT FIT: cuda:1: not present (visible GPUs: 1)" in out
    tight = CHECK_CONFIG.replace("0.6", "0.8")  # 0.8 + 0.3 of cuda:0
    code, out = run_check(tmp_path, tight, gpu_host(H200, H200), capsys, monkeypatch)
    assert code == 2 and "DOES NOT FIT: cuda:0: needs" in out


def test_check_refuses_a_config_whose_memory_settings_are_not_numbers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    code, _ = run_check(tmp_path, CHECK_CONFIG.replace("0.6", "'most'"), gpu_host(H200),
                        capsys, monkeypatch)
    assert code == 1


def test_routes_yaml_pins_engines_with_gpus() -> None:
    text = """
engines:
  qa: {model: /nonexistent/qa, gpus: [1], engine_args: {gpu_memory_utilization: 0.6}}
  tp: {model: /nonexistent/tp, gpus: [1, 0],
       engine_args: {tensor_parallel_size: 2, gpu_memory_utilization: 0.3}}
routes:
  qa: {engine: qa}
"""
    plan = plan_memory(engines(text), gpu_host(H200, H200))
    assert [e.devices for e in plan.engines] == [("cuda:1",), ("cuda:1", "cuda:0")]
    assert plan.fits and plan.usage() == {"cuda:1": int(0.6 * H200) + int(0.3 * H200),
                                          "cuda:0": int(0.3 * H200)}
    with pytest.raises(ConfigError, match=r"engines\.qa\.gpus"):
        parse_config(text.replace("gpus: [1]", "gpus: [0, 1]"))
