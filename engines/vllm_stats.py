"""Scheduler state (running, waiting, KV cache use) from vLLM's stat-logger hook.

vLLM calls each stat logger after every engine step with its SchedulerStats; a tiny logger
copies the three numbers the gateway exports into a snapshot the adapter reads. The
SchedulerStats class is not a stable vLLM interface, so fields are read defensively.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class SchedulerSnapshot:
    running: int = 0
    waiting: int = 0
    kv_cache_usage: float = 0.0

    def update(self, stats: Any) -> None:
        self.running = int(getattr(stats, "num_running_reqs", self.running))
        self.waiting = int(getattr(stats, "num_waiting_reqs", self.waiting))
        self.kv_cache_usage = float(getattr(stats, "kv_cache_usage", self.kv_cache_usage))


def stat_logger_factory(snapshot: SchedulerSnapshot) -> Any:
    """A StatLoggerBase subclass bound to `snapshot` (built lazily: it needs vLLM)."""
    from vllm.v1.metrics.loggers import StatLoggerBase

    class SnapshotLogger(StatLoggerBase):
        def __init__(self, vllm_config: Any, engine_index: int = 0) -> None:
            self.engine_index = engine_index

        def record(self, scheduler_stats: Any, iteration_stats: Any,
                   mm_cache_stats: Any = None, engine_idx: int = 0) -> None:
            if scheduler_stats is not None:
                snapshot.update(scheduler_stats)

        def log_engine_initialized(self) -> None:
            pass

    return SnapshotLogger
