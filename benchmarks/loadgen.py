"""The one load generator of every HTTP arm: vLLM's own serving benchmark, in-process.

`vllm.benchmarks.serve` is driven through its `add_cli_args` + `main`, so the HTTP arms see
the same client, the same prompts (random token ids, fixed seed) and the same metric code.
The direct arm reuses `sample_prompts` to get exactly the prompts this client would send.
"""

from __future__ import annotations

import argparse
import contextlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.spec import BenchSpec, Level

PERCENTILE_METRICS = "ttft,tpot,itl,e2el"
PERCENTILES = "50,99"


@dataclass(frozen=True, slots=True)
class Dataset:
    """`random` (token ids of a fixed length) or a `sharegpt` JSON file of prompts."""

    name: str = "random"
    path: str = ""


def bench_args(spec: BenchSpec, level: Level, *, base_url: str, served_name: str,
               dataset: Dataset) -> argparse.Namespace:
    from vllm.benchmarks.serve import add_cli_args
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    argv = [
        "--backend", "openai-chat", "--endpoint", "/v1/chat/completions",
        "--base-url", base_url, "--model", spec.model, "--tokenizer", spec.model,
        "--served-model-name", served_name,
        "--dataset-name", dataset.name, "--num-prompts", str(level.num_prompts),
        "--seed", str(spec.seed), "--ignore-eos", "--temperature", "1.0",
        "--num-warmups", str(spec.warmups), "--disable-tqdm",
        "--percentile-metrics", PERCENTILE_METRICS, "--metric-percentiles", PERCENTILES,
        "--ready-check-timeout-sec", "0",
    ]  # fmt: skip
    output_len = level.output_len or spec.output_len
    if dataset.name == "random":
        argv += ["--random-input-len", str(spec.input_len),
                 "--random-output-len", str(output_len), "--random-range-ratio", "0"]
    else:
        argv += ["--dataset-path", dataset.path, "--sharegpt-output-len", str(output_len)]
    if level.rate is not None:
        argv += ["--request-rate", str(level.rate)]
    else:
        argv += ["--max-concurrency", str(level.concurrency)]
    parser = FlexibleArgumentParser()
    add_cli_args(parser)
    return parser.parse_args(argv)


def run_level(args: argparse.Namespace, log_path: Path) -> dict[str, Any]:
    """One `vllm bench serve` run; its console report goes to `log_path`."""
    from vllm.benchmarks.serve import main

    with log_path.open("a") as log, contextlib.redirect_stdout(log):
        result: dict[str, Any] = main(args)
    out = normalise(result)
    if args.dataset_name == "random" and args.ignore_eos:
        out = fixed_output_tokens(out, int(args.random_output_len))
    return out


def fixed_output_tokens(out: dict[str, Any], per_request: int) -> dict[str, Any]:
    """Output tok/s from the tokens every request was made to produce (`ignore_eos`, a fixed
    length) when the client counted fewer.

    vLLM's client reads `completion_tokens` only from a usage chunk whose `choices` is empty
    (vLLM's own shape); a proxy that sends usage beside `choices: [{"delta": {}}]` (LiteLLM)
    gets its text re-tokenised instead, which undercounts by a few percent. The client's own
    count stays in `output_throughput_counted` / `total_output_tokens_counted`."""
    completed, duration = int(out.get("completed") or 0), out.get("duration")
    counted = int(out.get("total_output_tokens") or 0)
    expected = completed * per_request
    if not duration or counted >= expected:
        return out
    return {**out, "total_output_tokens_counted": counted,
            "output_throughput_counted": out.get("output_throughput"),
            "total_output_tokens": expected, "output_throughput": expected / float(duration)}


def normalise(result: dict[str, Any]) -> dict[str, Any]:
    """The keys the report reads, and JSON-safe values (vLLM puts inf in request_rate)."""
    out = {k: v for k, v in result.items()
           if isinstance(v, int | float | str) and not isinstance(v, bool)}
    for key, value in list(out.items()):
        if isinstance(value, float) and not math.isfinite(value):
            out[key] = None
    out.setdefault("failed", max(0, int(result.get("num_prompts", 0) or 0)
                                 - int(result.get("completed", 0) or 0)))
    errors = [e for e in result.get("errors", []) or [] if e]
    out["first_error"] = str(errors[0])[:300] if errors else ""
    return out


def sample_prompts(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The prompts (text, output length) that `run_level(args)` sends, in order."""
    import random

    import numpy as np
    from vllm.benchmarks.datasets import get_samples
    from vllm.tokenizers import get_tokenizer

    random.seed(args.seed)  # as vllm.benchmarks.serve.main_async seeds before sampling
    np.random.seed(args.seed)
    tokenizer = get_tokenizer(args.tokenizer)
    samples = get_samples(args, tokenizer)
    return [{"prompt": s.prompt, "output_len": int(s.expected_output_len)} for s in samples]
