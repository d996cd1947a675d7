"""Classification latency for 2,000-character requests (the budget: p99 ≤ 2 ms).

    python benchmarks/bench_classify.py [--rounds N]

Times `Classifier.classify` with the default registry (qa default, translation signals) on a
mix of 2,000-character requests: translation instructions in several languages with long
payloads, and long qa requests that mention languages. Prints p50/p90/p99/max in ms of wall
time and of the thread's CPU time (on a shared machine, wall time also counts the moments the
scheduler gave the core to someone else; CPU time is the classifier's own cost). Run it on
one core: `taskset -c 1 python benchmarks/bench_classify.py`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from router.classify import Classifier
from router.classify.evaluate import default_routes

SIZE = 2000
FILLERS = {
    "en": "The committee met on Tuesday to review the budget and discuss next year's plans. ",
    "de": "Die Erfindung betrifft eine Vorrichtung zur Kühlung von synthetischen Fäden. ",
    "zh": "图灵测试是英国计算机科学家艾伦·图灵于1950年提出的思想实验，目的是测试机器的智力。",
    "ar": "وفي هذا الصدد، نتطلع إلى استمرار التعاون الفعال بين الوكالات المعنية. ",
    "ja": "高校生探偵が組織の行方を追いながら数々の事件を解決していく推理漫画です。",
    "ru": "Комитет собрался во вторник, чтобы обсудить бюджет и планы на следующий год. ",
}
HEADS = (
    ("Translate the following text into French:\n\n", "en"),
    ("请将以下文章翻译成英文：", "zh"),
    ("Übersetze den folgenden Text ins Englische:\n", "de"),
    ("Переведи на английский:\n", "ru"),
    ("次の文章を英語に翻訳してください。\n", "ja"),
    ("In this task, you are given a sentence in Arabic; translate it into English.\n\n", "ar"),
    ("Summarise this report in three bullet points, in plain English:\n\n", "en"),
    ("Is this translation correct? Please check it carefully.\n\n", "de"),
    ("请总结下面这篇文章的主要观点。\n", "zh"),
    ("Explain what the following passage says about machine translation.\n\n", "en"),
    ("Given a passage in English, produce the same passage in Thai.\n\n", "en"),
    ("请用英文回答下面的问题，并说明理由：", "zh"),
)


def requests() -> list[list[dict[str, object]]]:
    """Every head with its payload rotated six ways: 72 distinct 2,000-character requests."""
    out: list[list[dict[str, object]]] = []
    for head, lang in HEADS:
        filler = FILLERS[lang]
        for shift in range(0, len(filler), max(1, len(filler) // 6))[:6]:
            rotated = filler[shift:] + filler[:shift]
            body = (rotated * (SIZE // len(rotated) + 1))[: SIZE - len(head)]
            out.append([{"role": "user", "content": head + body}])
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    started = time.perf_counter()
    classifier = Classifier(default_routes(), "qa")
    print(f"construction {time.perf_counter() - started:.2f} s")
    batch = requests()
    assert all(len(str(m[0]["content"])) == SIZE for m in batch)
    cold = []
    for messages in batch:  # warm-up: the first requests page language-ID models in
        t0 = time.perf_counter()
        classifier.classify(messages)
        cold.append((time.perf_counter() - t0) * 1000)
    print(f"first pass (cold): max {max(cold):.3f} ms, median {statistics.median(cold):.3f} ms")
    timings: list[float] = []
    cpu: list[float] = []
    for _ in range(args.rounds):
        for messages in batch:
            c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
            classifier.classify(messages)
            timings.append((time.perf_counter_ns() - t0) / 1e6)
            cpu.append((time.thread_time_ns() - c0) / 1e6)
    print(f"{len(timings)} classifications of {SIZE}-char requests:")
    for name, values in (("wall", timings), ("cpu", cpu)):
        values.sort()
        quantiles = statistics.quantiles(values, n=100)
        print(
            f"  {name:<4} p50 {quantiles[49]:.3f} ms  p90 {quantiles[89]:.3f} ms  "
            f"p99 {quantiles[98]:.3f} ms  max {values[-1]:.3f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
