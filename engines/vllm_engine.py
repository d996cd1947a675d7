"""The vLLM adapter: one in-process `AsyncLLM` per engine, streaming with DELTA outputs.

Works with vLLM 0.26 through 0.33 through public APIs; the two internals it reads are found
once at start-up by `engines.vllm_compat.probe`. vLLM is imported lazily so that router code
and unit tests never load it.

Engine-core processes start with the `spawn` method unless VLLM_WORKER_MULTIPROC_METHOD says
otherwise: engines start concurrently in threads, and forking while another thread holds a
file lock (vLLM's config and tokenizer loading take some) crashes on CUDA hosts.

vLLM's own parallelism passes through `engine_args` untouched (tensor, pipeline and data
parallel sizes, `distributed_executor_backend: ray`, `data_parallel_backend: ray`). An engine
pinned to GPUs (`gpus`) is built with CUDA_VISIBLE_DEVICES narrowed to them, under the
process-wide lock of engines.placement: the spawned engine-core processes inherit os.environ,
and no AsyncLLM option picks devices in every supported vLLM.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import structlog

from engines.admission import share
from engines.batch_encoder import BatchEncode, BatchEncoder
from engines.config import SAMPLING_FIELDS, EngineConfig
from engines.errors import EngineDeadError, EngineNotReadyError, EngineRequestError
from engines.placement import ENGINE_START_LOCK, configured_gpus, data_parallel_ranks
from engines.protocol import EngineStats, GenerationChunk, GenerationRequest, PreparedPrompt
from engines.shared_cores import CoreAttachment
from engines.sources import is_builtin, resolve_model
from engines.vllm_compat import (
    SharedLaunch,
    VllmShape,
    engine_pids,
    fresh_sampling_params,
    launch_shared_cores,
    probe,
)
from engines.vllm_stats import SchedulerSnapshot, stat_logger_factory

log = structlog.get_logger("switchboard.vllm")

# The sampling fields the gateway accepts map onto SamplingParams fields of the same name.
_SAMPLING_KEYS = tuple(SAMPLING_FIELDS)

PROCESS_EXIT_TIMEOUT_S = 10.0
MULTIPROC_ENV = "VLLM_WORKER_MULTIPROC_METHOD"

_FALLBACK_ROLES = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool"}


def _wait_gone(pids: list[int], timeout_s: float) -> None:
    import psutil

    processes = []
    for pid in pids:
        try:
            processes.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            continue
    _, alive = psutil.wait_procs(processes, timeout=timeout_s)
    for process in alive:  # vLLM's own SIGKILL did not land in time
        process.kill()


def async_engine_arg_names() -> frozenset[str]:
    """Field names of vLLM's AsyncEngineArgs, for validating routes.yaml."""
    import dataclasses

    from vllm.engine.arg_utils import AsyncEngineArgs

    return frozenset(f.name for f in dataclasses.fields(AsyncEngineArgs)) - {"model"}


def build_engine_args(config: EngineConfig, model_path: str, api_processes: int = 1,
                      rank: int = 0) -> Any:
    """AsyncEngineArgs from routes.yaml; with several API processes sharing the cores,
    vLLM's own count and rank of this process (-1: the process that launches the cores)."""
    from vllm.engine.arg_utils import AsyncEngineArgs

    args = dict(config.engine_args)
    # The gateway logs one line per request itself; vLLM's per-request lines would double it.
    args.setdefault("enable_log_requests", False)
    # vLLM's statistics cost ~20 of ~50 us of event-loop time per streamed token (per-token
    # IterationStats, a Prometheus registry the gateway never serves, a log line): off
    # unless routes.yaml asks for them, and then the scheduler gauges come with them.
    args.setdefault("disable_log_stats", True)
    if "served_model_name" not in args:
        args["served_model_name"] = config.name
    engine_args = AsyncEngineArgs(model=model_path, **args)
    if api_processes > 1:  # what `vllm serve --api-server-count` sets
        engine_args._api_process_count = api_processes
        engine_args._api_process_rank = rank
    return engine_args


def profiles_device_memory() -> bool:
    """Whether this vLLM build sizes its KV cache by profiling accelerator memory (CUDA,
    ROCm, …), so that engine starts on one device must not overlap (engines.placement)."""
    from vllm.platforms import current_platform

    return not current_platform.is_cpu()


def build_async_llm(config: EngineConfig, engine_args: Any, stat_loggers: list[Any]) -> Any:
    """AsyncLLM.from_engine_args, holding the start lock as the engine's placement needs:
    the engine-core processes are spawned inside it and take os.environ as it is then, and
    on an accelerator it profiles the device's free memory."""
    from vllm.v1.engine.async_llm import AsyncLLM

    with ENGINE_START_LOCK.for_start(configured_gpus(config), config.engine_args,
                                     profiles_device=profiles_device_memory()):
        return AsyncLLM.from_engine_args(engine_args, stat_loggers=stat_loggers)


def launch_cores(config: EngineConfig, model_path: str, clients: int) -> SharedLaunch:
    """Launch one engine's cores for `clients` API processes (engines.shared_cores) and wait
    until they are up, holding the start lock as build_async_llm does."""
    from vllm import __version__
    from vllm.usage.usage_lib import UsageContext
    from vllm.v1.engine import utils
    from vllm.v1.executor import Executor

    engine_args = build_engine_args(config, model_path, clients, rank=-1)
    vllm_config = engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)
    hold = ENGINE_START_LOCK.for_start(configured_gpus(config), config.engine_args,
                                       profiles_device=profiles_device_memory())
    launched: SharedLaunch | None = None
    try:
        with hold, launch_shared_cores(vllm_config, Executor.get_class(vllm_config),
                                       not engine_args.disable_log_stats, clients, utils,
                                       __version__) as launch:
            launched = launch
    except BaseException:
        if launched is not None:  # launched, then failed (or was stopped) while starting
            launched.shutdown()
        raise
    return launched


def attach_async_llm(engine_args: Any, attachment: CoreAttachment,
                     stat_loggers: list[Any]) -> Any:
    """An AsyncLLM client on cores another process launched (engines.shared_cores)."""
    from vllm.usage.usage_lib import UsageContext
    from vllm.v1.engine.async_llm import AsyncLLM

    vllm_config = engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)
    return AsyncLLM.from_vllm_config(
        vllm_config, usage_context=UsageContext.OPENAI_API_SERVER, stat_loggers=stat_loggers,
        enable_log_requests=engine_args.enable_log_requests,
        disable_log_stats=engine_args.disable_log_stats,
        client_addresses=dict(attachment.client_addresses),
        client_count=attachment.client_count, client_index=attachment.client_index,
    )


def admission_seqs(vllm_config: Any) -> int:
    """Sequences the engine runs at once: each data-parallel rank schedules up to
    max_num_seqs, and the AsyncLLM spreads requests over its ranks."""
    per_rank = int(vllm_config.scheduler_config.max_num_seqs)
    return per_rank * data_parallel_ranks(vllm_config.parallel_config)


def rust_tokenizer(tokenizer: Any) -> Any:
    """A private copy of a fast tokenizer's Rust core, or None for other tokenizers.

    Encoding through it gives the ids `tokenizer.encode` gives, at a fraction of the cost:
    transformers' Python wrapper around it was the largest single cost on the event loop at
    256 concurrent streams (an H200 profile). The copy has truncation and padding off, as
    `encode` without those arguments has, and leaves vLLM's own tokenizer untouched.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    to_str = getattr(backend, "to_str", None)
    if not callable(to_str):
        return None
    from tokenizers import Tokenizer

    copy = Tokenizer.from_str(to_str())
    copy.no_truncation()
    copy.no_padding()
    return copy


def batch_encode_for(tokenizer: Any) -> BatchEncode:
    rust = rust_tokenizer(tokenizer)
    if rust is not None:
        def encode_rust(texts: Sequence[str], add_special: bool) -> list[list[int]]:
            return [e.ids for e in rust.encode_batch(list(texts), add_special_tokens=add_special)]

        return encode_rust

    def encode_each(texts: Sequence[str], add_special: bool) -> list[list[int]]:
        return [list(tokenizer.encode(t, add_special_tokens=add_special)) for t in texts]

    return encode_each


def _dead_error_types() -> tuple[type[BaseException], ...]:
    from vllm.v1.engine.exceptions import EngineDeadError as VllmEngineDead

    return (VllmEngineDead,)


class VllmEngine:
    recovers = False  # an engine core that died stays dead; a reload restarts it

    def __init__(self, config: EngineConfig, attachment: CoreAttachment | None = None) -> None:
        self._config = config
        # Set: the engine's cores run under another process (engines.shared_cores) and this
        # is one of their API-process clients.
        self._attachment = attachment
        self._llm: Any = None
        self._tokenizer: Any = None
        self._encoder: BatchEncoder | None = None
        self._max_model_len = 0
        self._max_num_seqs = 0
        self._has_template = False
        self._dead_errors: tuple[type[BaseException], ...] = ()
        self._sampling_cls: Any = None
        self._delta: Any = None
        self._scheduler: SchedulerSnapshot | None = None
        self._shape: VllmShape | None = None
        self._building: asyncio.Future[Any] | None = None

    @property
    def name(self) -> str:
        return self._config.name

    @property
    def model(self) -> str:
        return self._config.model

    @property
    def max_model_len(self) -> int:
        return self._max_model_len

    @property
    def max_num_seqs(self) -> int:
        return self._max_num_seqs

    @property
    def has_chat_template(self) -> bool:
        return self._has_template

    async def start(self) -> None:
        # Route vLLM's logging through ours (see router.logs) instead of its own handlers.
        os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
        os.environ.setdefault(MULTIPROC_ENV, "spawn")
        model_path = self._config.model
        if self._attachment is not None:  # the launching process resolved it already
            model_path = self._attachment.model_path
        elif is_builtin(model_path):
            # Preparing a built-in model is CPU work; keep the event loop free meanwhile.
            model_path = await asyncio.to_thread(resolve_model, model_path)
        attachment = self._attachment
        engine_args = (build_engine_args(self._config, model_path) if attachment is None else
                       build_engine_args(self._config, model_path, attachment.client_count,
                                         attachment.client_index))

        from vllm import SamplingParams, __version__
        from vllm.sampling_params import RequestOutputKind

        self._sampling_cls = fresh_sampling_params(SamplingParams)
        self._delta = RequestOutputKind.DELTA
        self._dead_errors = _dead_error_types()
        # A stat logger turns vLLM's statistics on, so it is attached only when they are.
        self._scheduler = None if engine_args.disable_log_stats else SchedulerSnapshot()
        loggers = [] if self._scheduler is None else [stat_logger_factory(self._scheduler)]
        # from_engine_args blocks until the engine-core process is up; a thread lets several
        # engines start at once. The build is kept so that a start cancelled meanwhile (SIGTERM
        # during start-up, a cancelled reload) still shuts down what the thread goes on to
        # build, instead of orphaning its engine-core process.
        build = (functools.partial(build_async_llm, self._config, engine_args, loggers)
                 if attachment is None else
                 functools.partial(attach_async_llm, engine_args, attachment, loggers))
        self._building = asyncio.get_running_loop().run_in_executor(None, build)
        self._llm = await asyncio.shield(self._building)
        self._building = None
        try:
            self._shape = probe(self._llm, __version__)
        except Exception:
            await self.aclose()
            raise
        log.info("vllm_engine_started", engine=self.name, vllm=__version__,
                 unfinished_from=self._shape.unfinished_source)
        model_config = self._llm.model_config
        self._max_model_len = int(model_config.max_model_len)
        self._max_num_seqs = admission_seqs(self._llm.vllm_config)
        if attachment is not None:  # this process's share (router.processes.share_of)
            self._max_num_seqs = share(self._max_num_seqs, attachment.client_count)
        tokenizer = self._llm.get_tokenizer()
        if inspect.isawaitable(tokenizer):
            tokenizer = await tokenizer
        self._tokenizer = tokenizer
        self._encoder = BatchEncoder(batch_encode_for(tokenizer), self.name)
        self._has_template = bool(getattr(tokenizer, "chat_template", None))

    async def prepare_chat(self, messages: Sequence[Mapping[str, str]]) -> PreparedPrompt:
        return await self._encode(self._render_chat(messages))

    async def prepare_text(self, prompt: str) -> PreparedPrompt:
        return await self._encode(prompt)

    def _render_chat(self, messages: Sequence[Mapping[str, str]]) -> str:
        if self._tokenizer is None:
            raise EngineNotReadyError(f"engine {self.name!r} is not started")
        if self._has_template:
            try:
                rendered = self._tokenizer.apply_chat_template(
                    list(messages), tokenize=False, add_generation_prompt=True
                )
            except Exception as exc:  # a template may reject e.g. role order
                raise EngineRequestError(
                    f"the chat template rejected the messages: {exc}"
                ) from exc
            return str(rendered)
        # A base model without a chat template: a plain transcript it can continue.
        lines = [f"{_FALLBACK_ROLES.get(m['role'], m['role'])}: {m['content']}" for m in messages]
        return "\n".join(lines) + "\nAssistant:"

    async def _encode(self, prompt: str) -> PreparedPrompt:
        if self._encoder is None:
            raise EngineNotReadyError(f"engine {self.name!r} is not started")
        # A chat template already carries the BOS token; adding it again would double it.
        ids = await self._encoder.encode(prompt, add_special=not self._has_template)
        return PreparedPrompt(token_ids=ids, text=prompt)

    def _sampling_params(self, sampling: Mapping[str, Any]) -> Any:
        kwargs = {k: sampling[k] for k in _SAMPLING_KEYS if k in sampling}
        try:
            return self._sampling_cls(output_kind=self._delta, **kwargs)
        except (ValueError, TypeError) as exc:
            raise EngineRequestError(str(exc)) from exc

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]:
        llm, shape = self._llm, self._shape
        if llm is None or shape is None:
            raise EngineNotReadyError(f"engine {self.name!r} is not started")
        if llm.errored:
            raise EngineDeadError(f"engine {self.name!r} is dead")
        params = self._sampling_params(request.sampling)
        prompt = shape.token_prompt(list(request.prompt.token_ids))
        finished = False
        try:
            stream = llm.generate(
                prompt, params, request.request_id, priority=request.priority,
                trace_headers=request.trace_headers or None,
            )
            async for output in stream:
                for completion in output.outputs:
                    yield GenerationChunk(
                        index=completion.index,
                        text=completion.text,
                        token_count=len(completion.token_ids),
                        finish_reason=completion.finish_reason,
                        stop_reason=completion.stop_reason,
                    )
                finished = output.finished
        except self._dead_errors as exc:
            raise EngineDeadError(f"engine {self.name!r} died: {exc}") from exc
        except ValueError as exc:  # vLLM's input validation (e.g. a too-long prompt)
            raise EngineRequestError(str(exc)) from exc
        finally:
            if not finished and not llm.errored:
                # AsyncLLM aborts on cancellation itself; this covers every other exit path.
                await asyncio.shield(self.abort(request.request_id))

    async def abort(self, request_id: str) -> None:
        if self._llm is not None and not self._llm.errored:
            await self._llm.abort(request_id)

    async def check_health(self) -> None:
        if self._llm is None:
            raise EngineNotReadyError(f"engine {self.name!r} is not started")
        try:
            await self._llm.check_health()
        except Exception as exc:
            raise EngineDeadError(f"engine {self.name!r} failed its health check: {exc}") from exc

    def pids(self) -> list[int]:
        """Engine-core process ids (empty when the cores are not local processes)."""
        return [] if self._llm is None else engine_pids(self._llm)

    def unfinished_requests(self) -> int:
        return 0 if self._shape is None or self._llm is None else self._shape.unfinished()

    def stats(self) -> EngineStats:
        snapshot = self._scheduler
        if snapshot is None:
            return EngineStats(unfinished=self.unfinished_requests())
        return EngineStats(running=snapshot.running, waiting=snapshot.waiting,
                           kv_cache_usage=snapshot.kv_cache_usage,
                           unfinished=self.unfinished_requests())

    async def aclose(self) -> None:
        building, self._building = self._building, None
        if building is not None and self._llm is None:
            # A start that was cancelled: wait for the build thread, then close its result.
            try:
                self._llm = await asyncio.shield(building)
            except Exception:  # the build failed: vLLM cleaned up its own processes
                return
        llm = self._llm
        if llm is None:
            return
        pids = self.pids()
        self._llm = None
        if self._encoder is not None:
            self._encoder.close()
            self._encoder = None
        self._shape = None
        # shutdown() stops the engine-core process (SIGTERM, then SIGKILL after a grace
        # period); do it off the event loop, then wait until the processes are really gone,
        # so "closed" means their memory is free.
        await asyncio.to_thread(llm.shutdown)
        await asyncio.to_thread(_wait_gone, pids, PROCESS_EXIT_TIMEOUT_S)


class CoresFailedEngine(VllmEngine):
    """An engine whose shared cores did not start (engines.shared_cores, with
    server.allow_degraded_start): its start fails with the supervisor's reason, so the
    API process serves the other engines and this one's routes answer 503."""

    def __init__(self, config: EngineConfig, reason: str) -> None:
        super().__init__(config)
        self._reason = reason

    async def start(self) -> None:
        raise RuntimeError(self._reason)
