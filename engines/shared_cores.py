"""Engine cores shared by several API processes (`server.api_processes` > 1).

One Python process streaming 256 requests spends its event loop on per-token work (vLLM's
output processing and detokenisation, one SSE write per token) while the GPU waits for it.
vLLM's own answer is several API servers in front of one engine core; this is the same for
the gateway: the supervising process launches each local vLLM engine's core processes once,
through vLLM's launcher, and every API process gets a `CoreAttachment`, the addresses of its
own client slot, on which `engines.vllm_engine.VllmEngine` builds an `AsyncLLM` client
instead of starting a core. The model runs once; the per-token work runs in N processes.

`SharedCores` owns the cores: only it starts and stops them. Remote and fake engines have
no core; each API process builds its own as with one process.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import structlog

from engines.config import EngineConfig
from engines.sources import is_builtin, resolve_model

log = structlog.get_logger("switchboard.cores")


@dataclass(frozen=True, slots=True)
class CoreAttachment:
    """What API process `client_index` of `client_count` needs to join an engine's cores
    (picklable: it crosses to the API process)."""

    model_path: str
    client_addresses: dict[str, Any]
    client_count: int
    client_index: int


def shares_core(config: EngineConfig) -> bool:
    return config.backend == "vllm"


class SharedCores:
    def __init__(self, engines: Iterable[EngineConfig], clients: int,
                 allow_failures: bool = False) -> None:
        self._configs = [c for c in engines if shares_core(c)]
        self._clients = clients
        self._allow_failures = allow_failures
        self._launches: dict[str, Any] = {}  # engine name -> SharedLaunch
        self._model_paths: dict[str, str] = {}
        self.failed: dict[str, str] = {}  # engine name -> why its cores did not start

    def start(self) -> None:
        """Launch every local vLLM engine's cores, one engine at a time (as the gateway's
        own start does on an accelerator: each profiles the device's free memory), and wait
        until each is up. Raises, naming the engine, on the first that fails (what started
        before it is shut down), unless failures are allowed (server.allow_degraded_start):
        then `failed` names them and the others serve."""
        try:
            for config in self._configs:
                try:
                    self._launch(config)
                except Exception as exc:
                    if not self._allow_failures:
                        raise
                    log.error("engine_cores_failed", engine=config.name, error=str(exc))
                    self.failed[config.name] = str(exc)
        except BaseException:
            self.close()
            raise

    def _launch(self, config: EngineConfig) -> None:
        from engines.vllm_engine import launch_cores  # the adapter is the one vLLM importer

        model_path = resolve_model(config.model) if is_builtin(config.model) else config.model
        log.info("engine_cores_starting", engine=config.name, clients=self._clients)
        try:
            launch = launch_cores(config, model_path, self._clients)
        except Exception as exc:
            raise RuntimeError(f"engine {config.name!r}: its cores failed to start: "
                               f"{type(exc).__name__}: {exc}") from exc
        self._launches[config.name] = launch
        self._model_paths[config.name] = model_path
        log.info("engine_cores_started", engine=config.name,
                 pids=[p.pid for p in getattr(launch.manager, "processes", [])])

    def attachments(self, index: int) -> dict[str, CoreAttachment]:
        """API process `index`'s slot on every shared engine."""
        return {
            name: CoreAttachment(self._model_paths[name], launch.client_addresses(index),
                                 self._clients, index)
            for name, launch in self._launches.items()
        }

    def dead_engines(self) -> list[str]:
        """Engines whose core processes have exited."""
        dead = []
        for name, launch in self._launches.items():
            processes = getattr(launch.manager, "processes", None) or []
            if any(p.exitcode is not None for p in processes):
                dead.append(name)
        return dead

    def close(self) -> None:
        """Stop every core this process launched (SIGTERM, then SIGKILL after vLLM's grace
        period); idempotent."""
        launches, self._launches = self._launches, {}
        for name, launch in launches.items():
            launch.shutdown()
            log.info("engine_cores_stopped", engine=name)
