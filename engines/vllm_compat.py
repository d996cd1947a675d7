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

- launching engine cores that several API processes share (`server.api_processes`): vLLM's
  own multi-API-server launcher, `vllm.v1.engine.utils.launch_core_engines`, whose signature
  changed: 0.26 takes the addresses from `get_engine_zmq_addresses` and the client count and
  yields a tuple; 0.3x takes the addresses from `get_engine_zmq_bind_addresses` and yields a
  `CoreEngineLaunch`. `launch_shared_cores` knows both (a unit test per shape).

`probe` looks for each shape once, so an unknown vLLM fails at start-up with a message that
names the version and what was looked for, instead of on the first /ready or request.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator
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


@dataclass(frozen=True, slots=True)
class SharedLaunch:
    """Engine cores launched for `clients` API processes: what their clients connect to and
    what must be shut down when the gateway stops."""

    manager: Any  # vLLM's CoreEngineProcManager (None when the cores are not local)
    coordinator: Any  # vLLM's DPCoordinator or None
    inputs: list[str]  # per API process: the address its client binds for requests
    outputs: list[str]  # per API process: the address its client binds for outputs
    stats_update_address: str | None

    def shutdown(self) -> None:
        """Stop the cores (SIGTERM, then SIGKILL after vLLM's grace period) and the
        coordinator, if any; never raises."""
        for part in (self.manager, self.coordinator):
            if part is not None:
                with contextlib.suppress(Exception):
                    part.shutdown()

    def client_addresses(self, index: int) -> dict[str, Any]:
        """`AsyncLLM.from_vllm_config(client_addresses=...)` for API process `index`."""
        addresses: dict[str, Any] = {"input_address": self.inputs[index],
                                     "output_address": self.outputs[index]}
        if self.stats_update_address is not None:
            addresses["stats_update_address"] = self.stats_update_address
        return addresses


def _launch_shape(utils: Any, version: str) -> str:
    launch = getattr(utils, "launch_core_engines", None)
    if launch is None:
        raise VllmIncompatibleError(
            f"vLLM {version}: no vllm.v1.engine.utils.launch_core_engines, so engine cores "
            "cannot be shared by several API processes; use server.api_processes: 1")
    params = inspect.signature(launch).parameters
    if "num_api_servers" in params and hasattr(utils, "get_engine_zmq_addresses"):
        return "0.26"
    if "addresses" in params and hasattr(utils, "get_engine_zmq_bind_addresses"):
        return "0.3x"
    raise VllmIncompatibleError(
        f"vLLM {version}: launch_core_engines{inspect.signature(launch)} is neither the 0.26 "
        "nor the 0.3x shape; use server.api_processes: 1")


@contextlib.contextmanager
def launch_shared_cores(vllm_config: Any, executor_class: Any, log_stats: bool, clients: int,
                        utils: Any, version: str) -> Iterator[SharedLaunch]:
    """Launch one engine's cores for `clients` API processes (`utils`: vLLM's
    `vllm.v1.engine.utils`). Leaving the block waits until the cores are up; they keep
    running until `manager.shutdown()`. Every address is local (IPC): each API process
    binds its own pair, so nothing needs reporting back to this process."""
    shape = _launch_shape(utils, version)
    if shape == "0.26":
        planned = utils.get_engine_zmq_addresses(vllm_config, clients)
        with utils.launch_core_engines(vllm_config, executor_class, log_stats, planned,
                                       clients) as (manager, coordinator, addresses, _queue):
            yield _shared(manager, coordinator, addresses)
    else:
        # vLLM's own server binds these in the parent and passes the listening sockets
        # down; IPC endpoints that each API process binds itself work as in 0.26.
        bind = utils.get_engine_zmq_bind_addresses(vllm_config, clients)
        planned = utils.EngineZmqAddresses(inputs=list(bind.inputs), outputs=list(bind.outputs))
        with utils.launch_core_engines(vllm_config, executor_class, log_stats,
                                       planned) as launch:
            yield _shared(launch.engine_manager, launch.coordinator, launch.addresses)


def _shared(manager: Any, coordinator: Any, addresses: Any) -> SharedLaunch:
    stats = coordinator.get_stats_publish_address() if coordinator is not None else None
    return SharedLaunch(manager, coordinator, list(addresses.inputs), list(addresses.outputs),
                        stats)
