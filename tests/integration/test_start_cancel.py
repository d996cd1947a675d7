"""SIGTERM while `switchboard serve` is still starting an engine — at start-up, or during a
SIGHUP reload that builds a new one — the gateway exits and no process of its group (the
engine-core above all) is left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from tests.integration.conftest import REPO, free_port

pytestmark = pytest.mark.integration

ONE_ENGINE = """
engines:
  qa:
    model: builtin:smollm2-135m-instruct
    engine_args: {dtype: float32, max_model_len: 1024, max_num_seqs: MAX_NUM_SEQS,
                  kv_cache_memory_bytes: 268435456, enforce_eager: true}
routes:
  qa: {engine: qa}
"""


def one_engine(max_num_seqs: int) -> str:
    return ONE_ENGINE.replace("MAX_NUM_SEQS", str(max_num_seqs))


def group_members(pgid: int) -> list[psutil.Process]:
    members = []
    for process in psutil.process_iter():
        try:
            if os.getpgid(process.pid) == pgid and process.status() != psutil.STATUS_ZOMBIE:
                members.append(process)
        except (ProcessLookupError, psutil.NoSuchProcess):
            continue
    return members


def engine_cores(gateway: psutil.Process) -> list[psutil.Process]:
    """vLLM spawns each engine-core with multiprocessing's spawn method."""
    cores = []
    for child in gateway.children(recursive=True):
        try:
            if any("spawn_main" in part for part in child.cmdline()):
                cores.append(child)
        except psutil.NoSuchProcess:
            continue
    return cores


def start_serve(config: Path, log_path: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "router.cli", "serve", "--config", str(config),
               "--port", str(free_port())]
    with log_path.open("wb") as log_file:
        # A group of its own, so that "no process left" covers every descendant.
        return subprocess.Popen(command, cwd=REPO, stdout=log_file, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})


def wait_until(condition: Callable[[], bool], process: subprocess.Popen[bytes], log_path: Path,
               what: str, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert process.poll() is None, log_path.read_text(errors="replace")[-4000:]
        assert time.monotonic() < deadline, f"{what} not seen in {timeout_s} s"
        time.sleep(0.2)


def terminate_and_check_group(process: subprocess.Popen[bytes], log_path: Path) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(300)
    deadline = time.monotonic() + 30  # an orphan's own exit could lag; give it the chance
    while group_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    left = [(p.pid, " ".join(p.cmdline())[:120]) for p in group_members(process.pid)]
    assert left == [], f"{left}\n{log_path.read_text(errors='replace')[-4000:]}"


def test_sigterm_during_engine_start_leaves_no_process(tmp_path: Path) -> None:
    config = tmp_path / "routes.yaml"
    config.write_text(one_engine(8))
    log_path = tmp_path / "gateway.log"
    process = start_serve(config, log_path)
    try:
        gateway = psutil.Process(process.pid)
        time.sleep(2)
        # Signal while the engine-core is being built (the window the build thread is in).
        wait_until(lambda: bool(engine_cores(gateway)), process, log_path, "an engine-core")
        assert "switchboard ready" not in log_path.read_text(errors="replace")
        terminate_and_check_group(process, log_path)
    finally:
        for member in group_members(process.pid):
            member.kill()


def test_sigterm_during_a_reloads_engine_start_leaves_no_process(tmp_path: Path) -> None:
    config = tmp_path / "routes.yaml"
    config.write_text(one_engine(8))
    log_path = tmp_path / "gateway.log"
    process = start_serve(config, log_path)
    try:
        gateway = psutil.Process(process.pid)
        wait_until(lambda: "switchboard ready" in log_path.read_text(errors="replace"),
                   process, log_path, "the gateway's start")
        first = {p.pid for p in engine_cores(gateway)}
        config.write_text(one_engine(4))  # an engine_args change: a new engine is built
        process.send_signal(signal.SIGHUP)
        wait_until(lambda: bool({p.pid for p in engine_cores(gateway)} - first),
                   process, log_path, "the reload's engine-core")
        terminate_and_check_group(process, log_path)
    finally:
        for member in group_members(process.pid):
            member.kill()
