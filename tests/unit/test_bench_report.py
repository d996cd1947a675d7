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
