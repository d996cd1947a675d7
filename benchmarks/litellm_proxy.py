"""LiteLLM's proxy as a benchmark arm: its own venv, its own config.yaml, a subprocess.

LiteLLM is a peer under test, never a dependency of the gateway: it is installed from the
hash-pinned benchmarks/requirements-litellm.txt into .bench/litellm-venv (git-ignored) on
first use, and its proxy runs from there. The config is LiteLLM's own production advice
(docs "Production Best Practices") minus what needs a database or Redis, and without a
master key (the gateway arms run without keys too, so neither side authenticates): no
callbacks or logging integrations, verbose logs off, one worker.

One worker: the docs size workers to the CPUs the proxy has to itself; on the 2-core CPU
machine the upstream's API server and engine core already contend for both cores, and a
second worker process would only add contention and split the HTTP connection pool. The
gateway under test is one process as well.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = Path(__file__).resolve().parent / "requirements-litellm.txt"
VENV = ROOT / ".bench" / "litellm-venv"
STAMP = ".installed"
READY_PATH = "/health/liveliness"  # LiteLLM's liveness probe: answers without calling a model
PROXY_ENV = {
    "LITELLM_LOG": "ERROR",
    # The model-price map is fetched from the internet at import unless told to use the copy
    # inside the package; no effect on the request path.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    "DISABLE_ADMIN_UI": "True",
}


def proxy_config(upstream: str, model: str) -> dict[str, Any]:
    """LiteLLM's config.yaml: the upstream `vllm serve` as a `hosted_vllm/` model named
    `model`; nothing that logs, meters or stores requests."""
    return {
        "model_list": [{
            "model_name": model,
            "litellm_params": {"model": f"hosted_vllm/{model}",
                               "api_base": upstream.rstrip("/") + "/v1",
                               "api_key": "none"},
        }],
        "litellm_settings": {
            "request_timeout": 3600,
            "set_verbose": False,
            "json_logs": True,
            "callbacks": [],
            "success_callback": [],
            "failure_callback": [],
            "telemetry": False,
        },
        "general_settings": {
            # No keys, as the gateway arms run without keys: the proxy path alone is compared.
            "dangerously_permit_weak_or_unset_master_key": True,
            "disable_spend_logs": True,
            "disable_error_logs": True,
            "proxy_batch_write_at": 60,
        },
    }


def proxy_command(config: Path, port: int, workers: int = 1,
                  venv: Path = VENV) -> list[str]:
    return [str(venv / "bin" / "litellm"), "--config", str(config), "--host", "127.0.0.1",
            "--port", str(port), "--num_workers", str(workers)]


def ensure_venv(venv: Path = VENV, requirements: Path = REQUIREMENTS) -> Path:
    """Create `venv` with the pinned LiteLLM once; again only when the pins change."""
    stamp = venv / STAMP
    if stamp.exists() and stamp.stat().st_mtime >= requirements.stat().st_mtime:
        return venv
    print(f"==> installing LiteLLM's proxy into {venv} from {requirements.name}", flush=True)
    subprocess.run([base_python(), "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", "--no-deps", "--only-binary", ":all:",
                    "--require-hashes", "-r", str(requirements)], check=True)
    stamp.touch()
    return venv


def base_python() -> str:
    """The interpreter the project's venv was made from (the pins are for CPython 3.11)."""
    base = getattr(sys, "_base_executable", "") or sys.executable
    return base if os.path.exists(base) else sys.executable
