"""The one load generator of every HTTP arm: vLLM's own serving benchmark, in-process.

`vllm.benchmarks.serve` is driven through its `add_cli_args` + `main`, so the HTTP arms see
the same client, the same prompts (random token ids, fixed seed) and the same metric code.
The direct arm reuses `sample_prompts` to get exactly the prompts this client would send.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.metrics import PERCENTILE_METRICS, PERCENTILES, Outcome, summarise
from benchmarks.spec import BenchSpec, Level


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


def split(args: argparse.Namespace, parts: int) -> list[argparse.Namespace]:
    """The load of `args` shared by `parts` client processes: prompts, streams (or request
    rate) divided; part i samples with seed + i, so the parts send different prompts and
    together as many as one client would. Every part keeps its per-request detail."""
    if parts <= 1:
        return [args]
    out = []
    for i in range(parts):
        sub = argparse.Namespace(**vars(args))
        sub.num_prompts = _share(args.num_prompts, parts, i)
        if args.max_concurrency is not None:
            sub.max_concurrency = _share(args.max_concurrency, parts, i)
        if math.isfinite(args.request_rate):
            sub.request_rate = args.request_rate / parts
        sub.seed = args.seed + i
        sub.save_detailed = True
        out.append(sub)
    if any(a.num_prompts < 1 or (a.max_concurrency is not None and a.max_concurrency < 1)
           for a in out):
        raise ValueError(f"{args.num_prompts} prompts at concurrency {args.max_concurrency} "
                         f"cannot be split over {parts} client processes")
    return out


def _share(total: int, parts: int, index: int) -> int:
    return total // parts + (1 if index < total % parts else 0)


class LoadClient:
    """Runs levels with vLLM's client: in this process, or split over `processes` client
    processes that start each level together (a barrier) and whose per-request outcomes are
    merged. One asyncio client saturates a core near 256 streams on a GPU, and its own
    queueing then shows up in every HTTP arm's TTFT (the in-process direct arm has none)."""

    def __init__(self, processes: int = 1) -> None:
        import multiprocessing as mp

        self.processes = max(1, processes)
        self._conns: list[Any] = []
        self._procs: list[Any] = []
        if self.processes == 1:
            return
        ctx = mp.get_context("spawn")  # no inherited event loop, threads or CUDA state
        self._barrier = ctx.Barrier(self.processes)
        for _ in range(self.processes):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_client_process, args=(child, self._barrier),
                               daemon=True)
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)

    def __enter__(self) -> LoadClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.send(None)
        for proc in self._procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
        self._conns, self._procs = [], []

    def run_level(self, args: argparse.Namespace, log_path: Path,
                  level: dict[str, Any]) -> dict[str, Any]:
        """One level; its console report goes to `log_path` (one file per process).
        `client_cpu_s` is the client's CPU over the level, `client_busiest_cpu_s` that of
        its busiest process (a process near one core is saturated)."""
        if self.processes == 1:
            before = time.process_time()
            result = _run_main(args, log_path)
            out = _finish(normalise(result), args)
            out["client_cpu_s"] = out["client_busiest_cpu_s"] = round(
                time.process_time() - before, 3)
            out["client_processes"] = 1
            return out
        subs = split(args, self.processes)
        try:
            for i, (conn, sub) in enumerate(zip(self._conns, subs, strict=True)):
                conn.send((sub, log_path.with_name(f"{log_path.stem}-p{i}{log_path.suffix}")))
            replies = [conn.recv() for conn in self._conns]
        except (EOFError, OSError) as exc:  # a client process is gone: no later level can run
            self._barrier.abort()  # frees the others from waiting for it
            codes = [proc.exitcode for proc in self._procs]
            raise RuntimeError(f"a client process exited (exit codes {codes})") from exc
        failures = [reply[1] for reply in replies if reply[0] != "ok"]
        if failures:
            self._barrier.reset()  # usable again for the next level
            raise RuntimeError(f"client process failed: {failures[0]}")
        parts, cpu = [reply[1] for reply in replies], [reply[2] for reply in replies]
        out = _finish(merge(parts, level), args)
        out["client_cpu_s"] = round(sum(cpu), 3)
        out["client_busiest_cpu_s"] = round(max(cpu), 3)
        out["client_processes"] = self.processes
        return out


def _run_main(args: argparse.Namespace, log_path: Path) -> dict[str, Any]:
    from vllm.benchmarks.serve import main

    with log_path.open("a") as log, contextlib.redirect_stdout(log):
        result: dict[str, Any] = main(args)
    return result


def _finish(out: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    if args.dataset_name == "random" and args.ignore_eos:
        out = fixed_output_tokens(out, int(args.random_output_len))
    return out


def _client_process(conn: Any, barrier: Any) -> None:
    """One client process: runs the levels it is sent until it is sent None."""
    import vllm.benchmarks.serve  # noqa: F401  (imported once, before any level's clock)

    while (job := conn.recv()) is not None:
        args, log_path = job
        try:
            barrier.wait(timeout=600)  # every process starts its level at the same moment
            before = time.process_time()
            result = _run_main(args, log_path)
            conn.send(("ok", _detail(result), time.process_time() - before))
        except Exception as exc:  # reported to the runner, which names the level
            conn.send(("error", f"{type(exc).__name__}: {exc}", 0.0))


DETAIL_KEYS = ("start_times", "ttfts", "itls", "output_lens", "input_lens", "errors")


def _detail(result: dict[str, Any]) -> dict[str, Any]:
    """The per-request lists of one part. vLLM 0.26 returns no `latencies`: a request's
    latency is then its TTFT plus its inter-token gaps (to the last content chunk; the usage
    chunk right after it is not counted)."""
    missing = [key for key in DETAIL_KEYS if key not in result]
    if missing:
        raise RuntimeError(f"this vLLM's benchmark client returns no {missing} "
                           "(per-request detail is needed to merge client processes)")
    detail = {key: result[key] for key in DETAIL_KEYS} | {"duration": result["duration"]}
    detail["latencies"] = result.get("latencies") or [
        ttft + sum(itl) if ttft else 0.0 for ttft, itl in zip(result["ttfts"], result["itls"],
                                                               strict=True)]
    return detail


def merge(parts: list[dict[str, Any]], level: dict[str, Any]) -> dict[str, Any]:
    """The metrics of one load from the per-request detail of the processes that shared it.

    The duration is the wall time of the whole load, first request sent to last finished
    (perf_counter is the system-wide monotonic clock), so a late-starting process lowers
    throughput rather than inflating it."""
    outcomes: list[Outcome] = []
    prompt_lens: list[int] = []
    ends: list[float] = []
    first_starts = []  # each part's first request
    for part in parts:
        rows = zip(part["start_times"], part["latencies"], part["ttfts"], part["itls"],
                   part["output_lens"], part["input_lens"], part["errors"], strict=True)
        part_starts = []
        for start, latency, ttft, itl, out_len, in_len, error in rows:
            ok = not error and latency > 0
            outcomes.append(Outcome(ok=ok, ttft=ttft, latency=latency, tokens=int(out_len),
                                    itl=list(itl), error=str(error or "")))
            prompt_lens.append(int(in_len))
            part_starts.append(start)
            if ok:
                ends.append(start + latency)
        if part_starts:
            first_starts.append(min(part_starts))
    if not ends:
        duration = max(float(part["duration"]) for part in parts)
    else:
        duration = max(ends) - min(first_starts)
    out = summarise(outcomes, prompt_lens, duration, level)
    # content events the client saw per output token (1.0: a token per event; below it,
    # the server coalesced tokens into fewer events)
    done = [o for o in outcomes if o.ok and o.tokens]
    out["events_per_token"] = (round(sum(len(o.itl) + 1 for o in done)
                                     / sum(o.tokens for o in done), 4) if done else None)
    out["client_start_skew_s"] = round(max(first_starts) - min(first_starts), 3) \
        if first_starts else None
    out["client_part_durations"] = ",".join(f"{float(p['duration']):.2f}" for p in parts)
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


def sample_prompts(args: argparse.Namespace, processes: int = 1) -> list[dict[str, Any]]:
    """The prompts (text, output length) that `LoadClient(processes).run_level(args)` sends."""
    if processes > 1:
        return [p for sub in split(args, processes) for p in sample_prompts(sub)]
    import random

    import numpy as np
    from vllm.benchmarks.datasets import get_samples
    from vllm.tokenizers import get_tokenizer

    random.seed(args.seed)  # as vllm.benchmarks.serve.main_async seeds before sampling
    np.random.seed(args.seed)
    tokenizer = get_tokenizer(args.tokenizer)
    samples = get_samples(args, tokenizer)
    return [{"prompt": s.prompt, "output_len": int(s.expected_output_len)} for s in samples]
