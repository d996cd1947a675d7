"""Sampling parameters from a request body, and their precedence.

Every field, its type and its range come from the one table, engines.config.SAMPLING_FIELDS
(which also validates routes.yaml, describes the OpenAPI body and feeds the vLLM adapter).
Precedence, highest first: the request's own fields > the variant's overrides > the route's
defaults > the engine's defaults > vLLM's defaults. ``max_tokens`` is finally clamped to the
route's ``max_tokens_cap`` and must fit the engine's context (router.pipeline.prepare).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.config import SAMPLING_FIELDS
from router.errors import InvalidRequestError


def parse_request_sampling(
    data: Mapping[str, Any], max_tokens_keys: Sequence[str], max_n: int
) -> dict[str, Any]:
    """Pick the sampling fields out of an OpenAI body and validate them."""
    out: dict[str, Any] = {}
    for key in max_tokens_keys:  # OpenAI's newer name first: max_completion_tokens
        if data.get(key) is not None:
            out["max_tokens"] = _checked(key, "max_tokens", data[key])
            break
    for name in SAMPLING_FIELDS:
        if name != "max_tokens" and data.get(name) is not None:
            out[name] = _checked(name, name, data[name])
    if out.get("n", 1) > max_n:
        raise InvalidRequestError(f"'n' must be an integer from 1 to {max_n}", param="n")
    if out.get("top_k") == 0:
        out["top_k"] = -1  # OpenAI-style clients send 0 for "disabled"; vLLM spells it -1
    if isinstance(out.get("stop"), str):
        out["stop"] = [out["stop"]]
    if "min_tokens" in out and "max_tokens" in out and out["min_tokens"] > out["max_tokens"]:
        raise InvalidRequestError("'min_tokens' must not exceed 'max_tokens'", param="min_tokens")
    return out


def _checked(param: str, name: str, value: Any) -> Any:
    problem = SAMPLING_FIELDS[name].problem(value)
    if problem is not None:
        raise InvalidRequestError(f"'{param}' {problem.replace(name, param)}", param=param)
    return value


def merge_sampling(*layers: Mapping[str, Any]) -> dict[str, Any]:
    """Merge layers given lowest precedence first: later layers win field by field."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update(layer)
    if isinstance(merged.get("stop"), str):
        merged["stop"] = [merged["stop"]]
    return merged
