"""PNG plots of a summary: throughput and latency against concurrency, one line per arm."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks.report import ARM_TITLES, level_order

LATENCY_PANELS = (("median_ttft_ms", "TTFT p50 (ms)"), ("p99_ttft_ms", "TTFT p99 (ms)"),
                  ("median_tpot_ms", "TPOT p50 (ms)"), ("median_e2el_ms", "E2E p50 (ms)"))


def _series(rows: Mapping[str, Mapping[str, Any]], metric: str
            ) -> tuple[list[int], list[float], list[float], list[float]]:
    xs, ys, lo, hi = [], [], [], []
    for label in level_order(rows):
        row = rows[label]
        if not label.startswith("c") or "-o" in label or row.get(metric) is None:
            continue
        values = row.get(metric + "_all") or [row[metric]]
        xs.append(int(label[1:]))
        ys.append(row[metric])
        lo.append(row[metric] - min(values))
        hi.append(max(values) - row[metric])
    return xs, ys, lo, hi


def plot(summary: Mapping[str, Mapping[str, Mapping[str, Any]]], out_dir: Path,
         prefix: str, title: str) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for arm, rows in summary.items():
        for ax, metric, label in ((axes[0], "output_throughput", "output tokens/s"),
                                  (axes[1], "request_throughput", "requests/s")):
            xs, ys, lo, hi = _series(rows, metric)
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3,
                        label=ARM_TITLES.get(arm, arm))
            ax.set_xscale("log", base=2)
            ax.set_xlabel("concurrent streams")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{title}: throughput (median of repeats, bars = min..max)")
    fig.tight_layout()
    names.append(f"{prefix}-throughput.png")
    fig.savefig(out_dir / names[-1], dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    for ax, (metric, label) in zip(axes.flat, LATENCY_PANELS, strict=True):
        for arm, rows in summary.items():
            xs, ys, lo, hi = _series(rows, metric)
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3,
                        label=ARM_TITLES.get(arm, arm))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("concurrent streams")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(f"{title}: latency")
    fig.tight_layout()
    names.append(f"{prefix}-latency.png")
    fig.savefig(out_dir / names[-1], dpi=110)
    plt.close(fig)
    return names
