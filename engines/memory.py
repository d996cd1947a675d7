"""A memory plan: what each engine takes on which device, and whether it all fits.

Each engine is planned against the device it will run on:

- **GPU** (NVML sees a GPU): vLLM gives each engine `gpu_memory_utilization` × the GPU's total
  memory (weights, activations and KV cache together) on every GPU it spans
  (tensor × pipeline × data parallel), and refuses to start unless that much is free. With
  `kv_cache_memory_bytes` the KV cache is fixed instead and the weights are split over the GPUs.
  An engine takes the first GPUs unless `gpus` pins it to others (engines.placement); engines
  sharing a GPU add up on it.
- **CPU** (vLLM's CPU build): the KV cache is `kv_cache_memory_bytes`, or else
  `gpu_memory_utilization` × the memory the process may use (the cgroup limit when there is
  one, else the host's RAM), on top of the weights and the engine-core process.
- **Nothing here**: engines that are not in-process vLLM (fake, remote), and vLLM engines whose
  GPUs Ray places (possibly on other nodes), which the plan lists but cannot check.

`switchboard check` prints the plan; a reload asks `fits_with` whether new engines can start
beside the old ones (no downtime) or must replace them in place.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.config import EngineConfig
from engines.placement import ENGINE_START_LOCK, engine_gpus, gpus_needed, parse_gpus, uses_ray
from engines.sources import BUILTIN_MODELS, is_builtin, prepared_path

# fp32 safetensors sizes of the prepared built-in models, for plans made before preparing.
_BUILTIN_WEIGHT_BYTES = {"smollm2-135m-instruct": 538_090_408, "gemma-3-270m": 1_072_000_000}
_VLLM_DEFAULT_UTILIZATION = 0.92  # vLLM's CacheConfig default (0.26 to 0.33)
# Process overhead per CPU engine (engine-core process, torch, tokenizer) seen on these CPUs.
_CPU_ENGINE_OVERHEAD_BYTES = 1_200_000_000
# Activations, CUDA graphs and the CUDA context per GPU, when the KV cache is sized in bytes.
_GPU_ENGINE_OVERHEAD_BYTES = 2 * (1 << 30)
GIB = 1 << 30
CPU = "cpu"


@dataclass(frozen=True, slots=True)
class Device:
    """A memory pool engines are placed on: the host ("cpu") or one GPU ("cuda:N")."""

    name: str
    total_bytes: int


@dataclass(frozen=True, slots=True)
class Inventory:
    """The devices this process can place engines on."""

    host: Device
    gpus: tuple[Device, ...] = ()

    def device(self, name: str) -> Device | None:
        if name == CPU:
            return self.host
        return next((g for g in self.gpus if g.name == name), None)


@dataclass(frozen=True, slots=True)
class EnginePlan:
    name: str
    weights_bytes: int | None  # whole model; None when unknown (a hub id not downloaded)
    kv_bytes: int  # per device
    overhead_bytes: int  # per device
    # Bytes this engine takes on each device it uses.
    placements: Mapping[str, int] = field(default_factory=dict)
    gpus_needed: int = 0  # GPUs it spans (0 on the CPU and for engines placing nothing here)
    placed_by_ray: bool = False  # Ray chooses its GPUs: not on this host's plan
    pinned: bool = False  # on the GPUs its `gpus` lists, not the first ones
    backend: str = "vllm"

    @property
    def total_bytes(self) -> int:
        return sum(self.placements.values())

    @property
    def devices(self) -> tuple[str, ...]:
        return tuple(self.placements)


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    engines: tuple[EnginePlan, ...]
    inventory: Inventory

    def usage(self, extra: Iterable[EnginePlan] = ()) -> dict[str, int]:
        """Bytes asked of each device by this plan's engines (plus `extra`)."""
        asked: dict[str, int] = {}
        for engine in (*self.engines, *extra):
            for device, size in engine.placements.items():
                asked[device] = asked.get(device, 0) + size
        return asked

    def shortfalls(self, extra: Iterable[EnginePlan] = ()) -> list[str]:
        """One line per device that cannot hold what is asked of it."""
        lines = []
        for device, asked in self.usage(extra).items():
            found = self.inventory.device(device)
            if found is None:
                lines.append(f"{device}: not present (visible GPUs: {len(self.inventory.gpus)})")
            elif asked > found.total_bytes:
                lines.append(f"{device}: needs {asked / GIB:.2f} GiB of "
                             f"{found.total_bytes / GIB:.2f} GiB")
        return lines

    @property
    def fits(self) -> bool:
        return not self.shortfalls()

    def fits_with(self, extra: Iterable[EnginePlan]) -> bool:
        """Whether this plan's engines and `extra` (e.g. old engines still draining) fit
        together."""
        return not self.shortfalls(extra)

    def engine(self, name: str) -> EnginePlan:
        return next(e for e in self.engines if e.name == name)


# --- what the machine has -----------------------------------------------------------------


def host_memory_bytes() -> int:
    """Memory this process may use: the cgroup limit when it is lower than the host's RAM."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        physical = 0
    limit = cgroup_memory_limit()
    if limit is not None and (physical == 0 or limit < physical):
        return limit
    return physical


def cgroup_memory_limit(root: Path = Path("/sys/fs/cgroup")) -> int | None:
    for candidate in (root / "memory.max", root / "memory" / "memory.limit_in_bytes"):
        try:
            raw = candidate.read_text().strip()
        except OSError:
            continue
        if raw.isdigit() and int(raw) < 1 << 60:  # cgroup v1 writes a huge number for "none"
            return int(raw)
    return None


def _nvml_gpus() -> tuple[Device, ...]:
    """The GPUs NVML sees, in CUDA_VISIBLE_DEVICES order; none without NVML or a driver."""
    try:
        import pynvml  # type: ignore[import-not-found]  # nvidia-ml-py: with vLLM CUDA builds
    except ImportError:
        return ()
    try:
        pynvml.nvmlInit()
    except Exception:  # no driver: a CPU host
        return ()
    try:
        count = pynvml.nvmlDeviceGetCount()
        # The gateway's own list, even while a pinned engine start has narrowed os.environ.
        indices = _visible_indices(ENGINE_START_LOCK.visible_devices(), count)
        gpus = []
        for cuda_index, physical in enumerate(indices):
            info = pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(physical))
            gpus.append(Device(f"cuda:{cuda_index}", int(info.total)))
        return tuple(gpus)
    finally:
        pynvml.nvmlShutdown()


def _visible_indices(visible: str | None, count: int) -> list[int]:
    """Physical GPU indices behind CUDA_VISIBLE_DEVICES (numeric form; UUIDs see all)."""
    if visible is None:
        return list(range(count))
    parts = [p.strip() for p in visible.split(",") if p.strip()]
    if not all(p.isdigit() for p in parts):
        return list(range(count))
    return [int(p) for p in parts if int(p) < count]


def detect_inventory(gpu_probe: Callable[[], tuple[Device, ...]] = _nvml_gpus) -> Inventory:
    """What this process can use: the host memory and every visible GPU."""
    return Inventory(Device(CPU, host_memory_bytes()), gpu_probe())


# --- what each engine asks for ------------------------------------------------------------


def _weights_bytes(model: str) -> int | None:
    if is_builtin(model):
        folder = prepared_path(model)
        name = model.split(":", 1)[1]
        if not folder.exists() and name in BUILTIN_MODELS:
            return _BUILTIN_WEIGHT_BYTES.get(name)
    else:
        folder = Path(model)
    if not folder.is_dir():
        return None  # a hub id: unknown until downloaded
    return sum(p.stat().st_size for p in folder.glob("*.safetensors")) or None


def _number(engine: str, args: Mapping[str, Any], key: str, default: float) -> float:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"engines.{engine}.engine_args.{key}: must be a number, got {value!r}")
    return float(value)


def _pinned(config: EngineConfig) -> tuple[int, ...] | None:
    """The engine's GPU pins, checked (a ValueError names the YAML path)."""
    pinned = engine_gpus(config)
    if pinned is None:
        return None
    key = "gpus" if config.gpus else "engine_args.device_ids"
    raw = list(pinned)
    args = dict(config.engine_args)
    if key != "gpus":
        args.pop("device_ids")  # parse_gpus refuses gpus and device_ids together
    try:
        return parse_gpus(raw, args)
    except ValueError as exc:
        raise ValueError(f"engines.{config.name}.{key}: {exc}") from exc


def plan_engine(config: EngineConfig, inventory: Inventory) -> EnginePlan:
    args = config.engine_args
    if config.backend != "vllm":  # fake engines, remote servers: nothing in this process
        return EnginePlan(config.name, 0, 0, 0, {}, backend=config.backend)
    pinned = _pinned(config)
    weights = _weights_bytes(config.model)
    utilization = _number(config.name, args, "gpu_memory_utilization", _VLLM_DEFAULT_UTILIZATION)
    kv_fixed = args.get("kv_cache_memory_bytes")
    if kv_fixed is not None:
        kv_fixed = int(_number(config.name, args, "kv_cache_memory_bytes", 0))
    count = gpus_needed(args)
    if uses_ray(args):
        # Ray's placement groups pick the GPUs, maybe on other nodes: nothing to check here.
        return EnginePlan(config.name, weights, 0, 0, {}, count, placed_by_ray=True)
    on_gpu = bool(inventory.gpus) and str(args.get("device", "auto")) != "cpu"
    if not on_gpu:
        kv = kv_fixed if kv_fixed is not None else int(utilization * inventory.host.total_bytes)
        total = (weights or 0) + kv + _CPU_ENGINE_OVERHEAD_BYTES
        return EnginePlan(config.name, weights, kv, _CPU_ENGINE_OVERHEAD_BYTES, {CPU: total})
    placements: dict[str, int] = {}
    kv = 0
    for index in pinned or range(count):
        name = f"cuda:{index}"
        device = inventory.device(name)
        if kv_fixed is not None:
            kv = kv_fixed
            share = (weights or 0) // count + kv_fixed + _GPU_ENGINE_OVERHEAD_BYTES
        else:
            # vLLM's budget per GPU covers weights, activations and KV cache together.
            share = int(utilization * device.total_bytes) if device else 0
            kv = max(0, share - (weights or 0) // count - _GPU_ENGINE_OVERHEAD_BYTES)
        placements[name] = share if device else 1  # a missing GPU shows up as a shortfall
    overhead = 0 if kv_fixed is None else _GPU_ENGINE_OVERHEAD_BYTES
    return EnginePlan(config.name, weights, kv, overhead, placements, count,
                      pinned=pinned is not None)


def plan_memory(
    engines: Mapping[str, EngineConfig], inventory: Inventory | None = None
) -> MemoryPlan:
    found = inventory or detect_inventory()
    return MemoryPlan(tuple(plan_engine(e, found) for e in engines.values()), found)


def host_inventory(total_bytes: int) -> Inventory:
    """A CPU-only inventory of a given size (tests, and plans for another machine)."""
    return Inventory(Device(CPU, total_bytes))


def _gpu_line(e: EnginePlan) -> str | None:
    """What an engine needs of GPUs and what it gets, for `switchboard check`."""
    if e.placed_by_ray:
        return (f"    GPUs: needs {e.gpus_needed}, placed by Ray (its placement groups, maybe on "
                "other nodes; not checked on this host)")
    if not e.gpus_needed:
        return None
    gets = ", ".join(e.placements) or "none"
    how = "pinned" if e.pinned else "the first visible"
    return f"    GPUs: needs {e.gpus_needed}, gets {gets} ({how})"


def format_plan(plan: MemoryPlan) -> str:
    def gib(value: int | None) -> str:
        return "?" if value is None else f"{value / GIB:.2f} GiB"

    inventory = plan.inventory
    where = ", ".join(f"{g.name} {gib(g.total_bytes)}" for g in inventory.gpus) or "no GPU"
    lines = [f"memory plan (host {gib(inventory.host.total_bytes)}; {where}):"]
    for e in plan.engines:
        if e.placed_by_ray:
            lines.append(f"  {e.name}: weights {gib(e.weights_bytes)}, on the Ray cluster")
        elif not e.placements:
            lines.append(f"  {e.name}: no memory here ({e.backend} engine)")
            continue
        else:
            spread = ", ".join(f"{d} {gib(b)}" for d, b in e.placements.items())
            lines.append(f"  {e.name}: weights {gib(e.weights_bytes)}, kv cache "
                         f"{gib(e.kv_bytes)} per device -> {spread}")
        gpu_line = _gpu_line(e)
        if gpu_line:
            lines.append(gpu_line)
    for device, asked in plan.usage().items():
        found = inventory.device(device)
        capacity = gib(found.total_bytes) if found else "absent"
        lines.append(f"  {device}: {gib(asked)} of {capacity}")
    shortfalls = plan.shortfalls()
    lines.append("  fits" if not shortfalls else "  DOES NOT FIT: " + "; ".join(shortfalls))
    planned = [e for e in plan.engines if e.placements]
    if planned:
        # A hot reload starts the new engine beside the old one when both fit.
        largest = max(planned, key=lambda e: e.total_bytes)
        mode = ("old and new side by side, no downtime" if plan.fits_with([largest])
                else "in place: drain, stop, start; its routes answer 503 meanwhile")
        lines.append(f"  reloading {largest.name} (the largest): {mode}")
    return "\n".join(lines)
