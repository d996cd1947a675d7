"""Where an engine's GPUs are: vLLM's parallel sizes, pinning to GPUs, and Ray.

An engine spans tensor × pipeline (× prefill context) × data parallel GPUs. By default vLLM
takes the first of them that the process sees, so two engines on one multi-GPU host would both
start on cuda:0. `gpus: [1]` pins an engine to the CUDA devices it lists, as indices in the
gateway's CUDA_VISIBLE_DEVICES order, one per rank.

vLLM picks its GPUs in the engine-core processes it spawns, from the CUDA_VISIBLE_DEVICES those
inherit; an in-process AsyncLLM has no per-engine setting for that in every vLLM this project
supports (`device_ids` only exists from 0.32). So a pinned engine is started with
CUDA_VISIBLE_DEVICES narrowed to its GPUs, set in os.environ while AsyncLLM is built and
restored after. os.environ is process-wide: `EnvironmentLock` makes every engine start that
spawns take it shared, and a start that changes the environment (a pinned one, or vLLM's own
data-parallel start, which rewrites CUDA_VISIBLE_DEVICES around each rank's spawn in older
releases) take it alone, so no other engine spawns with a neighbour's devices.

On an accelerator, vLLM sizes its KV cache from the device memory it sees free while it
profiles the model at start-up: a neighbour engine allocating on the same device meanwhile is
counted against it (on an H100, two engines at `gpu_memory_utilization: 0.4` started together
and the second failed with "No available memory for the cache blocks"). So engine starts on
an accelerator take the lock alone, one after another; CPU engines (a fixed or host-sized
KV cache, nothing profiled) still start together.

With Ray (`distributed_executor_backend: ray`, `data_parallel_backend: ray`) Ray's placement
groups choose the GPUs, possibly on other nodes: such an engine cannot be pinned, and the
gateway's host cannot check the plan.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from engines.config import EngineConfig

CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES"
PARALLEL_SIZE_KEYS = ("tensor_parallel_size", "pipeline_parallel_size",
                      "prefill_context_parallel_size", "data_parallel_size")


def _size(args: Mapping[str, Any], key: str) -> int:
    value = args.get(key, 1)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def gpus_needed(args: Mapping[str, Any]) -> int:
    """GPUs one engine spans: vLLM's tensor × pipeline × prefill-context × data parallel."""
    size = 1
    for key in PARALLEL_SIZE_KEYS:
        size *= _size(args, key)
    return size


def uses_ray(args: Mapping[str, Any]) -> bool:
    """Whether Ray places this engine's workers or data-parallel ranks."""
    return args.get("distributed_executor_backend") == "ray" or (
        args.get("data_parallel_backend") == "ray")


def parse_gpus(raw: Any, args: Mapping[str, Any]) -> tuple[int, ...] | None:
    """routes.yaml's `engines.NAME.gpus` checked against the engine's own `engine_args`.

    Raises ValueError saying what is wrong (the caller adds the YAML path)."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw or not all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in raw):
        raise ValueError("must be a non-empty list of GPU indices (integers >= 0), "
                         "in CUDA_VISIBLE_DEVICES order")
    if len(set(raw)) != len(raw):
        raise ValueError(f"lists a GPU twice: {raw}")
    needed = gpus_needed(args)
    if len(raw) != needed:
        sizes = " × ".join(f"{k}={_size(args, k)}" for k in PARALLEL_SIZE_KEYS
                           if _size(args, k) > 1) or "one GPU"
        raise ValueError(f"lists {len(raw)} GPUs but the engine spans {needed} ({sizes})")
    if uses_ray(args):
        raise ValueError("cannot pin an engine that Ray places (distributed_executor_backend "
                         "or data_parallel_backend: ray); Ray's placement groups choose its GPUs")
    if "device_ids" in args:
        raise ValueError("set the GPUs either with gpus or with engine_args.device_ids")
    return tuple(raw)


def configured_gpus(config: EngineConfig) -> tuple[int, ...] | None:
    """The engine's `gpus` (the gateway narrows CUDA_VISIBLE_DEVICES for them)."""
    return config.gpus or None


def engine_gpus(config: EngineConfig) -> tuple[int, ...] | None:
    """The GPUs an engine is pinned to: its `gpus`, else vLLM's own `engine_args.device_ids`
    (0.32+; vLLM selects those itself) when they are indices; None when it is not pinned."""
    pinned = configured_gpus(config)
    if pinned:
        return pinned
    device_ids = config.engine_args.get("device_ids")
    if isinstance(device_ids, list) and device_ids and all(
            isinstance(i, int) and not isinstance(i, bool) for i in device_ids):
        return tuple(device_ids)
    return None


def visible_devices_for(gpus: tuple[int, ...], parent: str | None) -> str:
    """CUDA_VISIBLE_DEVICES for an engine pinned to `gpus` (indices into the parent's list)."""
    if parent is None:
        return ",".join(str(i) for i in gpus)
    entries = [p.strip() for p in parent.split(",") if p.strip()]
    missing = [i for i in gpus if i >= len(entries)]
    if missing:
        raise ValueError(f"GPUs {missing} are not visible ({CUDA_VISIBLE_DEVICES}={parent})")
    return ",".join(entries[i] for i in gpus)


def data_parallel_ranks(parallel_config: Any) -> int:
    """Data-parallel ranks one AsyncLLM balances requests over: all of them with vLLM's
    internal load balancer, the local ones in hybrid mode, its own one with an external one."""
    if getattr(parallel_config, "data_parallel_external_lb", False):
        return 1
    if getattr(parallel_config, "data_parallel_hybrid_lb", False):
        return max(1, int(getattr(parallel_config, "data_parallel_size_local", 1) or 1))
    return max(1, int(getattr(parallel_config, "data_parallel_size", 1) or 1))


class EnvironmentLock:
    """A readers-writer lock around engine starts (see the module docstring): shared for a
    start that spawns with the environment as it is, exclusive for one that changes it.

    It also remembers the gateway's own CUDA_VISIBLE_DEVICES, so a memory plan made while a
    pinned engine starts still sees every GPU."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        # The environment as it is outside an exclusive hold, while one lasts.
        self._outside: dict[str, str | None] = {}

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._writer)
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self, changes: Mapping[str, str]) -> Iterator[None]:
        """Hold the lock alone, with `changes` applied to os.environ; restore after."""
        with self._cond:
            self._cond.wait_for(lambda: not self._writer and self._readers == 0)
            self._writer = True
            self._outside = {k: os.environ.get(k) for k in changes}
            os.environ.update(changes)
        try:
            yield
        finally:
            with self._cond:
                for key, value in self._outside.items():
                    if value is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = value
                self._outside = {}
                self._writer = False
                self._cond.notify_all()

    @contextmanager
    def for_start(self, gpus: tuple[int, ...] | None, args: Mapping[str, Any],
                  profiles_device: bool = False) -> Iterator[None]:
        """The hold an engine start needs: pinned → its devices, alone; in-process data
        parallelism → alone (vLLM may rewrite the variable around its ranks' spawns); an
        engine that profiles accelerator memory → alone (see the module docstring);
        otherwise shared."""
        if gpus:
            parent = os.environ.get(CUDA_VISIBLE_DEVICES)
            with self.exclusive({CUDA_VISIBLE_DEVICES: visible_devices_for(gpus, parent)}):
                yield
        elif profiles_device or _size(args, "data_parallel_size") > 1:
            with self.exclusive({}):
                yield
        else:
            with self.shared():
                yield

    def visible_devices(self) -> str | None:
        """The gateway's own CUDA_VISIBLE_DEVICES, not a pinned start's; never waits (a
        start holds the lock for as long as vLLM takes to load the model)."""
        with self._cond:
            if CUDA_VISIBLE_DEVICES in self._outside:
                return self._outside[CUDA_VISIBLE_DEVICES]
            return os.environ.get(CUDA_VISIBLE_DEVICES)


# One per process: os.environ, which it guards, is one per process.
ENGINE_START_LOCK = EnvironmentLock()
