"""What an engine is configured with: its routes.yaml entry and the sampling fields.

The engine layer owns these types so that it imports nothing from router/; the config parser
(router.config) builds them, and the one sampling field table below feeds config validation,
request-body validation, the OpenAPI document and the vLLM adapter alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class RemoteConfig:
    """Where a ``backend: remote`` engine sends its requests (engines.remote)."""

    urls: tuple[str, ...]  # OpenAI-compatible base URLs, without /v1
    api_key_env: str | None = None  # the key is read from this variable, never from YAML
    max_model_len: int | None = None  # None: the upstream's /v1/models, else unknown
    connect_timeout_s: float = 5.0
    eject_after_failures: int = 3  # consecutive connect errors / 5xx before a URL rests
    eject_s: float = 30.0
    health_interval_s: float = 5.0


# A remote engine's admission bound when max_in_flight is not set.
REMOTE_DEFAULT_MAX_IN_FLIGHT = 256


@dataclass(frozen=True, slots=True)
class EngineConfig:
    name: str
    model: str
    engine_args: Mapping[str, Any] = field(default_factory=dict)
    sampling: Mapping[str, Any] = field(default_factory=dict)
    # Gateway-side admission bound; None means the engine's max_num_seqs.
    max_in_flight: int | None = None
    max_queue: int = 256
    # "vllm" for an in-process AsyncLLM, "remote" for OpenAI-compatible servers elsewhere,
    # "fake" for tests and overhead benchmarks.
    backend: str = "vllm"
    # Restart the engine with exponential backoff when its core process dies.
    restart_on_failure: bool = False
    # Only for backend "remote".
    remote: RemoteConfig | None = None
    # CUDA devices (CUDA_VISIBLE_DEVICES order) this engine's tp × pp × dp ranks use; None packs
    # it onto the first GPUs. Checked by engines.placement.parse_gpus.
    gpus: tuple[int, ...] | None = None

    def needs_restart_for(self, new: EngineConfig) -> bool:
        """Only what the engine itself was built from (for a remote engine: its upstream
        settings, URLs included); the other fields are the gateway's (admission bounds,
        restart policy, default sampling) and apply live."""
        return (self.model, dict(self.engine_args), self.backend, self.remote, self.gpus) != (
            new.model, dict(new.engine_args), new.backend, new.remote, new.gpus)


@dataclass(frozen=True, slots=True)
class SamplingField:
    """One sampling field: its JSON kind and range. Names follow vLLM's SamplingParams."""

    name: str
    kind: str  # "number", "integer", "boolean" or "stop" (a string or a list of strings)
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True

    @property
    def python_types(self) -> tuple[type, ...]:
        return {"number": (int, float), "integer": (int,), "boolean": (bool,),
                "stop": (str, list)}[self.kind]  # fmt: skip

    def problem(self, raw: Any) -> str | None:
        """Why `raw` is not acceptable for this field (None when it is)."""
        if isinstance(raw, bool) != (self.kind == "boolean") or not isinstance(
                raw, self.python_types):
            return {"number": "must be a number", "integer": "must be an integer",
                    "boolean": "must be a boolean",
                    "stop": "must be a string or an array of strings"}[self.kind]  # fmt: skip
        value: Any = raw  # of one of python_types, which isinstance cannot narrow to
        if self.kind == "stop":
            items = [value] if isinstance(value, str) else value
            ok = all(isinstance(s, str) and 0 < len(s) <= MAX_STOP_CHARS for s in items)
            if not ok or len(items) > MAX_STOP_SEQUENCES:
                return (f"must be a string or at most {MAX_STOP_SEQUENCES} strings of 1 to "
                        f"{MAX_STOP_CHARS} characters")
            return None
        if self.kind == "boolean":
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return "must be finite"
        too_low = self.low is not None and (
            value < self.low if self.low_inclusive else value <= self.low)
        if too_low or (self.high is not None and value > self.high):
            relation = "<=" if self.low_inclusive else "<"
            low = "" if self.low is None else f"{_num(self.low)} {relation} "
            high = "" if self.high is None else f" <= {_num(self.high)}"
            return f"must satisfy {low}{self.name}{high}"
        return None

    def json_schema(self) -> dict[str, Any]:
        if self.kind == "stop":
            return {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"},
                                                   "maxItems": MAX_STOP_SEQUENCES}]}
        schema: dict[str, Any] = {"type": self.kind}
        if self.low is not None:
            schema["minimum" if self.low_inclusive else "exclusiveMinimum"] = self.low
        if self.high is not None:
            schema["maximum"] = self.high
        return schema


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


MAX_STOP_SEQUENCES = 16
MAX_STOP_CHARS = 1_000

SAMPLING_FIELDS: Mapping[str, SamplingField] = {f.name: f for f in (
    SamplingField("temperature", "number", 0.0, 2.0),
    SamplingField("top_p", "number", 0.0, 1.0, low_inclusive=False),
    SamplingField("top_k", "integer", -1),
    SamplingField("min_p", "number", 0.0, 1.0),
    SamplingField("max_tokens", "integer", 1),
    SamplingField("min_tokens", "integer", 0),
    SamplingField("presence_penalty", "number", -2.0, 2.0),
    SamplingField("frequency_penalty", "number", -2.0, 2.0),
    SamplingField("repetition_penalty", "number", 0.0, 10.0, low_inclusive=False),
    SamplingField("stop", "stop"),
    SamplingField("seed", "integer", -(2**63), 2**63 - 1),
    SamplingField("ignore_eos", "boolean"),
    SamplingField("n", "integer", 1),
)}
