"""What one benchmark invocation measures: the model, the engine args, the load levels.

Every arm is built from the same `BenchSpec`, so all of them run the same model with the same
vLLM engine args; each arm only renders them differently (CLI flags, routes.yaml, kwargs).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

# The one-route gateway with server.api_processes = BenchSpec.api_processes (shared cores).
MULTI_PROCESS_ARM = "switchboard-mp"

# These CPUs lack bf16 units and torch.compile takes a minute: fp32, eager, as routes.yaml.
CPU_ENGINE_ARGS: Mapping[str, Any] = {
    "dtype": "float32",
    "enforce_eager": True,
    "max_model_len": 1024,
    "max_num_seqs": 64,
    "kv_cache_memory_bytes": 1 << 30,
    "seed": 0,
}
GPU_ENGINE_ARGS: Mapping[str, Any] = {
    "max_model_len": 2048,
    "max_num_seqs": 256,
    "gpu_memory_utilization": 0.4,
    "seed": 0,
}


@dataclass(frozen=True, slots=True)
class Level:
    """One measured load: closed loop at `concurrency`, or open loop at `rate` requests/s."""

    num_prompts: int
    concurrency: int | None = None
    rate: float | None = None
    output_len: int | None = None  # None: the spec's output_len

    @property
    def label(self) -> str:
        load = f"c{self.concurrency}" if self.rate is None else f"rate{self.rate:g}"
        return load if self.output_len is None else f"{load}-o{self.output_len}"


@dataclass(frozen=True, slots=True)
class BenchSpec:
    model: str  # a folder with weights and tokenizer
    engine_args: Mapping[str, Any]
    levels: tuple[Level, ...]
    translation_model: str = ""  # second engine of the two-engine arm
    input_len: int = 128
    output_len: int = 64
    seed: int = 0
    repeats: int = 2
    warmups: int = 2
    arms: tuple[str, ...] = ("direct", "vllm", "switchboard", "switchboard-2")
    env: Mapping[str, str] = field(default_factory=dict)
    # processes the HTTP arms' load generator is split over (loadgen.LoadClient)
    client_processes: int = 1
    # routes.yaml `server:` settings of the switchboard arms (e.g. stream_pacing)
    server_settings: Mapping[str, Any] = field(default_factory=dict)
    # server.api_processes of the `switchboard-mp` arm (engine cores shared by N processes)
    api_processes: int = 4

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)


def build_levels(concurrencies: Sequence[int], rate: float | None, prompts_per_stream: int,
                 min_prompts: int, long_output_len: int | None = None) -> tuple[Level, ...]:
    levels = [Level(max(min_prompts, prompts_per_stream * c), concurrency=c) for c in concurrencies]
    if long_output_len:  # the same closed-loop loads with longer answers (decode-heavy)
        levels += [Level(max(min_prompts, prompts_per_stream * c), concurrency=c,
                         output_len=long_output_len) for c in concurrencies]
    if rate:
        # Long enough for the arrival process to matter: ~12 s of arrivals.
        levels.append(Level(max(min_prompts, round(rate * 12)), rate=rate))
    return tuple(levels)


def cli_flags(engine_args: Mapping[str, Any]) -> list[str]:
    """Engine args as `vllm serve` flags (`enforce_eager: true` → `--enforce-eager`)."""
    flags: list[str] = []
    for key, value in engine_args.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif value is False:
            flags.append("--no-" + key.replace("_", "-"))
        else:
            flags += [flag, json.dumps(value) if isinstance(value, dict | list) else str(value)]
    return flags


def parse_engine_arg(text: str) -> tuple[str, Any]:
    """`key=value` from the command line; the value is JSON when it parses, else a string."""
    key, sep, raw = text.partition("=")
    if not sep:
        raise ValueError(f"engine arg {text!r} is not key=value")
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip().replace("-", "_"), value
