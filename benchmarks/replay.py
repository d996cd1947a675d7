"""GPU-rate replay on a CPU: everything above vLLM's engine core runs for real, at the rate
an H200 produces tokens, so the front-end costs that decide issue 11 can be measured here.

On the H200 the engine core (scheduler, GPU) runs in its own process; the process that
holds the `AsyncLLM` — the gateway, or the direct driver — turns its outputs into answers:
vLLM's output processor and incremental detokenizer, then (gateway only) the pipeline, SSE
and HTTP. When that process falls behind, the GPU's throughput is lost. This module swaps
the engine-core client of `AsyncLLM` for `ReplayCore`, which schedules requests and emits
one token per running request per step on its own thread and clock (an engine core never
waits for its front-end), with a step time modelled on the H200 run of
`benchmarks/results/gpu-2026-12-02.md` (256 streams decode at ~30k tokens/s there). Both
arms get the same modelled engine; what differs is only the front-end, which is real code.

    python -m benchmarks.replay                       # direct vs switchboard, c256, 64 and 256 out
    python -m benchmarks.replay --arms switchboard --profile   # py-spy on the gateway

The model folder only provides the tokenizer and config (no weights are loaded). A bench,
never a test: the engine is a model of one, not vLLM's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

from benchmarks.arms import child_env, free_port, stop, wait_ready
from benchmarks.cpulock import cpu_lock
from benchmarks.overhead import pinned

RESULTS = Path(__file__).resolve().parent / "results"
STEP_ENV = "SWITCHBOARD_REPLAY_STEP"
# The front-end's event loop has core 0 to itself; everything else (ReplayCore, the tokenizer
# worker, the gateway arm's client) shares core 1.
LOOP_CPU, OTHER_CPU = 0, 1


@dataclass(frozen=True, slots=True)
class StepModel:
    """Seconds per engine step: a fixed part, per decoding sequence, per prefill token.

    Defaults from the H200 run (random 1.4 B Qwen2, bf16, CUDA graphs): 256 sequences decode
    in ~8.5 ms per step (29,936 tok/s in the direct arm at 256 out), prefill of 2,048 tokens
    costs a few ms more.
    """

    base_s: float = 0.003
    per_seq_s: float = 0.0000215
    per_prefill_token_s: float = 0.0000015
    prefill_budget: int = 2048  # max_num_batched_tokens
    max_num_seqs: int = 256

    def step_s(self, decoding: int, prefill_tokens: int) -> float:
        return (self.base_s + self.per_seq_s * decoding
                + self.per_prefill_token_s * prefill_tokens)


@dataclass(slots=True)
class _Running:
    request_id: str
    prompt: list[int]
    max_tokens: int
    emitted: int = 0


class ReplayCore:
    """Stands in for `AsyncLLM.engine_core` (an `AsyncMPClient`): the calls AsyncLLM makes
    on the hot path, with a scheduler of the same shape (chunk-free prefill within a token
    budget, then one token per running sequence per step, `max_tokens` then finish)."""

    def __init__(self, model: StepModel) -> None:
        self.model = model
        self.engine_ranks_managed = [0]
        self.resources = SimpleNamespace(engine_dead=False, engine_manager=None)
        self._commands: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._outputs: asyncio.Queue[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    # -- the client API AsyncLLM calls --------------------------------------------------
    async def add_request_async(self, request: Any) -> None:
        self._ensure_thread()
        params = request.sampling_params
        self._commands.put(("add", _Running(request.request_id, list(request.prompt_token_ids),
                                            int(params.max_tokens or 16))))
        self._wake.set()

    async def abort_requests_async(self, request_ids: Sequence[str]) -> None:
        self._commands.put(("abort", list(request_ids)))
        self._wake.set()

    async def get_output_async(self) -> Any:
        self._ensure_thread()
        assert self._outputs is not None
        return await self._outputs.get()

    async def get_supported_tasks_async(self) -> tuple[str, ...]:
        return ("generate",)

    def dp_engines_running(self) -> bool:
        return False

    def shutdown(self, timeout: float | None = None) -> None:
        self._stopped.set()
        self._wake.set()

    # -- the modelled engine ----------------------------------------------------------
    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._loop = asyncio.get_running_loop()
            self._outputs = asyncio.Queue()
            self._thread = threading.Thread(target=self._run, name="replay-core", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        from vllm.v1.engine import EngineCoreOutput, EngineCoreOutputs, FinishReason
        from vllm.v1.metrics.stats import SchedulerStats

        waiting: deque[_Running] = deque()
        running: dict[str, _Running] = {}
        aborted: set[str] = set()
        model = self.model
        assert self._loop is not None and self._outputs is not None
        deliver = self._outputs.put_nowait
        next_at = time.perf_counter()
        while not self._stopped.is_set():
            while True:
                try:
                    kind, item = self._commands.get_nowait()
                except queue.Empty:
                    break
                if kind == "add":
                    waiting.append(item)
                else:
                    for rid in item:
                        aborted.add(rid)
                        running.pop(rid, None)
            if not waiting and not running:
                self._wake.wait(0.05)
                self._wake.clear()
                next_at = time.perf_counter()
                continue
            outputs = []
            decoding = len(running)
            budget = model.prefill_budget
            prefill_tokens = 0
            while waiting and len(running) < model.max_num_seqs:
                if waiting[0].request_id in aborted:
                    aborted.discard(waiting.popleft().request_id)
                    continue
                if len(waiting[0].prompt) > budget and prefill_tokens:
                    break
                new = waiting.popleft()
                budget -= len(new.prompt)
                prefill_tokens += len(new.prompt)
                running[new.request_id] = new
            for rid, seq in list(running.items()):
                seq.emitted += 1
                token = seq.prompt[seq.emitted % len(seq.prompt)]
                done = seq.emitted >= seq.max_tokens
                outputs.append(EngineCoreOutput(
                    request_id=rid, new_token_ids=[token],
                    finish_reason=FinishReason.LENGTH if done else None))
                if done:
                    del running[rid]
            # The step's outputs leave when its compute would end; a late front-end does
            # not slow the engine (outputs queue up, as in vLLM's output socket). Only when
            # this thread itself ran late (no CPU or GIL for it) does the clock restart, so
            # it never emits a burst of back-to-back steps to catch up.
            next_at += model.step_s(decoding, prefill_tokens)
            delay = next_at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            else:
                next_at = time.perf_counter()
            stats = SchedulerStats(num_running_reqs=len(running), num_waiting_reqs=len(waiting),
                                   kv_cache_usage=0.1)
            batch = EngineCoreOutputs(outputs=outputs, scheduler_stats=stats,
                                      timestamp=time.monotonic())
            self._loop.call_soon_threadsafe(deliver, batch)


def install(model: StepModel) -> None:
    """Make every AsyncLLM built from now on in this process use a ReplayCore."""
    from vllm.v1.engine import async_llm

    class ReplayClient:
        @staticmethod
        def make_async_mp_client(*args: Any, **kwargs: Any) -> ReplayCore:
            return ReplayCore(model)

    async_llm.EngineCoreClient = ReplayClient  # type: ignore[attr-defined,assignment,misc]


# -- arms -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Level:
    concurrency: int
    requests: int
    output_len: int

    @property
    def label(self) -> str:
        return f"c{self.concurrency}-o{self.output_len}"


EXTRA_ARGS_ENV = "SWITCHBOARD_REPLAY_ENGINE_ARGS"


def engine_args(max_num_seqs: int) -> dict[str, Any]:
    """The engine args of both arms; `--engine-arg` adds to them (through the environment,
    so the direct arm's process sees them too)."""
    args = {"max_model_len": 2048, "max_num_seqs": max_num_seqs, "enforce_eager": True,
            "dtype": "float32", "kv_cache_memory_bytes": 1 << 28, "seed": 0}
    args.update(json.loads(os.environ.get(EXTRA_ARGS_ENV, "{}")))
    return args


def prompt_texts(model_path: str, count: int, input_len: int, seed: int) -> list[str]:
    """Random token ids decoded to text, as vLLM's random dataset makes its prompts."""
    import random

    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_path)
    rng = random.Random(seed)
    vocab = list(range(1000, min(tokenizer.vocab_size, 40000)))
    return [tokenizer.decode([rng.choice(vocab) for _ in range(input_len)]) for _ in range(count)]


def run_direct(model_path: str, step: StepModel, levels: Sequence[Level],
               prompts: Sequence[str], warmups: int) -> dict[str, Any]:
    from benchmarks.direct import render
    from benchmarks.direct import run_level as direct_level

    install(step)
    pin_threads(LOOP_CPU, OTHER_CPU)

    async def drive() -> dict[str, Any]:
        from vllm.engine.arg_utils import AsyncEngineArgs
        from vllm.v1.engine.async_llm import AsyncLLM

        llm = AsyncLLM.from_engine_args(AsyncEngineArgs(model=model_path,
                                                        **engine_args(step.max_num_seqs)))
        try:
            tokenizer = llm.get_tokenizer()
            if asyncio.iscoroutine(tokenizer):
                tokenizer = await tokenizer
            results = {}
            for level in levels:
                ids = [(render(tokenizer, p), level.output_len)
                       for p in prompts[:level.requests]]
                cpu = time.thread_time()
                out = await direct_level(llm, ids, {"concurrency": level.concurrency}, 0,
                                         warmups)
                cpu = time.thread_time() - cpu
                results[level.label] = {"tokens_per_s": out["output_throughput"],
                                        "ttft_p50_ms": out["median_ttft_ms"],
                                        "ttft_p99_ms": out["p99_ttft_ms"],
                                        "itl_p50_ms": out["median_itl_ms"],
                                        "completed": out["completed"],
                                        "failed": out["failed"],
                                        "loop_cpu_us_per_token":
                                            cpu * 1e6 / out["total_output_tokens"]}
            return results
        finally:
            llm.shutdown()

    return asyncio.run(drive())


def direct_process(model_path: str, step: StepModel, levels: Sequence[Level],
                   prompts: Sequence[str], warmups: int, workdir: Path) -> dict[str, Any]:
    job = workdir / "direct-job.json"
    job.write_text(json.dumps({"model": model_path, "step": asdict(step),
                               "levels": [asdict(x) for x in levels], "prompts": list(prompts),
                               "warmups": warmups}))
    with (workdir / "replay-direct.log").open("ab") as log:
        subprocess.run([sys.executable, "-m", "benchmarks.replay", "direct", "--job", str(job)],
                       stdout=log, stderr=subprocess.STDOUT, env=child_env({}), check=True)
    result: dict[str, Any] = json.loads(job.with_suffix(".out.json").read_text())
    return result


def gateway_config(model_path: str, port: int, max_num_seqs: int) -> dict[str, Any]:
    return {
        "server": {"host": "127.0.0.1", "port": port, "log_format": "json"},
        "default_route": "qa",
        "engines": {"qa": {"model": model_path, "max_queue": 8192,
                           "engine_args": engine_args(max_num_seqs)}},
        "routes": {"qa": {"engine": "qa"}},
    }


async def stream_one(port: int, body: bytes,
                     conn: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
                     ) -> tuple[float, float, int]:
    """One streamed chat completion on a kept-alive connection: (TTFT, latency, content
    events). Counts SSE events without parsing JSON, so the client is never the bottleneck."""
    if not conn:
        conn.append(await asyncio.open_connection("127.0.0.1", port))
    reader, writer = conn[0]
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    start = time.perf_counter()
    writer.write(head + body)
    status = await reader.readuntil(b"\r\n\r\n")
    if not status.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(status.decode(errors="replace")[:200])
    ttft = 0.0
    events = 0
    tail = b""
    while True:
        data = await reader.read(65536)
        if not data:
            raise ConnectionError("server closed the connection mid-stream")
        if not ttft:
            ttft = time.perf_counter() - start
        events += data.count(b'"content":"') - data.count(b'"content":""')
        tail = (tail + data)[-32:]
        if b"[DONE]" in tail and tail.endswith(b"\r\n0\r\n\r\n"):
            return ttft, time.perf_counter() - start, events


async def drive_gateway(port: int, level: Level, prompts: Sequence[str],
                        warmups: int) -> dict[str, Any]:
    def body(prompt: str) -> bytes:
        return json.dumps({"model": "qa", "stream": True, "max_tokens": level.output_len,
                           "stream_options": {"include_usage": True},
                           "messages": [{"role": "user", "content": prompt}]}).encode()

    warm: list[Any] = []
    for prompt in prompts[:warmups]:
        await stream_one(port, body(prompt), warm)
    for _, writer in warm:
        writer.close()
    todo = iter(prompts[:level.requests])
    ttfts: list[float] = []
    failed = 0

    async def worker() -> None:
        nonlocal failed
        conn: list[Any] = []
        for prompt in todo:
            try:
                ttft, _, _ = await stream_one(port, body(prompt), conn)
                ttfts.append(ttft)
            except (RuntimeError, ConnectionError, asyncio.IncompleteReadError):
                failed += 1
                if conn:
                    conn.pop()[1].close()
        for _, writer in conn:
            writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(level.concurrency)))
    wall = time.perf_counter() - start
    ttfts.sort()
    return {"tokens_per_s": len(ttfts) * level.output_len / wall,
            "ttft_p50_ms": statistics.median(ttfts or [0.0]) * 1000,
            "ttft_p99_ms": ttfts[min(len(ttfts) - 1, int(0.99 * len(ttfts)))] * 1000
            if ttfts else 0.0,
            "completed": len(ttfts), "failed": failed}


def pin_threads(loop_cpu: int, other_cpu: int) -> None:
    """The event loop's thread on `loop_cpu`, every other thread of this process (ReplayCore,
    the tokenizer's worker, vLLM's) on `other_cpu`: on the H200 host the engine core runs
    in its own process and helper threads find idle cores, so only the loop is contended."""
    main_tid = threading.get_native_id()

    def keep_pinned() -> None:
        while True:
            for tid in os.listdir("/proc/self/task"):
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(int(tid),
                                         {loop_cpu} if int(tid) == main_tid else {other_cpu})
            time.sleep(0.2)

    threading.Thread(target=keep_pinned, name="replay-pin", daemon=True).start()


def loop_cpu_s(pid: int) -> float:
    """CPU seconds of a process's main thread (its event loop), from /proc."""
    fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def profiled(pid: int, out: Path) -> Iterator[None]:
    argv = ["py-spy", "record", "--pid", str(pid), "--rate", "200", "--format", "raw",
            "--output", str(out), "--nonblocking"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def run_gateway(model_path: str, step: StepModel, levels: Sequence[Level],
                prompts: Sequence[str], warmups: int, workdir: Path,
                profile: Path | None) -> dict[str, Any]:
    port = free_port()
    config = workdir / "replay-routes.yaml"
    config.write_text(yaml.safe_dump(gateway_config(model_path, port, step.max_num_seqs),
                                     sort_keys=False))
    env = child_env({STEP_ENV: json.dumps(asdict(step))})
    argv = [sys.executable, "-m", "benchmarks.replay", "serve", "--config", str(config)]
    log_path = workdir / "replay-gateway.log"
    with log_path.open("ab") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    try:
        wait_ready(proc, f"http://127.0.0.1:{port}/ready", log_path)
        results = {}
        with pinned({OTHER_CPU}):
            for level in levels:
                with profiled(proc.pid, profile) if profile else contextlib.nullcontext():
                    cpu = loop_cpu_s(proc.pid)
                    before = gateway_latency_sums(port)
                    result = asyncio.run(drive_gateway(port, level, prompts, warmups))
                    tokens = result["completed"] * level.output_len
                    result["loop_cpu_us_per_token"] = ((loop_cpu_s(proc.pid) - cpu) * 1e6
                                                       / max(1, tokens))
                    result.update(gateway_means_ms(before, gateway_latency_sums(port)))
                    results[level.label] = result
        return results
    finally:
        stop(proc, grace_s=10)


GATEWAY_HISTOGRAMS = {"to_engine": "switchboard_time_to_engine_seconds",
                      "ttft": "switchboard_time_to_first_token_seconds"}


def gateway_latency_sums(port: int) -> dict[str, tuple[float, float]]:
    """(sum, count) of the gateway's own TTFT and time-to-engine histograms, all series."""
    import httpx
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=30).text
    out = {key: (0.0, 0.0) for key in GATEWAY_HISTOGRAMS}
    for family in text_string_to_metric_families(text):
        for key, name in GATEWAY_HISTOGRAMS.items():
            if family.name != name:
                continue
            total = sum(s.value for s in family.samples if s.name == f"{name}_sum")
            count = sum(s.value for s in family.samples if s.name == f"{name}_count")
            out[key] = (total, count)
    return out


def gateway_means_ms(before: dict[str, tuple[float, float]],
                     after: dict[str, tuple[float, float]]) -> dict[str, float | None]:
    """Mean ms per request over a level, as the gateway saw it: received → handed to the
    engine, and received → first token (the client's TTFT adds the HTTP hops both ways)."""
    out: dict[str, float | None] = {}
    for key in GATEWAY_HISTOGRAMS:
        total, count = (a - b for a, b in zip(after[key], before[key], strict=True))
        out[f"gateway_{key}_mean_ms"] = 1000 * total / count if count else None
    return out


def serve(config: str) -> int:
    """`switchboard serve` with every AsyncLLM on a ReplayCore (the gateway arm's server)."""
    install(StepModel(**json.loads(os.environ.get(STEP_ENV, "{}"))))
    pin_threads(LOOP_CPU, OTHER_CPU)
    from router.cli import main

    return main(["serve", "--config", config])


def ratios(direct: dict[str, Any], gateway: dict[str, Any]) -> dict[str, Any]:
    return {label: {"tokens_per_s": gateway[label]["tokens_per_s"] / d["tokens_per_s"],
                    "ttft_p50": gateway[label]["ttft_p50_ms"] / d["ttft_p50_ms"]}
            for label, d in direct.items() if label in gateway}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")
    serve_p = sub.add_parser("serve", help="the gateway arm's server (used internally)")
    serve_p.add_argument("--config", required=True)
    direct_p = sub.add_parser("direct", help="the direct arm, in a process of its own "
                                             "(used internally)")
    direct_p.add_argument("--job", type=Path, required=True)
    parser.add_argument("--model", default="builtin:smollm2-135m-instruct",
                        help="a folder (or built-in) for the tokenizer and config")
    parser.add_argument("--arms", default="direct,switchboard")
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--output-lens", default="64,256")
    parser.add_argument("--input-len", type=int, default=128)
    parser.add_argument("--prompts-per-stream", type=int, default=4)
    parser.add_argument("--warmups", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--step-scale", type=float, default=1.0,
                        help="multiply the modelled step time (2 = an engine half as fast)")
    parser.add_argument("--engine-arg", action="append", default=[], metavar="KEY=JSON",
                        help="add an engine arg to both arms, e.g. disable_log_stats=false")
    parser.add_argument("--lock", default="/tmp/switchboard-cpu.lock")
    parser.add_argument("--profile", type=Path, help="py-spy raw stacks of the gateway here")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    if args.command == "serve":
        return serve(args.config)
    if args.command == "direct":
        job = json.loads(args.job.read_text())
        result = run_direct(job["model"], StepModel(**job["step"]),
                            [Level(**x) for x in job["levels"]], job["prompts"], job["warmups"])
        args.job.with_suffix(".out.json").write_text(json.dumps(result))
        return 0

    from benchmarks.run import resolve

    extra = dict(item.split("=", 1) for item in args.engine_arg)
    os.environ[EXTRA_ARGS_ENV] = json.dumps({k: json.loads(v) for k, v in extra.items()})
    model_path = resolve(args.model)
    base = StepModel()
    step = StepModel(base.base_s * args.step_scale, base.per_seq_s * args.step_scale,
                     base.per_prefill_token_s * args.step_scale)
    levels = [Level(args.concurrency, args.concurrency * args.prompts_per_stream, int(n))
              for n in args.output_lens.split(",")]
    count = max(level.requests for level in levels) + args.warmups
    prompts = prompt_texts(model_path, count, args.input_len, seed=0)
    workdir = RESULTS / "raw" / "replay"
    workdir.mkdir(parents=True, exist_ok=True)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    runs: dict[str, list[dict[str, Any]]] = {arm: [] for arm in arms}
    for repeat in range(args.repeats):
        order = arms[repeat % len(arms):] + arms[:repeat % len(arms)]
        for arm in order:
            with cpu_lock(args.lock):
                if arm == "direct":
                    result = direct_process(model_path, step, levels, prompts, args.warmups,
                                            workdir)
                else:
                    result = run_gateway(model_path, step, levels, prompts, args.warmups,
                                         workdir, args.profile)
            runs[arm].append(result)
            print(json.dumps({"arm": arm, "repeat": repeat, "result": result}), flush=True)
    summary: dict[str, Any] = {"step_model": asdict(step), "levels": [asdict(x) for x in levels],
                               "runs": runs}
    if "direct" in runs and "switchboard" in runs:
        summary["ratios"] = [ratios(d, g) for d, g in zip(runs["direct"], runs["switchboard"],
                                                          strict=True)]
    print(json.dumps(summary.get("ratios", summary), indent=1))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
