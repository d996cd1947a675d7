"""The four arms, each a server (or driver) started fresh, measured, and stopped.

- `direct`: an in-process AsyncLLM driver (benchmarks.direct) in its own process, no HTTP.
- `vllm`: vLLM's OpenAI server, `python -m vllm.entrypoints.openai.api_server`.
- `switchboard`: the gateway with one route on the same engine.
- `switchboard-2`: the gateway with a QA and a translation engine, `auto` routing.
All of them get the engine args of the one BenchSpec.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

from benchmarks.spec import BenchSpec, cli_flags

ARMS = ("direct", "vllm", "switchboard", "switchboard-2")
HTTP_ARMS = ARMS[1:]
START_TIMEOUT_S = 600.0


@dataclass(frozen=True, slots=True)
class Serving:
    """A running HTTP arm: where to send requests and which `model` to name."""

    base_url: str
    served_name: str
    pid: int
    started_in_s: float


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def child_env(extra: Mapping[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


def gateway_config(spec: BenchSpec, two_engines: bool, port: int) -> dict[str, Any]:
    """A routes.yaml for the gateway arms: no system prompt, no stop strings, no caps, so a
    request carries the same tokens as it does to `vllm serve`."""
    engine = {"model": spec.model, "engine_args": dict(spec.engine_args),
              "max_queue": 4096}
    config: dict[str, Any] = {
        "server": {"host": "127.0.0.1", "port": port, "log_format": "json",
                   "request_timeout_s": 3600},
        "default_route": "qa",
        "engines": {"qa": engine},
        "routes": {"qa": {"engine": "qa", "description": "General questions."}},
    }
    if two_engines:
        config["engines"]["translation"] = {**engine, "model": spec.translation_model}
        config["routes"]["translation"] = {
            "engine": "translation",
            "description": "Put text into another language.",
            "prompt_template": "Translate the text into {target_language}.\n\n"
                               "Text: {text}\n{target_language}:",
            "recognize": {"signals": "translation"},
        }
    return config


def server_command(arm: str, spec: BenchSpec, port: int, workdir: Path) -> tuple[list[str], str]:
    """The argv of an HTTP arm's server and the `model` that requests name."""
    if arm == "vllm":
        argv = [sys.executable, "-m", "vllm.entrypoints.openai.api_server",
                "--model", spec.model, "--served-model-name", "qa",
                "--host", "127.0.0.1", "--port", str(port),
                "--generation-config", "vllm", "--disable-uvicorn-access-log",
                *cli_flags(spec.engine_args)]
        return argv, "qa"
    two = arm == "switchboard-2"
    path = workdir / f"{arm}-routes.yaml"
    path.write_text(yaml.safe_dump(gateway_config(spec, two, port), sort_keys=False))
    # `-m router.cli`, not a console script: engine cores start with `spawn`, which re-imports
    # the main module, and only a guarded one is safe to import.
    argv = [sys.executable, "-m", "router.cli", "serve", "--config", str(path),
            "--host", "127.0.0.1", "--port", str(port)]
    return argv, "auto" if two else "qa"


@contextlib.contextmanager
def serving(arm: str, spec: BenchSpec, workdir: Path, log_path: Path,
            cpus: Sequence[int] | None = None) -> Iterator[Serving]:
    """Start an HTTP arm, wait until it answers, yield it, stop it (and its engine cores)."""
    port = free_port()
    argv, served = server_command(arm, spec, port, workdir)
    if cpus:
        argv = ["taskset", "-c", ",".join(map(str, cpus)), *argv]
    started = time.monotonic()
    with log_path.open("ab") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                env=child_env(spec.env), start_new_session=True)
    try:
        base_url = f"http://127.0.0.1:{port}"
        ready_path = "/health" if arm == "vllm" else "/ready"
        wait_ready(proc, base_url + ready_path, log_path)
        yield Serving(base_url, served, proc.pid, time.monotonic() - started)
    finally:
        stop(proc)


def wait_ready(proc: subprocess.Popen[bytes], url: str, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"server exited with {proc.returncode} before ready:\n{tail}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2.0).status_code == 200:
                return
        time.sleep(0.5)
    raise TimeoutError(f"{url} not ready after {START_TIMEOUT_S:.0f} s (log: {log_path})")


def stop(proc: subprocess.Popen[bytes], grace_s: float = 30.0) -> None:
    """SIGTERM the server's process group (it holds the engine-core processes), then KILL."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace_s)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # stragglers of the group (engine cores)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


def direct_command(spec_path: Path, plan_path: Path, out_path: Path) -> list[str]:
    return [sys.executable, "-m", "benchmarks.direct", "--spec", str(spec_path),
            "--plan", str(plan_path), "--out", str(out_path)]
