"""`switchboard serve` with `server.api_processes: N` > 1: one supervising process, the
vLLM engine cores it launches once (engines.shared_cores), and N API processes that each
run the whole gateway on one shared listening socket.

The supervisor owns the processes: it holds the port, starts the cores, spawns the API
processes, prints the ready line once every one of them is up, and on SIGTERM/SIGINT passes
the signal on (each API process drains as with one process), waits for them, then stops the
cores. An API process that exits on its own stops the rest and the gateway exits non-zero,
naming it: the kernel would otherwise keep handing it connections.

Per API process, not shared: rate-limit counters, /admin/status, the A/B tallies, and in
/metrics the gauges read at scrape time (engine queue depths, rate limits, record file);
/metrics sums every process's counters and histograms (prometheus_client's multiprocess
mode, in a folder the supervisor makes and removes). Reloads are refused (409): an API
process cannot restart cores it does not own.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import FrameType

import structlog

from engines.admission import share
from engines.config import EngineConfig
from engines.protocol import Engine
from engines.shared_cores import CoreAttachment, SharedCores, shares_core
from router.config import GatewayConfig
from router.telemetry.metrics import MULTIPROCESS_ENV

log = structlog.get_logger("switchboard.processes")

RELOAD_REFUSAL = ("this gateway runs several API processes (server.api_processes) that share "
                  "its engines' cores; apply a new routes.yaml by restarting it")
# Beyond server.shutdown_timeout_s: an API process's own engine and server shutdown.
EXIT_GRACE_S = 20.0
POLL_S = 1.0


@dataclass(frozen=True, slots=True)
class ApiProcessSpec:
    """What every API process is told (picklable)."""

    config_path: str
    config_digest: str  # the file must still be what the supervisor read
    host: str
    port: int
    log_format: str
    count: int  # API processes


def port_socket(host: str, port: int) -> socket.socket:
    """A SO_REUSEPORT socket bound to host:port, not listening. The supervisor's holds the
    port (and fails early when it is taken); each API process binds its own and uvicorn
    starts listening on it once that process's gateway is up, so the kernel spreads new
    connections evenly over the processes that are ready (one shared socket would let
    whichever process wakes first take a whole burst of connections)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


class _Stop(Exception):
    """A signal arrived while the supervisor was starting."""


def serve_api_processes(config: GatewayConfig, spec: ApiProcessSpec) -> int:
    count = spec.count
    stop_signals: list[int] = []
    starting = True

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop_signals.append(signum)
        if starting and len(stop_signals) == 1:
            raise _Stop  # out of the (blocking) core start-up

    def on_hangup(signum: int, frame: FrameType | None) -> None:
        log.warning("reload_failed", trigger="SIGHUP", error=RELOAD_REFUSAL)

    try:
        sock = port_socket(spec.host, spec.port)
    except OSError as exc:
        print(f"switchboard: cannot bind {spec.host}:{spec.port}: {exc}", file=sys.stderr)
        return 3
    spec = replace(spec, port=sock.getsockname()[1])  # port 0: the one the kernel chose
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, on_hangup)
    cores = SharedCores(config.engines.values(), count,
                        allow_failures=config.server.allow_degraded_start)
    processes: list[BaseProcess] = []
    cleanup: list[str] = []  # a metrics folder this process made
    try:
        try:
            cores.start()
        except _Stop:
            log.info("start_interrupted")
            return 0
        except Exception as exc:
            print(f"switchboard: {exc}", file=sys.stderr)
            return 3
        # Set before the API processes import prometheus_client (not for the cores, started
        # above): their counters and histograms go to files there, summed at each scrape.
        metrics_dir = os.environ.get(MULTIPROCESS_ENV)
        if metrics_dir is None:
            metrics_dir = os.environ[MULTIPROCESS_ENV] = tempfile.mkdtemp(
                prefix="switchboard-metrics-")
            cleanup.append(metrics_dir)
        try:
            engines = _wait_ready(*_spawn(spec, cores, count, processes))
        except _Stop:
            return _stop(processes, cores, config, stop_signals)
        except RuntimeError as exc:
            print(f"switchboard: {exc}", file=sys.stderr)
            _stop(processes, cores, config, [])
            return 3
        starting = False
        print(f"switchboard ready on http://{spec.host}:{spec.port} "
              f"(routes: {', '.join(config.routes)}; engines: {', '.join(engines)}; "
              f"{count} API processes)", flush=True)
        return _supervise(processes, cores, config, stop_signals)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        cores.close()
        sock.close()
        for folder in cleanup:
            shutil.rmtree(folder, ignore_errors=True)


def _spawn(spec: ApiProcessSpec, cores: SharedCores, count: int,
           processes: list[BaseProcess]) -> tuple[list[BaseProcess], list[Connection]]:
    """Start the API processes (appended to `processes` as they start, so that a stop
    meanwhile reaches each), with the pipes on which they say they are ready."""
    context = multiprocessing.get_context("spawn")
    ready: list[Connection] = []
    for index in range(count):
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(
            target=run_api_process, name=f"switchboard-api-{index}",
            args=(spec, cores.attachments(index), dict(cores.failed), index, sender))
        process.start()
        sender.close()
        processes.append(process)
        ready.append(receiver)
    return processes, ready


def _wait_ready(processes: list[BaseProcess], ready: list[Connection]) -> list[str]:
    """Every API process's ready engines (the same in each), or RuntimeError naming the
    first that failed."""
    engines: list[str] = []
    pending = dict(zip(ready, processes, strict=True))
    while pending:
        for waited in wait(list(pending)):
            conn = waited if isinstance(waited, Connection) else None
            if conn is None:
                continue
            process = pending.pop(conn)
            try:
                message: list[str] | str = conn.recv()
            except EOFError:
                process.join(5)
                raise RuntimeError(f"{process.name} exited during start-up "
                                   f"(exit code {process.exitcode})") from None
            if isinstance(message, str):
                raise RuntimeError(f"{process.name}: {message}")
            engines = list(message)
    return engines


def _supervise(processes: list[BaseProcess], cores: SharedCores, config: GatewayConfig,
               stop_signals: list[int]) -> int:
    reported: set[str] = set()
    while not stop_signals:
        exited = [p for p in processes if p.exitcode is not None]
        if exited:
            names = ", ".join(f"{p.name} (exit code {p.exitcode})" for p in exited)
            print(f"switchboard: {names} stopped; stopping the gateway", file=sys.stderr)
            _stop(processes, cores, config, [])
            return 1
        for engine in cores.dead_engines():
            if engine not in reported:  # its routes answer 503; the others keep serving
                reported.add(engine)
                log.error("engine_cores_died", engine=engine,
                          hint="restart the gateway to start it again")
        time.sleep(POLL_S)
    return _stop(processes, cores, config, stop_signals)


def _stop(processes: list[BaseProcess], cores: SharedCores, config: GatewayConfig,
          stop_signals: list[int]) -> int:
    """Drain: SIGTERM to every API process (a second signal here: SIGKILL), wait, then stop
    the cores. 0 when every API process exited cleanly."""
    for process in processes:
        if process.pid is not None and process.exitcode is None:
            os.kill(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + config.server.shutdown_timeout_s + EXIT_GRACE_S
    for process in processes:
        remaining = deadline - time.monotonic()
        while process.exitcode is None and remaining > 0 and len(stop_signals) < 2:
            process.join(min(POLL_S, remaining))
            remaining = deadline - time.monotonic()
        if process.exitcode is None:
            log.warning("api_process_killed", process=process.name)
            process.kill()
            process.join(5)
    cores.close()
    return 0 if all(p.exitcode == 0 for p in processes) else 1


def run_api_process(spec: ApiProcessSpec, attachments: dict[str, CoreAttachment],
                    failed: dict[str, str], index: int, ready: Connection) -> None:
    """One API process: the whole gateway, its vLLM engines as clients of shared cores."""
    from engines import factory
    from engines.vllm_engine import CoresFailedEngine, VllmEngine
    from router.cli import load_for_serving
    from router.logs import configure_logging
    from router.server import serve_gateway

    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
    config = load_for_serving(spec.config_path)
    configure_logging(spec.log_format, config.server.log_level)
    structlog.contextvars.bind_contextvars(api_process=index)
    if config.digest != spec.config_digest:
        ready.send(f"{spec.config_path} changed while the gateway started; start it again")
        sys.exit(3)

    _exit_with_supervisor()

    def build(engine: EngineConfig) -> Engine:
        engine = share_of(engine, spec.count)
        if engine.name in failed:  # its routes answer 503, as a failed start does
            return CoresFailedEngine(engine, failed[engine.name])
        attachment = attachments.get(engine.name)
        if attachment is None:  # remote and fake engines: this process's own
            return factory.build_engine(engine)
        # Its cores belong to the supervisor: a dead one cannot be restarted from here.
        return VllmEngine(replace(engine, restart_on_failure=False), attachment)

    def on_ready(engines: list[str]) -> None:
        ready.send(engines)
        ready.close()

    try:
        sock = port_socket(spec.host, spec.port)
    except OSError as exc:
        ready.send(f"cannot listen on {spec.host}:{spec.port}: {exc}")
        sys.exit(3)
    code = serve_gateway(config, build, load_for_serving, spec.host, spec.port,
                         on_ready=on_ready, sockets=[sock], reload_refusal=RELOAD_REFUSAL)
    if code and not ready.closed:
        ready.send("could not start (its log says why)")
    sys.exit(code)


def share_of(engine: EngineConfig, count: int) -> EngineConfig:
    """An API process's share of an engine's admission bounds (engines.admission): the
    bound is the engine's, and N processes each admitting all of it would allow N times as
    much before a 429. A local engine's max_num_seqs (the bound when max_in_flight is not
    set) is split by VllmEngine itself; a remote engine's default bound is per process."""
    in_flight = None if engine.max_in_flight is None else share(engine.max_in_flight, count)
    return replace(engine, max_in_flight=in_flight, max_queue=share(engine.max_queue, count))


def _exit_with_supervisor() -> None:
    """Drain (SIGTERM to self) when the supervisor is gone, e.g. killed: an orphaned API
    process would go on accepting connections for cores nobody will stop."""
    import threading

    supervisor = os.getppid()

    def watch() -> None:
        while os.getppid() == supervisor:
            time.sleep(POLL_S)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="supervisor-watch", daemon=True).start()


__all__ = ["ApiProcessSpec", "port_socket", "serve_api_processes", "shares_core"]
