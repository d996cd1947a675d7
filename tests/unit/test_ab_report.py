"""ab-report statistics against hand-computed cases, and the CLI end to end."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson
import pytest

from router.cli import main
from router.tools.ab_report import (
    build_reports,
    error_rate_test,
    format_reports,
    mann_whitney,
    quantile,
)


def line(variant: str, ttft: float | None = 0.1, error: str | None = None,
         traffic: str = "live", tokens: int = 10, route: str = "translation") -> dict[str, Any]:
    return {"route": route, "variant": variant, "engine": f"e-{variant}", "traffic": traffic,
            "status": 200 if error is None else 503, "error_kind": error, "ttft_s": ttft,
            "tpot_s": None if ttft is None else ttft / 10, "duration_s": 1.0 + (ttft or 0),
            "completion_tokens": tokens}


def test_quantiles_match_hand_computation() -> None:
    values = [float(v) for v in range(1, 11)]
    # type 7: position (n-1)q = 4.5 -> 5 + 0.5 * (6 - 5); 8.55 -> 9 + 0.55 * (10 - 9)
    assert quantile(values, 0.5) == pytest.approx(5.5)
    assert quantile(values, 0.95) == pytest.approx(9.55)
    assert quantile([3.0], 0.95) == 3.0
    assert quantile([], 0.5) is None


def test_mann_whitney_matches_hand_computation() -> None:
    # Every variant value is above every baseline value: U(variant) = 3 * 3 = 9; the exact
    # two-sided p is 2 * P(U >= 9) = 2 / C(6, 3) = 2 / 20 = 0.1.
    u, p = mann_whitney([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    assert u == 9.0
    assert p == pytest.approx(0.1)
    # Interleaved: the variant wins 1 + 2 + 3 = 6 of the 9 pairs. Under H0 the 20 equally
    # likely U values 0..9 occur 1,1,2,3,3,3,3,2,1,1 times: P(U >= 6) = 7/20, p = 0.7.
    u, p = mann_whitney([1.0, 3.0, 5.0], [2.0, 4.0, 6.0])
    assert u == 6.0
    assert p == pytest.approx(0.7)


def test_two_proportion_z_matches_hand_computation() -> None:
    # 10/100 vs 20/100: pooled p = 0.15, se = sqrt(0.15 * 0.85 * 2 / 100) = 0.050498,
    # z = 0.1 / 0.050498 = 1.9803, two-sided p = 2 * (1 - Phi(1.9803)) = 0.04767.
    name, z, p = error_rate_test(10, 100, 20, 100)
    assert name == "two-proportion z"
    assert z == pytest.approx(0.1 / math.sqrt(0.15 * 0.85 * 0.02))
    assert z == pytest.approx(1.9803, abs=1e-4)
    assert p == pytest.approx(0.04767, abs=1e-4)


def test_fisher_exact_for_small_counts_matches_hand_computation() -> None:
    # [[0, 3], [3, 0]]: the table and its mirror are the two extremes of the hypergeometric
    # with P = 1 / C(6, 3) = 0.05 each: two-sided p = 0.1.
    name, _, p = error_rate_test(0, 3, 3, 3)
    assert name == "Fisher exact"
    assert p == pytest.approx(0.1)
    # 1/10 vs 4/10 (expected failures 2.5 < 5): p = 0.3034 (hypergeometric by hand:
    # P(X=k) over C(20,5)=15504 for k = 0, 1, 4, 5 -> (252 + 2100 + 2100 + 252) / 15504).
    _, _, p = error_rate_test(1, 10, 4, 10)
    assert p == pytest.approx((252 + 2100 + 2100 + 252) / 15504)


def test_report_groups_by_route_and_variant_and_tests_against_the_baseline() -> None:
    lines = (
        [line("a", ttft=t) for t in (0.1, 0.2, 0.3)]
        + [line("b", ttft=t) for t in (0.4, 0.5, 0.6)]
        + [line("a", ttft=None, error="engine_unavailable")]
        + [line("a", ttft=None, error="client_closed")]
        + [line("s", ttft=1.0, traffic="shadow")] * 2
        + [line("b", ttft=9.0, traffic="compare")]
        + [line("x", route="qa")]
    )
    reports = build_reports(lines, route="translation")
    assert len(reports) == 1
    report = reports[0]
    assert report.baseline == "a"  # the live variant with the most requests
    stats = {v.variant: v for v in report.variants}
    assert set(stats) == {"a", "b", "s"}  # compare traffic is left out by default
    a, b = stats["a"], stats["b"]
    assert (a.n, a.errors, a.client_closed) == (4, 1, 1)
    assert a.error_rate == pytest.approx(0.25)
    assert a.quantile("ttft_s", 0.5) == pytest.approx(0.2)
    assert b.quantile("ttft_s", 0.95) == pytest.approx(0.59)
    tests = {t.metric: t for t in report.tests["b"]}
    assert tests["ttft_s"].test == "Mann-Whitney U"
    assert tests["ttft_s"].p_value == pytest.approx(0.1)
    assert tests["ttft_s"].difference == pytest.approx(0.3)
    assert not tests["ttft_s"].significant
    assert tests["error_rate"].test == "Fisher exact"
    assert tests["error_rate"].p_value == pytest.approx(1.0)
    text = format_reports(reports)
    assert "route translation  (baseline: a; times in ms)" in text
    assert "TTFT          Mann-Whitney U: U=9, p=0.1 (n=3 vs 3, median +300.0 ms)" in text
    assert "-> not significant" in text


def test_large_difference_is_significant() -> None:
    lines = [line("a", ttft=0.1 + i / 1000) for i in range(40)]
    lines += [line("b", ttft=0.2 + i / 1000) for i in range(40)]
    report = build_reports(lines, baseline="b")[0]
    assert report.baseline == "b"
    ttft = next(t for t in report.tests["a"] if t.metric == "ttft_s")
    assert ttft.significant and ttft.p_value < 1e-10


def test_cli_prints_the_report_json_and_a_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records.jsonl"
    lines = [line("a", ttft=0.1 + i / 100) for i in range(10)]
    lines += [line("b", ttft=0.3 + i / 100) for i in range(10)]
    records.write_bytes(b"".join(orjson.dumps(item) + b"\n" for item in lines) + b'{"torn')
    plot = tmp_path / "latency.png"
    assert main(["ab-report", str(records), "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "20 records (1 unreadable lines skipped)" in out
    assert "b vs a:" in out and "significant at 0.05" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["ab-report", str(records), "--json"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert data[0]["route"] == "translation"
    assert {v["variant"]: v["n"] for v in data[0]["variants"]} == {"a": 10, "b": 10}


def test_cli_uses_the_configs_record_file(tmp_path: Path) -> None:
    config = tmp_path / "routes.yaml"
    config.write_text("engines: {qa: {model: m, backend: fake}}\nroutes: {qa: {engine: qa}}\n")
    assert main(["ab-report", "--config", str(config)]) == 1  # record_file not set
    config.write_text(f"server: {{record_file: {tmp_path / 'r.jsonl'}}}\n"
                      "engines: {qa: {model: m, backend: fake}}\nroutes: {qa: {engine: qa}}\n")
    assert main(["ab-report", "--config", str(config)]) == 1  # no such file yet
    (tmp_path / "r.jsonl").write_bytes(orjson.dumps(line("a")) + b"\n")
    assert main(["ab-report", "--config", str(config)]) == 0
