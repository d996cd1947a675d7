"""A deterministic in-process engine for unit tests and gateway-overhead benchmarks.

It implements the Engine protocol without a model: the "tokenizer" maps words to ids and the
output is a fixed word sequence. It records every aborted request id so tests can assert that
nothing leaks, and can be told to be slow or to die.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass

from engines.errors import EngineDeadError, EngineNotReadyError
from engines.protocol import EngineStats, GenerationChunk, GenerationRequest, PreparedPrompt

_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")


@dataclass
class FakeEngineBehaviour:
    """Knobs tests turn; mutable on purpose."""

    token_delay_s: float = 0.0
    first_token_delay_s: float = 0.0
    default_max_tokens: int = 16
    tokens_per_chunk: int = 1
    dead: bool = False
    start_delay_s: float = 0.0
    fail_start: bool = False
    # vLLM's abort crosses a process boundary (~50 ms); cancellation can land meanwhile.
    abort_delay_s: float = 0.0


class FakeEngine:
    recovers = False

    def __init__(
        self,
        name: str,
        model: str = "fake-model",
        max_model_len: int = 512,
        max_num_seqs: int = 64,
        behaviour: FakeEngineBehaviour | None = None,
    ) -> None:
        self._name = name
        self._model = model
        self._max_model_len = max_model_len
        self._max_num_seqs = max_num_seqs
        self.behaviour = behaviour or FakeEngineBehaviour()
        self.started = False
        self.closed = False
        self.running: set[str] = set()
        self.aborted: list[str] = []
        self.finished: list[str] = []
        self.requests: list[GenerationRequest] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def model(self) -> str:
        return self._model

    @property
    def max_model_len(self) -> int:
        return self._max_model_len

    @property
    def max_num_seqs(self) -> int:
        return self._max_num_seqs

    @property
    def has_chat_template(self) -> bool:
        return True

    async def start(self) -> None:
        if self.behaviour.start_delay_s:
            await asyncio.sleep(self.behaviour.start_delay_s)
        if self.behaviour.fail_start:
            raise EngineDeadError(f"engine {self._name!r} failed to start (fake)")
        self.started = True

    async def prepare_chat(self, messages: Sequence[Mapping[str, str]]) -> PreparedPrompt:
        turns = "".join(f"<{m['role']}>{m['content']}</{m['role']}>" for m in messages)
        return await self.prepare_text(turns + "<assistant>")

    async def prepare_text(self, prompt: str) -> PreparedPrompt:
        # One token per whitespace-separated word keeps lengths predictable in tests.
        return PreparedPrompt(token_ids=[hash(w) & 0xFFFF for w in prompt.split()], text=prompt)

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]:
        if not self.started or self.closed:
            raise EngineNotReadyError(f"engine {self._name!r} is not running")
        if self.behaviour.dead:
            raise EngineDeadError(f"engine {self._name!r} is dead (fake)")
        self.requests.append(request)
        self.running.add(request.request_id)
        sampling = request.sampling
        max_tokens = int(sampling.get("max_tokens") or self.behaviour.default_max_tokens)
        choices = int(sampling.get("n") or 1)
        per_chunk = max(1, self.behaviour.tokens_per_chunk)
        try:
            if self.behaviour.first_token_delay_s:
                await self._sleep_unless_aborted(request.request_id,
                                                 self.behaviour.first_token_delay_s)
            produced = 0
            while produced < max_tokens:
                if request.request_id not in self.running:
                    return  # aborted: end the stream as vLLM does
                if self.behaviour.dead:
                    raise EngineDeadError(f"engine {self._name!r} died mid-stream (fake)")
                step = min(per_chunk, max_tokens - produced)
                text = "".join(
                    f" {_WORDS[(produced + k) % len(_WORDS)]}" for k in range(step)
                )
                produced += step
                finish = "length" if produced >= max_tokens else None
                for index in range(choices):
                    yield GenerationChunk(index=index, text=text, token_count=step,
                                          finish_reason=finish)
                if self.behaviour.token_delay_s:
                    await self._sleep_unless_aborted(request.request_id,
                                                     self.behaviour.token_delay_s)
                elif produced % 64 == 0:
                    await asyncio.sleep(0)  # let other streams and disconnects through
            self.finished.append(request.request_id)
        finally:
            if request.request_id in self.running:
                self.running.discard(request.request_id)
                if request.request_id not in self.finished:
                    self.aborted.append(request.request_id)

    async def _sleep_unless_aborted(self, request_id: str, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while request_id in self.running and loop.time() < end:
            await asyncio.sleep(min(0.01, end - loop.time()))

    async def abort(self, request_id: str) -> None:
        if self.behaviour.abort_delay_s:
            await asyncio.sleep(self.behaviour.abort_delay_s)
        if request_id in self.running:
            self.running.discard(request_id)
            self.aborted.append(request_id)

    async def check_health(self) -> None:
        if self.behaviour.dead:
            raise EngineDeadError(f"engine {self._name!r} is dead (fake)")
        if not self.started:
            raise EngineNotReadyError(f"engine {self._name!r} is not started")

    def stats(self) -> EngineStats:
        return EngineStats(running=len(self.running), unfinished=len(self.running))

    async def aclose(self) -> None:
        self.closed = True
