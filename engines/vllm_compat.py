"""The few vLLM internals the adapter reads, found once per engine at start-up.

Everything else the adapter uses is public in every vLLM the `gpu`/`cpu` extras admit
(0.26 to 0.33): `AsyncLLM.from_engine_args`, `generate`, `abort`, `check_health`, `errored`,
`shutdown`, `get_tokenizer`, `model_config`, `vllm_config`. Two things are not:

- the number of requests the engine still holds: public `AsyncLLM.get_num_unfinished_requests`
  from 0.3x on; before that only `AsyncLLM.output_processor.get_num_unfinished_requests`;
- the engine-core process ids (to wait until a closed engine's memory is really free):
  `AsyncLLM.engine_core.resources.engine_manager.processes` in 0.26 to 0.33;
- whether `SamplingParams` takes `skip_clone` (a field, not a constructor argument, in
  every release so far): the adapter builds its parameters fresh per request, so vLLM may
  copy them shallowly instead of `copy.deepcopy` on every `add_request` (vLLM's own OpenAI
  server sets it for the same reason);
- how to hand over a prompt already tokenized: a typed `TokensInput`
  (`vllm.inputs.engine.tokens_input`) skips the raw-prompt preprocessor, which in 0.3x also
  means a thread-pool round trip per request before the engine sees it (two event-loop hops
  on every request's way to its first token); a plain `{"prompt_token_ids": ...}` otherwise.

`probe` looks for each shape once, so an unknown vLLM fails at start-up with a message that
names the version and what was looked for, instead of on the first /ready or request.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engines.errors import EngineError


class VllmIncompatibleError(EngineError):
    """This vLLM release lacks an interface the adapter needs."""


@dataclass(frozen=True, slots=True)
class VllmShape:
    version: str
    unfinished_source: str  # which shape was found, for logs and /admin/status
    unfinished: Callable[[], int]
    token_prompt: Callable[[list[int]], Any]


def _unfinished_counter(llm: Any, version: str) -> tuple[str, Callable[[], int]]:
    public = getattr(llm, "get_num_unfinished_requests", None)
    if callable(public):
        return "AsyncLLM.get_num_unfinished_requests", public
    processor = getattr(llm, "output_processor", None)
    private = getattr(processor, "get_num_unfinished_requests", None)
    if callable(private):  # vLLM 0.26
        return "AsyncLLM.output_processor.get_num_unfinished_requests", private
    raise VllmIncompatibleError(
        f"vLLM {version}: cannot count the engine's unfinished requests (looked for "
        "AsyncLLM.get_num_unfinished_requests and "
        "AsyncLLM.output_processor.get_num_unfinished_requests); switchboard supports vLLM "
        "0.26 to 0.33"
    )


def engine_pids(llm: Any) -> list[int]:
    """Local engine-core process ids; empty when the cores run elsewhere (Ray actors,
    external data parallel) and there is no local process to wait for."""
    resources = getattr(getattr(llm, "engine_core", None), "resources", None)
    manager = getattr(resources, "engine_manager", None)
    processes = getattr(manager, "processes", None) or []
    return [p.pid for p in processes if getattr(p, "pid", None) is not None]


def fresh_sampling_params(cls: Any) -> Callable[..., Any]:
    """`cls` (vLLM's SamplingParams) with `skip_clone=True` where it has that field: for
    parameters built per request and never reused, so vLLM need not deep-copy them."""
    fields = getattr(cls, "__struct_fields__", None) or getattr(cls, "__dataclass_fields__", {})
    if "skip_clone" in fields:
        return functools.partial(cls, skip_clone=True)
    return cls  # type: ignore[no-any-return]


def token_prompt_factory() -> Callable[[list[int]], Any]:
    """The cheapest prompt form for token ids this vLLM takes (see the module docstring)."""
    try:
        from vllm.inputs.engine import tokens_input
    except ImportError:
        return lambda ids: {"prompt_token_ids": ids}
    return tokens_input


def probe(llm: Any, version: str) -> VllmShape:
    """Find the internal shapes of this vLLM release; raise if a needed one is missing."""
    source, unfinished = _unfinished_counter(llm, version)
    return VllmShape(version, source, lambda: int(unfinished()), token_prompt_factory())
