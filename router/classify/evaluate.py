"""Routing evaluation on a labelled JSONL set (see /work/shared/eval/README.md).

    python -m router.classify.evaluate [DATA] [--config routes.yaml] [--errors]

Prints accuracy, per-label recall/precision, the confusion matrix, per-slice results
(label, hard, language) and p50/p99 classification latency (steady state: after one untimed
pass, since the first requests also page the language-ID models into memory).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from router.classify.classifier import Classifier
from router.classify.config import RecognitionConfig

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "routing_dev.jsonl"
DATA_ENV = "SWITCHBOARD_ROUTING_DEV"
# Misrouted lines printed with the report; `--errors` lists them all.
MAX_ERRORS_SHOWN = 40


def default_data_path() -> Path:
    return Path(os.environ.get(DATA_ENV) or DEFAULT_DATA)


def default_routes() -> dict[str, RecognitionConfig]:
    """The default registry's recognition: `qa` is the default, `translation` has signals."""
    return {"qa": RecognitionConfig(), "translation": RecognitionConfig(signals="translation")}


@dataclass(slots=True)
class EvalReport:
    total: int
    accuracy: float
    recall: dict[str, float]
    precision: dict[str, float]
    hard_accuracy: float
    confusion: dict[str, dict[str, int]]
    slices: dict[str, tuple[int, float]]  # slice name → (lines, accuracy)
    latency_p50_ms: float
    latency_p99_ms: float
    errors: list[str] = field(default_factory=list)  # "id: gold → predicted (reason)"


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _ratio(hit: int, total: int) -> float:
    return hit / total if total else 0.0


def run_eval_routing(data_path: Path, classifier: Classifier, out: TextIO) -> EvalReport:
    rows = [json.loads(line) for line in data_path.read_text("utf-8").splitlines() if line.strip()]
    for row in rows:  # untimed pass: lingua pages its models in on first use
        classifier.classify(row["messages"])
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    slice_hits: dict[str, list[bool]] = defaultdict(list)
    latencies: list[float] = []
    errors: list[str] = []
    for row in rows:
        started = time.perf_counter()
        decision = classifier.classify(row["messages"])
        latencies.append((time.perf_counter() - started) * 1000)
        gold, predicted = str(row["label"]), decision.route
        confusion[gold][predicted] += 1
        correct = gold == predicted
        slice_hits[f"label={gold}"].append(correct)
        slice_hits[f"lang={row.get('lang', '?')}"].append(correct)
        if row.get("hard"):
            slice_hits["hard"].append(correct)
            slice_hits[f"hard,label={gold}"].append(correct)
        if not correct:
            errors.append(f"{row.get('id')}: {gold} → {predicted} ({decision.reason})")
    labels = sorted(set(confusion) | {p for c in confusion.values() for p in c})
    recall = {lab: _ratio(confusion[lab][lab], sum(confusion[lab].values())) for lab in labels}
    precision = {
        lab: _ratio(confusion[lab][lab], sum(confusion[g][lab] for g in labels)) for lab in labels
    }
    hits = sum(confusion[lab][lab] for lab in labels)
    slices = {name: (len(v), _ratio(sum(v), len(v))) for name, v in sorted(slice_hits.items())}
    report = EvalReport(
        total=len(rows),
        accuracy=_ratio(hits, len(rows)),
        recall=recall,
        precision=precision,
        hard_accuracy=slices.get("hard", (0, 0.0))[1],
        confusion={g: dict(confusion[g]) for g in labels},
        slices=slices,
        latency_p50_ms=_percentile(latencies, 0.5),
        latency_p99_ms=_percentile(latencies, 0.99),
        errors=errors,
    )
    _print_report(report, labels, out)
    return report


def _print_report(report: EvalReport, labels: list[str], out: TextIO) -> None:
    out.write(
        f"lines {report.total}  accuracy {report.accuracy:.2%}  hard {report.hard_accuracy:.2%}\n"
    )
    out.writelines(
        f"  {label:<14} recall {report.recall[label]:.2%}  "
        f"precision {report.precision[label]:.2%}\n"
        for label in labels
    )
    out.write("confusion (rows gold, columns predicted)\n")
    out.write("  " + " " * 14 + "".join(f"{lab:>14}" for lab in labels) + "\n")
    for gold in labels:
        row = report.confusion.get(gold, {})
        out.write(f"  {gold:<14}" + "".join(f"{row.get(p, 0):>14}" for p in labels) + "\n")
    out.write("slices\n")
    out.writelines(
        f"  {name:<28} {count:>4}  {accuracy:.2%}\n"
        for name, (count, accuracy) in report.slices.items()
    )
    out.write(f"latency p50 {report.latency_p50_ms:.3f} ms  p99 {report.latency_p99_ms:.3f} ms\n")
    if report.errors:
        shown = report.errors[:MAX_ERRORS_SHOWN]
        out.write(f"misrouted ({len(report.errors)}, id: gold → predicted (reason))\n")
        out.writelines(f"  {line}\n" for line in shown)
        if len(report.errors) > len(shown):
            out.write(f"  … {len(report.errors) - len(shown)} more (--errors lists all)\n")


def _classifier_from(config: str | None) -> Classifier:
    if config is None:
        return Classifier(default_routes(), "qa")
    from router.config import load_config

    gateway = load_config(config)
    routes: Mapping[str, RecognitionConfig] = {
        name: route.recognize for name, route in gateway.routes.items()
    }
    return Classifier(routes, gateway.default_route)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", type=Path, default=None)
    parser.add_argument("--config", help="routes.yaml whose recognize: blocks to use")
    parser.add_argument("--errors", action="store_true", help="list misrouted line ids")
    args = parser.parse_args(argv)
    data = args.data or default_data_path()
    if not data.exists():
        print(f"no evaluation data at {data} (set {DATA_ENV})", file=sys.stderr)
        return 2
    report = run_eval_routing(data, _classifier_from(args.config), sys.stdout)
    if args.errors and len(report.errors) > MAX_ERRORS_SHOWN:
        for line in report.errors[MAX_ERRORS_SHOWN:]:
            print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
