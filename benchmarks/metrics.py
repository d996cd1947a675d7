"""Per-request outcomes → the metrics `vllm bench serve` reports, with its definitions.

One place for both arms that cannot use the client's own metric code: the in-process direct
arm, and a load split over several client processes (whose per-request outcomes are merged
before any percentile is taken; percentiles of parts cannot be combined).
TTFT is submit → first token, ITL the gaps between deltas, TPOT = (E2E - TTFT) / (tokens - 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PERCENTILE_METRICS = "ttft,tpot,itl,e2el"
PERCENTILES = "50,99"


@dataclass
class Outcome:
    ok: bool = False
    ttft: float = 0.0
    latency: float = 0.0
    tokens: int = 0
    itl: list[float] = field(default_factory=list)
    error: str = ""


def summarise(outcomes: Sequence[Outcome], prompt_lens: Sequence[int], duration: float,
              level: Mapping[str, Any]) -> dict[str, Any]:
    done = [o for o in outcomes if o.ok]
    output = sum(o.tokens for o in done)
    prompt = sum(n for n, o in zip(prompt_lens, outcomes, strict=True) if o.ok)
    result: dict[str, Any] = {
        "completed": len(done), "failed": len(outcomes) - len(done),
        "num_prompts": len(outcomes), "duration": duration,
        "max_concurrency": level.get("concurrency"), "request_rate": level.get("rate"),
        "total_input_tokens": prompt, "total_output_tokens": output,
        "request_throughput": len(done) / duration, "output_throughput": output / duration,
        "total_token_throughput": (output + prompt) / duration,
        "first_error": next((o.error for o in outcomes if o.error), ""),
    }
    series = {
        "ttft": [o.ttft for o in done],
        "tpot": [(o.latency - o.ttft) / (o.tokens - 1) for o in done if o.tokens > 1],
        "itl": [gap for o in done for gap in o.itl],
        "e2el": [o.latency for o in done],
    }
    for name, values in series.items():
        data = np.asarray(values or [0.0]) * 1000
        result[f"mean_{name}_ms"] = float(data.mean())
        result[f"median_{name}_ms"] = float(np.median(data))
        result[f"std_{name}_ms"] = float(data.std())
        for p in PERCENTILES.split(","):
            result[f"p{p}_{name}_ms"] = float(np.percentile(data, float(p)))
    return result
