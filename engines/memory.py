"""A memory plan for a config: what each engine will take, and whether it all fits.

On the CPU backend vLLM reserves `kv_cache_memory_bytes`, or else `gpu_memory_utilization`
of the machine's memory, for each engine's KV cache, on top of the weights. The plan adds
those up against the machine's memory so `switchboard check` can refuse a config that
would only fail at start-up.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engines.sources import BUILTIN_MODELS, is_builtin, prepared_path
from router.config import GatewayConfig

# fp32 safetensors sizes of the prepared built-in models, for plans made before preparing.
_BUILTIN_WEIGHT_BYTES = {"smollm2-135m-instruct": 538_090_408, "gemma-3-270m": 1_072_000_000}
_VLLM_DEFAULT_UTILIZATION = 0.92
# Process overhead per engine (engine-core process, torch, tokenizer) seen on these CPUs.
_ENGINE_OVERHEAD_BYTES = 1_200_000_000
GIB = 1 << 30


@dataclass(frozen=True, slots=True)
class EnginePlan:
    name: str
    weights_bytes: int | None
    kv_bytes: int
    overhead_bytes: int

    @property
    def total_bytes(self) -> int:
        return (self.weights_bytes or 0) + self.kv_bytes + self.overhead_bytes


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    engines: tuple[EnginePlan, ...]
    available_bytes: int

    @property
    def total_bytes(self) -> int:
        return sum(e.total_bytes for e in self.engines)

    @property
    def fits(self) -> bool:
        return self.total_bytes <= self.available_bytes


def machine_memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 0


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


def plan_memory(config: GatewayConfig, available_bytes: int | None = None) -> MemoryPlan:
    total = machine_memory_bytes() if available_bytes is None else available_bytes
    plans = []
    for name, engine in config.engines.items():
        if engine.backend == "fake":
            plans.append(EnginePlan(name, 0, 0, 0))
            continue
        args = engine.engine_args
        kv = args.get("kv_cache_memory_bytes")
        if kv is None:
            kv = int(float(args.get("gpu_memory_utilization", _VLLM_DEFAULT_UTILIZATION)) * total)
        plans.append(EnginePlan(name, _weights_bytes(engine.model), int(kv),
                                _ENGINE_OVERHEAD_BYTES))
    return MemoryPlan(tuple(plans), total)


def format_plan(plan: MemoryPlan) -> str:
    def gib(value: int | None) -> str:
        return "?" if value is None else f"{value / GIB:.2f} GiB"

    lines = ["memory plan (host memory, CPU backend):"]
    for e in plan.engines:
        lines.append(f"  {e.name}: weights {gib(e.weights_bytes)} + kv cache {gib(e.kv_bytes)}"
                     f" + process {gib(e.overhead_bytes)} = {gib(e.total_bytes)}")
    verdict = "fits" if plan.fits else "DOES NOT FIT"
    lines.append(f"  total {gib(plan.total_bytes)} of {gib(plan.available_bytes)}: {verdict}")
    if plan.engines:
        # A hot reload starts the new engine beside the old one when both fit.
        largest = max(plan.engines, key=lambda e: e.total_bytes)
        side_by_side = plan.total_bytes + largest.total_bytes
        mode = ("old and new side by side, no downtime" if side_by_side <= plan.available_bytes
                else "in place: drain, stop, start; its routes answer 503 meanwhile")
        lines.append(f"  reloading {largest.name} (the largest) needs "
                     f"{gib(side_by_side)}: {mode}")
    return "\n".join(lines)
