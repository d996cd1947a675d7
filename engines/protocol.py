"""The narrow contract between the router and whatever generates tokens.

The router only ever sees this protocol, so tests inject a fake engine without patching and
other backends (a remote OpenAI-compatible server, say) can sit beside vLLM.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class PreparedPrompt:
    """A prompt ready for one engine: tokenised by its own tokenizer, or — for an engine that
    leaves tokenisation to an upstream server (engines.remote) — the chat messages or the
    rendered text as they will be sent, with no token count (``counted`` False)."""

    token_ids: Sequence[int]
    text: str
    # Chat messages for an engine whose upstream applies the chat template itself.
    messages: Sequence[Mapping[str, str]] | None = None
    counted: bool = True

    @property
    def token_count(self) -> int | None:
        """The prompt's length in tokens; None when only the upstream knows it."""
        return len(self.token_ids) if self.counted else None


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    request_id: str
    prompt: PreparedPrompt
    # Validated, merged sampling fields (router.pipeline.sampling); names and meanings are
    # vLLM's SamplingParams'.
    sampling: Mapping[str, Any] = field(default_factory=dict)
    # vLLM semantics: lower runs first. Only honoured with the priority scheduling policy.
    priority: int = 0
    # W3C trace context (traceparent, tracestate) of the gateway's span for this request, so
    # an engine that traces (vLLM with otlp_traces_endpoint) continues the same trace.
    trace_headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class GenerationChunk:
    """One delta of one choice: text and tokens produced since the previous chunk.

    Not frozen, though nothing changes it: one is built per streamed token, and a frozen
    dataclass's __init__ (object.__setattr__ per field) costs 2.5x a plain one's."""

    index: int
    text: str
    token_count: int
    finish_reason: str | None = None
    stop_reason: str | int | None = None
    # Set once, by an engine that does not count the prompt itself (engines.remote): the
    # prompt length its upstream reported. token_count may then also correct the running
    # total to the upstream's exact completion count (it can be negative on that chunk).
    prompt_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class EngineStats:
    # The scheduler's view; None where the engine does not measure it (a vLLM engine with
    # `disable_log_stats`, the gateway's default: vLLM's per-token statistics would cost
    # a third of the event loop at 256 streams).
    running: int | None = None  # in the scheduler's running batch
    waiting: int | None = None  # queued in the scheduler
    kv_cache_usage: float | None = None  # fraction of KV cache blocks in use
    unfinished: int = 0  # requests the engine still holds, whatever their state


@runtime_checkable
class Engine(Protocol):
    """One model server: living in this process (vLLM) or reached over HTTP (remote)."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def max_model_len(self) -> int:
        """The context length; 0 when unknown (a remote upstream that does not report it):
        the gateway then leaves context checks to the engine."""

    @property
    def max_num_seqs(self) -> int: ...

    @property
    def has_chat_template(self) -> bool: ...

    @property
    def recovers(self) -> bool:
        """True when a failed engine can come back by itself (a remote upstream that is
        reachable again): the registry then probes it and makes it ready once it answers,
        instead of leaving it failed until a reload restarts it."""

    async def start(self) -> None:
        """Load the model; returns when the engine can take requests."""

    async def prepare_chat(self, messages: Sequence[Mapping[str, str]]) -> PreparedPrompt:
        """Apply the model's chat template (ending with the assistant turn's opening) and
        tokenise the result. Async so that an engine can keep this CPU work off the loop."""

    async def prepare_text(self, prompt: str) -> PreparedPrompt:
        """Tokenise a prompt that is already rendered (completions, prompt templates)."""

    def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]:
        """Stream deltas. Closing or cancelling the iterator aborts the request in the engine."""

    async def abort(self, request_id: str) -> None: ...

    async def check_health(self) -> None:
        """Raise engines.errors.EngineDeadError if the engine cannot serve."""

    def stats(self) -> EngineStats: ...

    async def aclose(self) -> None:
        """Stop the engine and every process it started."""
