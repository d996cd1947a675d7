"""`python -m benchmarks.run`: every arm, one after another, repeated and interleaved.

    python -m benchmarks.run                      # CPU default sweep (~25 min)
    python -m benchmarks.run --quick              # a few minutes
    python -m benchmarks.run --preset gpu --name gpu-$(date +%F)   # H200: 256 streams

Each arm run (start, the whole sweep, stop) holds the machine-wide CPU lock, so runs of
other engineers never overlap ours. Raw per-run JSON goes to benchmarks/results/raw/<stamp>/
(git-ignored); the report (<name>.md, <name>.json, <name>-*.png) to benchmarks/results/.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import shlex
import subprocess
import sys
import time
import traceback
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import arms, litellm_proxy, loadgen, mixed, overhead, plots, report
from benchmarks.cpulock import cpu_lock
from benchmarks.spec import (
    CPU_ENGINE_ARGS,
    GPU_ENGINE_ARGS,
    MULTI_PROCESS_ARM,
    BenchSpec,
    Level,
    build_levels,
    parse_engine_arg,
)

RESULTS = Path(__file__).parent / "results"
PRESETS: dict[str, dict[str, Any]] = {
    "cpu": {"concurrency": "1,8,32,64", "rate": 3.0, "repeats": 2, "per_stream": 2,
            "min_prompts": 8, "engine_args": CPU_ENGINE_ARGS, "lock": "/tmp/switchboard-cpu.lock",
            "client_processes": 1},
    "gpu": {"concurrency": "256", "rate": 0.0, "repeats": 2, "per_stream": 8,
            "min_prompts": 64, "engine_args": GPU_ENGINE_ARGS, "lock": "",
            "client_processes": 4},
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", choices=sorted(PRESETS), default="cpu")
    p.add_argument("--concurrency", help="comma-separated closed-loop levels")
    p.add_argument("--rate", type=float, help="open-loop requests/s (0: none)")
    p.add_argument("--repeats", type=int)
    p.add_argument("--arms", default=",".join(arms.DEFAULT_ARMS),
                   help=f"comma-separated, of: {', '.join(arms.ARMS)}")
    p.add_argument("--model", default="builtin:smollm2-135m-instruct")
    p.add_argument("--translation-model", default="builtin:gemma-3-270m")
    p.add_argument("--engine-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="override/add an engine arg for every arm (JSON values)")
    p.add_argument("--server-setting", action="append", default=[], metavar="KEY=VALUE",
                   help="a routes.yaml server: setting of the switchboard arms (JSON values)")
    p.add_argument("--api-processes", type=int, default=4,
                   help="server.api_processes of the switchboard-mp arm")
    p.add_argument("--input-len", type=int, default=128)
    p.add_argument("--output-len", type=int, default=64)
    p.add_argument("--long-output-len", type=int,
                   help="also run each closed-loop level with this many output tokens")
    p.add_argument("--prompts-per-stream", type=int)
    p.add_argument("--min-prompts", type=int,
                   help="at least this many prompts per level (more samples at 1 stream)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--client-processes", type=int,
                   help="split the HTTP arms' load generator over N processes (preset: cpu 1, "
                        "gpu 4): one asyncio client saturates a core at 256 GPU streams")
    p.add_argument("--quick", action="store_true", help="c=1,16, one repeat, short overhead")
    p.add_argument("--no-overhead", action="store_true", help="skip the fake-engine benchmark")
    p.add_argument("--lock", help="flock file held per arm run ('' for none)")
    p.add_argument("--profile", action="store_true",
                   help="sample each HTTP arm's server with py-spy while it is under load "
                        "(collapsed stacks in the raw folder; needs py-spy on PATH)")
    p.add_argument("--name", help="report name under benchmarks/results/ (default: preset)")
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--raw", type=Path, metavar="RAWDIR",
                   help="add runs to this raw folder (e.g. a second repeat in a later call)")
    p.add_argument("--first-repeat", type=int, default=0,
                   help="index of the first repeat (rotates the arm order as repeat N would)")
    p.add_argument("--report-only", type=Path, metavar="RAWDIR",
                   help="rebuild the report from an earlier raw folder")
    return p.parse_args(argv)


def resolve(model: str) -> str:
    from engines.sources import is_builtin, resolve_model

    return str(resolve_model(model)) if is_builtin(model) else model


def build_spec(args: argparse.Namespace, preset: dict[str, Any]) -> BenchSpec:
    concurrency = args.concurrency or ("1,16" if args.quick else preset["concurrency"])
    rate = args.rate if args.rate is not None else (2.0 if args.quick else preset["rate"])
    engine_args = dict(preset["engine_args"])
    engine_args.update(parse_engine_arg(item) for item in args.engine_arg)
    per_stream = args.prompts_per_stream or preset["per_stream"]
    levels = build_levels([int(c) for c in concurrency.split(",")], rate or None, per_stream,
                          args.min_prompts or preset["min_prompts"], args.long_output_len)
    wanted = tuple(a.strip() for a in args.arms.split(",") if a.strip())
    unknown = set(wanted) - set(arms.ARMS)
    if unknown:
        raise SystemExit(f"unknown arms {sorted(unknown)} (known: {', '.join(arms.ARMS)})")
    if "litellm" in wanted:
        litellm_proxy.ensure_venv()
    return BenchSpec(
        model=resolve(args.model),
        translation_model=resolve(args.translation_model) if "switchboard-2" in wanted else "",
        engine_args=engine_args, levels=levels, input_len=args.input_len,
        output_len=args.output_len, seed=args.seed,
        repeats=1 if args.quick and args.repeats is None else (args.repeats or preset["repeats"]),
        arms=wanted, server_settings=dict(parse_engine_arg(item) for item in args.server_setting),
        client_processes=args.client_processes or preset.get("client_processes", 1),
        api_processes=args.api_processes,
    )


def level_dict(level: Level) -> dict[str, Any]:
    return {**dataclasses.asdict(level), "label": level.label}


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its live children (engine cores)."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for proc in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = proc.cpu_times()
            total += times.user + times.system
    return total


def runq_seconds(pid: int) -> float:
    """Seconds the threads of a process tree spent runnable but waiting for a CPU
    (/proc/<pid>/task/<tid>/schedstat, second field; 0 where the kernel does not keep it)."""
    import psutil

    try:
        pids = [pid, *(p.pid for p in psutil.Process(pid).children(recursive=True))]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0
    for one in pids:
        for stat in Path(f"/proc/{one}/task").glob("*/schedstat"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int(stat.read_text().split()[1])
    return total / 1e9


def rotated(order: Sequence[str], repeat: int) -> list[str]:
    """The arm order of repeat N: rotated by N, so arms are interleaved across repeats."""
    shift = repeat % len(order)
    return [*order[shift:], *order[:shift]]


class Runner:
    """Runs the arms of one spec into `raw`, appending one JSON line per measured level."""

    def __init__(self, spec: BenchSpec, raw: Path, lock: str, client: loadgen.LoadClient,
                 profile: bool = False, first_repeat: int = 0) -> None:
        self.spec = spec
        self.client = client
        self.first_repeat = first_repeat
        self.profile = profile
        self.raw = raw
        self.lock = lock
        self.runs_path = raw / "runs.jsonl"
        self.dataset = loadgen.Dataset()
        self.mixed = loadgen.Dataset("sharegpt", str(mixed.write_dataset(
            raw / "mixed.json", 1024, spec.seed)))
        self.meta: dict[str, Any] = {}

    def record(self, arm: str, repeat: int, level: Level, result: dict[str, Any],
               startup_s: float) -> None:
        row = {"arm": arm, "repeat": repeat, "level": level_dict(level), "result": result,
               "startup_s": startup_s}
        with self.runs_path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        tps = result.get("output_throughput") or 0.0
        print(f"  {arm:<14} r{repeat} {level.label:<8} out {tps:8.1f} tok/s"
              f"  TTFT p50 {result.get('median_ttft_ms', 0):8.1f} ms  "
              f"failed {result.get('failed')}", flush=True)

    def run_all(self) -> None:
        for repeat in range(self.first_repeat, self.first_repeat + self.spec.repeats):
            order = rotated(self.spec.arms, repeat)
            front = [arm for arm in order if arm in arms.FRONT_ARMS]
            for arm in order:
                if arm in arms.FRONT_ARMS:
                    if arm == front[0]:  # the front-end arms run as one group
                        self.run_front(front, repeat)
                    continue
                print(f"[repeat {repeat + 1}/{self.spec.repeats}] {arm}", flush=True)
                with cpu_lock(self.lock):
                    try:
                        self.run_arm(arm, repeat)
                    except Exception:
                        traceback.print_exc()
                        print(f"  {arm} r{repeat} FAILED (see logs in {self.raw})", flush=True)

    def run_front(self, front: list[str], repeat: int) -> None:
        """The front-end arms of one repeat, one after another in front of one upstream
        `vllm serve` (started, warmed up, stopped here), all under one hold of the lock so
        nobody else's load lands between them."""
        print(f"[repeat {repeat + 1}/{self.spec.repeats}] upstream for {', '.join(front)}",
              flush=True)
        with cpu_lock(self.lock):
            try:
                with arms.upstream_server(self.spec, self.raw / f"upstream-r{repeat}.log") as up:
                    print(f"  upstream ready in {up.started_in_s:.1f} s", flush=True)
                    self.warm_up(up, repeat)
                    for arm in front:
                        print(f"[repeat {repeat + 1}/{self.spec.repeats}] {arm}", flush=True)
                        try:
                            arms.reset_prefix_cache(up)
                            self.run_arm(arm, repeat, upstream=up)
                        except Exception:
                            traceback.print_exc()
                            print(f"  {arm} r{repeat} FAILED (see logs in {self.raw})",
                                  flush=True)
            except Exception:
                traceback.print_exc()
                print(f"  upstream r{repeat} FAILED (see logs in {self.raw})", flush=True)

    def warm_up(self, upstream: arms.Serving, repeat: int) -> None:
        """One unrecorded pass at the highest concurrency, so the first front-end arm does
        not pay the fresh server's first batches that the later arms would not."""
        closed = [lv for lv in self.spec.levels if lv.concurrency]
        if not closed:
            return
        top = max(closed, key=lambda lv: lv.concurrency or 0)
        level = Level(num_prompts=top.concurrency or 1, concurrency=top.concurrency)
        args = loadgen.bench_args(self.spec, level, base_url=upstream.base_url,
                                  served_name=upstream.served_name, dataset=self.dataset)
        self.client.run_level(args, self.raw / f"upstream-r{repeat}-warmup.log",
                              level_dict(level))

    def run_arm(self, arm: str, repeat: int, upstream: arms.Serving | None = None) -> None:
        log = self.raw / f"{arm}-r{repeat}.log"
        if arm == "direct":
            self.run_direct(repeat, log)
            return
        dataset = self.mixed if arm == "switchboard-2" else self.dataset
        with arms.serving(arm, self.spec, self.raw, log, upstream=upstream) as live:
            startup = 0.0 if arm == "upstream" else live.started_in_s
            print(f"  {arm} ready in {startup:.1f} s", flush=True)
            if arm == "switchboard-2" and "mix" not in self.meta:
                self.meta["mix"] = route_split(live.base_url, Path(self.mixed.path))
                print(f"  route split of the mixed prompts: {self.meta['mix']}", flush=True)
            profile = self.raw / f"{arm}-r{repeat}.pyspy.txt"
            with sampling(live.pid, profile) if self.profile else contextlib.nullcontext():
                for level in self.spec.levels:
                    args = loadgen.bench_args(self.spec, level, base_url=live.base_url,
                                              served_name=live.served_name, dataset=dataset)
                    cpu = {"server": live.pid, **({"upstream": upstream.pid} if upstream
                                                  and arm != "upstream" else {})}
                    before = {name: cpu_seconds(pid) for name, pid in cpu.items()}
                    waited = {name: runq_seconds(pid) for name, pid in cpu.items()}
                    # records the client's own CPU: a client process near one busy core
                    # adds its queueing to every HTTP arm's TTFT (the direct arm has none)
                    result = self.client.run_level(args, self.raw / f"{arm}-r{repeat}-loadgen.log",
                                                   level_dict(level))
                    for name, pid in cpu.items():  # CPU time the level cost each process tree
                        result[f"{name}_cpu_s"] = round(cpu_seconds(pid) - before[name], 3)
                        # and the time its threads were ready to run but waited for a core
                        result[f"{name}_runq_s"] = round(runq_seconds(pid) - waited[name], 3)
                    self.record(arm, repeat, level, result, startup)

    def run_direct(self, repeat: int, log: Path) -> None:
        plan_path = self.raw / "direct-plan.json"
        if not plan_path.exists():
            plan = []
            for level in self.spec.levels:
                args = loadgen.bench_args(self.spec, level, base_url="http://unused",
                                          served_name="qa", dataset=self.dataset)
                plan.append({"level": level_dict(level),
                             "prompts": loadgen.sample_prompts(args, self.client.processes)})
            plan_path.write_text(json.dumps(plan))
        spec_path = self.raw / "spec.json"
        out = self.raw / f"direct-r{repeat}.json"
        with log.open("ab") as handle:
            subprocess.run(arms.direct_command(spec_path, plan_path, out), check=True,
                           stdout=handle, stderr=subprocess.STDOUT,
                           env=arms.child_env(self.spec.env))
        data = json.loads(out.read_text())
        for level, item in zip(self.spec.levels, data["levels"], strict=True):
            self.record("direct", repeat, level, item["result"], data["startup_s"])


@contextlib.contextmanager
def sampling(pid: int, out: Path) -> Any:
    """py-spy samples `pid` (every thread, native frames off) until the block ends."""
    import signal

    argv = ["py-spy", "record", "--pid", str(pid), "--rate", "200", "--format", "raw",
            "--nonblocking", "--threads", "-o", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        yield
    finally:
        proc.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def route_split(base_url: str, dataset: Path) -> dict[str, str]:
    """Where the gateway's classifier sends the mixed prompts (share per route)."""
    import httpx

    prompts = mixed.read_prompts(dataset)
    decided: dict[str, str] = {}
    for prompt in set(prompts):
        body = {"model": "auto", "messages": [{"role": "user", "content": prompt}]}
        decided[prompt] = httpx.post(base_url + "/v1/classify", json=body).json()["route"]
    counts = Counter(decided[p] for p in prompts)
    return {route: f"{100 * n / len(prompts):.0f}%" for route, n in sorted(counts.items())}


def machine() -> str:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(line.split(":", 1)[1].strip() for line in
                   Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name"))
    gpu = ""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
    return f"{platform.node()}: {os.cpu_count()} × {cpu}" + (f", GPU {gpu}" if gpu else "")


def write_report(raw: Path, out: Path, name: str) -> Path:
    spec = json.loads((raw / "spec.json").read_text())
    meta = json.loads((raw / "meta.json").read_text())
    runs = [json.loads(line) for line in (raw / "runs.jsonl").read_text().splitlines()] \
        if (raw / "runs.jsonl").exists() else []
    summary = report.summarise(runs)
    over = json.loads((raw / "overhead.json").read_text()) \
        if (raw / "overhead.json").exists() else None
    out.mkdir(parents=True, exist_ok=True)
    images = plots.plot(summary, out, name, meta["title"]) if summary else []
    preset = meta.get("preset", "cpu")

    def targets(arm: str) -> list[dict[str, Any]]:
        return report.check_targets(summary, report.target_levels(summary.get(arm, {})),
                                    preset, arm)

    multi = MULTI_PROCESS_ARM
    doc = {"meta": meta, "spec": spec, "summary": summary, "ratios": report.ratios(summary),
           "targets": targets("switchboard"),
           **({"ratios_mp": report.ratios(summary, multi), "targets_mp": targets(multi)}
              if multi in summary else {}),
           "front_targets": report.front_checks(summary), "overhead": over,
           "startup_s": {r["arm"]: r["startup_s"] for r in runs}}
    (out / f"{name}.json").write_text(json.dumps(doc, indent=1, sort_keys=True))
    md = out / f"{name}.md"
    md.write_text(report.markdown({**meta, **spec}, summary, over, images))
    return md


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    name = args.name or (args.preset + ("-quick" if args.quick else ""))
    if args.report_only:
        print(write_report(args.report_only, args.out, name))
        return 0
    preset = PRESETS[args.preset]
    spec = build_spec(args, preset)
    lock = preset["lock"] if args.lock is None else args.lock
    raw = args.raw or args.out / "raw" / time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    raw.mkdir(parents=True, exist_ok=True)
    if not (raw / "spec.json").exists():  # a later call adding repeats keeps the first spec
        (raw / "spec.json").write_text(spec.to_json())
    command = "python -m benchmarks.run " + shlex.join(sys.argv[1:] if argv is None else argv)
    meta = {"title": name, "preset": args.preset,
            "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            "command": command.strip(), "machine": machine()}
    if (raw / "meta.json").exists():  # a later call adding repeats: keep the first call's date
        earlier = json.loads((raw / "meta.json").read_text())
        meta["date"] = earlier["date"]
        meta["command"] = f"{earlier['command']} ; {meta['command']}"
    (raw / "meta.json").write_text(json.dumps(meta))
    started = time.monotonic()
    with loadgen.LoadClient(spec.client_processes) as client:
        runner = Runner(spec, raw, lock, client, profile=args.profile,
                        first_repeat=args.first_repeat)
        runner.run_all()
    if not args.no_overhead:
        print("[overhead] fake engine, gateway on one core", flush=True)
        with cpu_lock(lock):
            over = overhead.run_overhead(raw, args.quick)
        (raw / "overhead.json").write_text(json.dumps(over, indent=1))
    meta.update(runner.meta, wall_s=round(time.monotonic() - started))
    (raw / "meta.json").write_text(json.dumps(meta))
    print(f"report: {write_report(raw, args.out, name)} (raw: {raw})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
