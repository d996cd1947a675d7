"""Sampling parameters: validation and precedence.

Precedence, highest first: the request's own fields > the variant's overrides > the route's
defaults > the engine's defaults > vLLM's defaults. A field absent at one level falls through
to the next; ``max_tokens`` is finally clamped to the route's ``max_tokens_cap`` and must fit
the engine's context (checked in router.dispatch, where the prompt length is known).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from router.errors import InvalidRequestError

MAX_STOP_SEQUENCES = 16
MAX_STOP_CHARS = 1_000

# name -> (allowed types, low, high, low inclusive). None bounds are open.
_NUMERIC: dict[str, tuple[tuple[type, ...], int | float | None, int | float | None, bool]] = {
    "temperature": ((int, float), 0.0, 2.0, True),
    "top_p": ((int, float), 0.0, 1.0, False),
    "min_p": ((int, float), 0.0, 1.0, True),
    "presence_penalty": ((int, float), -2.0, 2.0, True),
    "frequency_penalty": ((int, float), -2.0, 2.0, True),
    "repetition_penalty": ((int, float), 0.0, 10.0, False),
    "top_k": ((int,), -1, None, True),
    "max_tokens": ((int,), 1, None, True),
    "min_tokens": ((int,), 0, None, True),
    "seed": ((int,), -(2**63), 2**63 - 1, True),
}


def parse_request_sampling(
    data: Mapping[str, Any], max_tokens_keys: Sequence[str], max_n: int
) -> dict[str, Any]:
    """Pick the sampling fields out of an OpenAI body and validate them."""
    out: dict[str, Any] = {}
    for key in max_tokens_keys:
        if data.get(key) is not None:
            out["max_tokens"] = _number(key, data[key], "max_tokens")
            break
    for name in _NUMERIC:
        if name != "max_tokens" and data.get(name) is not None:
            out[name] = _number(name, data[name], name)
    if data.get("n") is not None:
        n = data["n"]
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= max_n:
            raise InvalidRequestError(f"'n' must be an integer from 1 to {max_n}", param="n")
        out["n"] = n
    if data.get("ignore_eos") is not None:
        if not isinstance(data["ignore_eos"], bool):
            raise InvalidRequestError("'ignore_eos' must be a boolean", param="ignore_eos")
        out["ignore_eos"] = data["ignore_eos"]
    if data.get("stop") is not None:
        out["stop"] = _stop(data["stop"])
    if "min_tokens" in out and "max_tokens" in out and out["min_tokens"] > out["max_tokens"]:
        raise InvalidRequestError("'min_tokens' must not exceed 'max_tokens'", param="min_tokens")
    return out


def _number(param: str, value: Any, name: str) -> int | float:
    types, low, high, low_inclusive = _NUMERIC[name]
    if isinstance(value, bool) or not isinstance(value, types):
        kind = "an integer" if types == (int,) else "a number"
        raise InvalidRequestError(f"'{param}' must be {kind}", param=param)
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidRequestError(f"'{param}' must be finite", param=param)
    number: int | float = value  # type: ignore[assignment]  # isinstance above narrows it
    too_low = low is not None and (number < low if low_inclusive else number <= low)
    too_high = high is not None and number > high
    if too_low or too_high:
        lo = "" if low is None else (f"{low} <= " if low_inclusive else f"{low} < ")
        hi = "" if high is None else f" <= {high}"
        raise InvalidRequestError(f"'{param}' must satisfy {lo}{param}{hi}", param=param)
    if name == "top_k" and number == 0:
        return -1  # OpenAI-style clients send 0 for "disabled"; vLLM spells it -1
    return number


def _stop(value: Any) -> list[str]:
    stops = [value] if isinstance(value, str) else value
    if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
        raise InvalidRequestError("'stop' must be a string or an array of strings", param="stop")
    if len(stops) > MAX_STOP_SEQUENCES:
        raise InvalidRequestError(
            f"'stop' may hold at most {MAX_STOP_SEQUENCES} sequences", param="stop"
        )
    if any(len(s) > MAX_STOP_CHARS or not s for s in stops):
        raise InvalidRequestError(
            f"each 'stop' sequence must have 1 to {MAX_STOP_CHARS} characters", param="stop"
        )
    return stops


def merge_sampling(*layers: Mapping[str, Any]) -> dict[str, Any]:
    """Merge layers given lowest precedence first: later layers win field by field."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update(layer)
    if isinstance(merged.get("stop"), str):
        merged["stop"] = [merged["stop"]]
    return merged
