"""Benchmark report logic: level order, target levels, preset targets (no model, no server)."""

from __future__ import annotations

from benchmarks.report import check_targets, level_order, target_levels
from benchmarks.spec import Level, build_levels


def test_levels_with_longer_outputs_sort_after_their_concurrency_peers() -> None:
    labels = ["rate3", "c256-o256", "c8", "c256", "c1"]
    assert level_order(labels) == ["c1", "c8", "c256", "c256-o256", "rate3"]
    assert target_levels(labels) == ["c256", "c256-o256"]


def test_long_output_levels_are_added_per_concurrency() -> None:
    levels = build_levels([256], None, 4, 64, long_output_len=256)
    assert [lv.label for lv in levels] == ["c256", "c256-o256"]
    assert levels[1] == Level(1024, concurrency=256, output_len=256)


def test_gpu_targets_compare_against_direct_and_vllm() -> None:
    row = {"output_throughput": 100.0, "median_ttft_ms": 100.0}
    summary = {"switchboard": {"c256": {"output_throughput": 98.0, "median_ttft_ms": 140.0}},
               "direct": {"c256": row},
               "vllm": {"c256": {"output_throughput": 70.0, "median_ttft_ms": 300.0}}}
    checks = {(c["peer"], c["metric"]): c["met"]
              for c in check_targets(summary, ["c256"], "gpu")}
    assert checks == {("direct", "output_throughput"): True,  # 0.98 >= 0.97
                      ("direct", "median_ttft_ms"): False,  # 1.4 > 1.3
                      ("vllm", "output_throughput"): True}  # 1.4 >= 1.3


def test_the_multi_process_arm_gets_its_own_targets_even_run_alone() -> None:
    from benchmarks.report import METRICS, markdown

    def row(tok_s: float, ttft_ms: float) -> dict[str, object]:
        filled: dict[str, object] = {m: 10.0 for m in METRICS}
        filled.update(output_throughput=tok_s, median_ttft_ms=ttft_ms,
                      output_throughput_all=[tok_s], failed=0)
        return filled

    summary = {"direct": {"c256": row(100.0, 100.0)},
               "switchboard-mp": {"c256": row(99.0, 120.0)}}
    checks = {(c["peer"], c["metric"]): c["met"]
              for c in check_targets(summary, ["c256"], "gpu", "switchboard-mp")}
    assert checks[("direct", "output_throughput")] is True
    assert checks[("direct", "median_ttft_ms")] is True
    meta = {"title": "t", "date": "d", "command": "c", "machine": "m", "model": "x",
            "engine_args": {}, "input_len": 128, "output_len": 64, "seed": 0, "repeats": 1,
            "preset": "gpu", "api_processes": 4}
    doc = markdown(meta, summary, None, [])
    assert "## Targets — switchboard, 1 route, N API processes" in doc
    assert "`server.api_processes: 4`" in doc
