"""The arms, each a server (or driver) started fresh, measured, and stopped.

- `direct`: an in-process AsyncLLM driver (benchmarks.direct) in its own process, no HTTP.
- `vllm`: vLLM's OpenAI server, `python -m vllm.entrypoints.openai.api_server`.
- `switchboard`: the gateway with one route on the same engine.
- `switchboard-2`: the gateway with a QA and a translation engine, `auto` routing.

Front-end arms, all in front of ONE shared upstream `vllm serve` (`upstream_server`, started
once per repeat with the same engine args), so only the front-end differs between them:
- `upstream`: that `vllm serve` itself, measured bare (the reference).
- `litellm`: LiteLLM's proxy (its own venv, benchmarks.litellm_proxy) with the upstream as a
  `hosted_vllm/` model.
- `switchboard-remote`: the gateway with a `backend: remote` engine on the upstream.
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

from benchmarks import litellm_proxy as litellm
from benchmarks.spec import MULTI_PROCESS_ARM, BenchSpec, cli_flags

# The front-end arms share one upstream per repeat (Runner.run_front).
FRONT_ARMS = ("upstream", "litellm", "switchboard-remote")
DEFAULT_ARMS = ("direct", "vllm", "switchboard", "switchboard-2")  # a plain `benchmarks.run`
ARMS = (*DEFAULT_ARMS, MULTI_PROCESS_ARM, *FRONT_ARMS)
HTTP_ARMS = ARMS[1:]
# The upstream's dev routes (POST /reset_prefix_cache) let every front-end arm start on a cold
# prefix cache, as a freshly started server would; they add nothing to the request path.
UPSTREAM_ENV = {"VLLM_SERVER_DEV_MODE": "1"}
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
    # TOKENIZERS_PARALLELISM is left as the caller has it (unset: the tokenizers default,
    # parallel): forcing it off made each arm that tokenizes (the gateway's encode_batch,
    # vllm serve) encode a burst of prompts on one core, which no deployment asks for.
    env = dict(os.environ)
    env.update({"VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_OFFLINE": "1", "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


def gateway_config(spec: BenchSpec, two_engines: bool, port: int) -> dict[str, Any]:
    """A routes.yaml for the gateway arms: no system prompt, no stop strings, no caps, so a
    request carries the same tokens as it does to `vllm serve`."""
    engine = {"model": spec.model, "engine_args": dict(spec.engine_args),
              "max_queue": 4096}
    config: dict[str, Any] = {
        "server": {"host": "127.0.0.1", "port": port, "log_format": "json",
                   "request_timeout_s": 3600, **spec.server_settings},
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


def remote_gateway_config(spec: BenchSpec, upstream: str, port: int) -> dict[str, Any]:
    """The gateway arm's routes.yaml with the one engine swapped for a `remote` engine on the
    shared upstream; its admission bounds are loose enough never to queue the benchmark."""
    config = gateway_config(spec, False, port)
    remote: dict[str, Any] = {"urls": [upstream]}
    if "max_model_len" in spec.engine_args:
        remote["max_model_len"] = spec.engine_args["max_model_len"]
    config["engines"]["qa"] = {"backend": "remote", "model": "qa", "remote": remote,
                               "max_in_flight": 256, "max_queue": 4096}
    return config


def vllm_command(spec: BenchSpec, port: int) -> list[str]:
    return [sys.executable, "-m", "vllm.entrypoints.openai.api_server",
            "--model", spec.model, "--served-model-name", "qa",
            "--host", "127.0.0.1", "--port", str(port),
            "--generation-config", "vllm", "--disable-uvicorn-access-log",
            *cli_flags(spec.engine_args)]


def server_command(arm: str, spec: BenchSpec, port: int, workdir: Path,
                   upstream: str = "") -> tuple[list[str], str]:
    """The argv of an HTTP arm's server and the `model` that requests name. Front-end arms
    (`litellm`, `switchboard-remote`) need the `upstream` base URL (no /v1)."""
    if arm == "vllm":
        return vllm_command(spec, port), "qa"
    if arm in FRONT_ARMS and not upstream:
        raise ValueError(f"arm {arm!r} runs in front of an upstream: pass its URL")
    if arm == "litellm":
        path = workdir / "litellm-config.yaml"
        path.write_text(yaml.safe_dump(litellm.proxy_config(upstream, "qa"), sort_keys=False))
        return litellm.proxy_command(path, port), "qa"
    two = arm == "switchboard-2"
    path = workdir / f"{arm}-routes.yaml"
    config = (remote_gateway_config(spec, upstream, port) if arm == "switchboard-remote"
              else gateway_config(spec, two, port))
    if arm == MULTI_PROCESS_ARM:
        config["server"]["api_processes"] = spec.api_processes
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    # `-m router.cli`, not a console script: engine cores start with `spawn`, which re-imports
    # the main module, and only a guarded one is safe to import.
    argv = [sys.executable, "-m", "router.cli", "serve", "--config", str(path),
            "--host", "127.0.0.1", "--port", str(port)]
    return argv, "auto" if two else "qa"


READY_PATHS = {"vllm": "/health", "litellm": litellm.READY_PATH}


@contextlib.contextmanager
def serving(arm: str, spec: BenchSpec, workdir: Path, log_path: Path,
            cpus: Sequence[int] | None = None, upstream: Serving | None = None
            ) -> Iterator[Serving]:
    """Start an HTTP arm, wait until it answers, yield it, stop it (and its engine cores).
    The `upstream` arm starts nothing: it is the running `upstream` itself."""
    if arm == "upstream":
        if upstream is None:
            raise ValueError("the upstream arm needs the running upstream")
        yield upstream
        return
    port = free_port()
    argv, served = server_command(arm, spec, port, workdir,
                                  upstream.base_url if upstream else "")
    env = child_env(spec.env)
    if arm == "litellm":
        env.update(litellm.PROXY_ENV)
    yield from _run_server(argv, served, port, READY_PATHS.get(arm, "/ready"), env, log_path, cpus)


@contextlib.contextmanager
def upstream_server(spec: BenchSpec, log_path: Path,
                    cpus: Sequence[int] | None = None) -> Iterator[Serving]:
    """The one `vllm serve` that every front-end arm of a repeat sits in front of."""
    port = free_port()
    env = {**child_env(spec.env), **UPSTREAM_ENV}
    yield from _run_server(vllm_command(spec, port), "qa", port, "/health", env, log_path, cpus)


def reset_prefix_cache(upstream: Serving, attempts: int = 20) -> None:
    """Empty the upstream's prefix cache, so the next arm's prompts miss it as on a fresh
    server (the reset fails while blocks are held: retry briefly)."""
    for _ in range(attempts):
        reply = httpx.post(upstream.base_url + "/reset_prefix_cache", timeout=30.0)
        reply.raise_for_status()
        if reply.json().get("success", True):
            return
        time.sleep(0.5)
    raise RuntimeError(f"{upstream.base_url} did not reset its prefix cache")


def _run_server(argv: list[str], served: str, port: int, ready_path: str,
                env: Mapping[str, str], log_path: Path,
                cpus: Sequence[int] | None) -> Iterator[Serving]:
    if cpus:
        argv = ["taskset", "-c", ",".join(map(str, cpus)), *argv]
    started = time.monotonic()
    with log_path.open("ab") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=dict(env),
                                start_new_session=True)
    try:
        base_url = f"http://127.0.0.1:{port}"
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
