"""Run one lane: admit it, prepare it, stream its engine's deltas under the route's timeouts.

A Generation is one async generator from admission to the last token. What the request
takes — the admission ticket (weighted by its choices), its place in the engine's request
set, the gateway's in-flight count — is given back in that generator's single ``finally``,
synchronously and before its only ``await`` (the shielded engine abort), so no cancellation
can skip it: not a client leaving during the abort, not a shutdown.

How a lane ends decides what it is: every choice finished → success; the watchdog fired →
504; the engine stream ended early (a reload's drain timeout, an in-place swap) → 503, an
error event once the stream has started; the client left → recorded as closed and aborted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from types import TracebackType
from typing import Any, cast

from engines.errors import (
    AdmissionRefusedError,
    EngineDeadError,
    EngineNotReadyError,
    EngineRequestError,
    UpstreamRequestError,
)
from engines.protocol import GenerationChunk, GenerationRequest
from engines.registry import EngineHandle, EngineRegistry
from router.errors import (
    ContextLengthError,
    EngineUnavailableError,
    GatewayError,
    GatewayTimeoutError,
    InternalError,
    InvalidRequestError,
    OverloadedError,
)
from router.gateway import InFlight
from router.pipeline.prepare import LanePlan, fit_context, render_prompt
from router.pipeline.ratelimit import current_budget
from router.pipeline.request import CompletionRequest
from router.telemetry.record import RequestRecord
from router.telemetry.tracing import LaneSpans, current_trace

LaneHook = Callable[["Generation"], None]


class Generation:
    """One lane's answer. ``open()`` admits and prepares it (raising the 4xx/5xx that
    belongs before a response starts); iterating yields its chunks; ``aclose()`` (or leaving
    ``async with``) ends it early and aborts its engine request."""

    def __init__(
        self,
        plan: LanePlan,
        request: CompletionRequest,
        record: RequestRecord,
        registry: EngineRegistry,
        in_flight: InFlight,
        on_admitted: LaneHook | None = None,
        on_done: LaneHook | None = None,
    ) -> None:
        self.plan = plan
        self.request = request
        self.record = record
        self._registry = registry
        self._in_flight = in_flight
        self._on_admitted = on_admitted
        self._on_done = on_done
        # The caller's rate-limit budget; shadow copies are the operator's, never charged.
        self._budget = None if record.traffic == "shadow" else current_budget.get()
        trace = current_trace.get()
        self._spans = None if trace is None else LaneSpans(trace, plan.handle.name, record)
        self._steps = self._lifecycle()

    @property
    def n(self) -> int:
        return self.plan.n

    @property
    def engine(self) -> str:
        return self.plan.handle.name

    async def open(self) -> None:
        await anext(self._steps)

    def __aiter__(self) -> AsyncIterator[GenerationChunk]:
        # The lifecycle generator itself, so a loop adds no frame per token. After open()
        # it only yields chunks.
        return cast("AsyncIterator[GenerationChunk]", self._steps)

    async def __anext__(self) -> GenerationChunk:
        chunk = await anext(self._steps)
        assert chunk is not None
        return chunk

    async def aclose(self) -> None:
        await self._steps.aclose()

    async def __aenter__(self) -> Generation:
        await self.open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _lifecycle(self) -> AsyncGenerator[GenerationChunk | None, None]:
        plan, record = self.plan, self.record
        handle, request_id = plan.handle, record.request_id
        loop = asyncio.get_running_loop()
        stream: AsyncIterator[GenerationChunk] | None = None
        watchdog: _Watchdog | None = None
        admitted = finished = False
        spans = self._spans
        error: BaseException | None = None
        try:
            try:
                if spans is not None:
                    spans.admission(handle.admission.outstanding, handle.admission.waiting)
                ticket = handle.admission.acquire(plan.n, plan.bound)
                admitted = True
                handle.requests.add(request_id)
                self._in_flight.enter()
                if spans is not None:
                    spans.step("prepare")
                prompt = await render_prompt(plan, self.request)
                sampling = fit_context(plan, prompt, self.request)
                # None for an engine that leaves counting to its upstream (engines.remote):
                # the upstream's count then arrives with the stream and is charged then.
                record.prompt_tokens = prompt.token_count
                if self._budget is not None and record.prompt_tokens is not None:
                    self._budget.charge_tokens(record.prompt_tokens)
                if self._on_admitted is not None:
                    self._on_admitted(self)
                yield None  # prepared: the caller may answer with headers now
                deadline = loop.time() + plan.timeout_s
                first_deadline = deadline
                if plan.first_token_timeout_s is not None:
                    first_deadline = min(deadline, loop.time() + plan.first_token_timeout_s)
                watchdog = _Watchdog(loop, handle, request_id)
                watchdog.arm(first_deadline)
                if spans is not None:
                    spans.step("engine")  # submission to first token: queue and prefill
                record.submitted_at = time.monotonic()
                stream = handle.engine.generate(GenerationRequest(
                    request_id, prompt, sampling, plan.priority,
                    spans.trace_headers() if spans is not None else {}))
                open_choices = plan.n
                async for chunk in stream:
                    if record.first_token_at is None:
                        record.first_token_at = time.monotonic()
                        if first_deadline != deadline:
                            watchdog.arm(deadline)
                        if spans is not None:
                            spans.step("stream")  # first token to last: decode, delivery
                    record.completion_tokens += chunk.token_count
                    if chunk.prompt_tokens is not None:
                        record.prompt_tokens = chunk.prompt_tokens
                        if self._budget is not None:
                            self._budget.charge_tokens(chunk.prompt_tokens)
                    if chunk.finish_reason is not None:
                        record.finish_reason = chunk.finish_reason
                        open_choices -= 1
                    yield chunk
                if watchdog.fired:
                    which = "first token" if record.first_token_at is None else "total"
                    limit = plan.first_token_timeout_s if record.first_token_at is None \
                        else plan.timeout_s
                    raise GatewayTimeoutError(
                        f"route {plan.route.name!r} timed out waiting for the {which} "
                        f"({limit} s); the request was aborted")
                if open_choices > 0 or record.finish_reason == "abort":
                    record.aborted = True
                    raise EngineUnavailableError(_cut_short(handle, request_id),
                                                 headers={"Retry-After": "1"})
                finished = True
            except (GatewayError, GeneratorExit, asyncio.CancelledError):
                raise
            except AdmissionRefusedError as exc:
                raise OverloadedError(str(exc), headers={"Retry-After": "1"}) from exc
            except EngineDeadError as exc:
                self._registry.mark_failed(handle, exc)
                raise EngineUnavailableError(f"engine {handle.name!r} failed: {exc}") from exc
            except EngineNotReadyError as exc:
                raise EngineUnavailableError(str(exc)) from exc
            except EngineRequestError as exc:
                raise _request_error(exc) from exc
            except Exception as exc:
                raise InternalError(f"generation failed: {type(exc).__name__}: {exc}") from exc
        except GatewayError as exc:
            record.error = record.error or exc.message[:300]
            record.error_status = exc.status_code
            error = exc
            raise
        except (GeneratorExit, asyncio.CancelledError) as exc:
            if stream is not None or admitted:
                record.aborted = record.client_closed = True
            error = exc
            raise
        finally:
            # Synchronous up to the abort's await: cancellation cannot skip any of it.
            abort = None
            if stream is not None and not finished:
                abort = loop.create_task(_close_and_abort(stream, handle, request_id))
            if watchdog is not None:
                watchdog.disarm()
            if admitted:
                ticket.release()
                handle.requests.discard(request_id)
                handle.cut_off.discard(request_id)
                self._in_flight.leave()
            record.finished_at = time.monotonic()
            if self._budget is not None:
                self._budget.charge_tokens(record.completion_tokens)
            if spans is not None:
                spans.end(error)
            if self._on_done is not None:
                self._on_done(self)
            if abort is not None:
                await asyncio.shield(abort)


def _request_error(exc: EngineRequestError) -> GatewayError:
    """An engine's refusal of one request; an upstream's 4xx keeps its kind and message."""
    if isinstance(exc, UpstreamRequestError):
        if exc.status == 429:
            return OverloadedError(str(exc), headers={"Retry-After": "1"})
        if exc.context_length:
            return ContextLengthError(str(exc), param=exc.param)
        return InvalidRequestError(str(exc), param=exc.param)
    return InvalidRequestError(str(exc))


def _cut_short(handle: EngineHandle, request_id: str) -> str:
    if request_id in handle.cut_off:
        return (f"engine {handle.name!r} was replaced by a reload and this request did not "
                "finish within the drain timeout; it was aborted, retry it")
    return f"engine {handle.name!r} stopped this request before it finished; retry it"


async def _close_and_abort(
    stream: AsyncIterator[GenerationChunk], handle: EngineHandle, request_id: str
) -> None:
    aclose: Any = getattr(stream, "aclose", None)
    try:
        if aclose is not None:
            await aclose()
        await handle.engine.abort(request_id)
    except Exception:  # an engine that is already dead has nothing left to abort
        pass


class _Watchdog:
    """Aborts the engine request at a deadline; the aborted stream then ends on its own.

    Two timer handles per request instead of a timeout around every chunk, which would cost
    a timer per token on the hot path.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, handle: EngineHandle, request_id: str):
        self._loop = loop
        self._handle = handle
        self._request_id = request_id
        self._timer: asyncio.TimerHandle | None = None
        self._abort_task: asyncio.Task[None] | None = None
        self.fired = False

    def arm(self, when: float) -> None:
        self.disarm()
        self._timer = self._loop.call_at(when, self._fire)

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self.fired = True
        self._timer = None
        self._abort_task = self._loop.create_task(self._handle.engine.abort(self._request_id))
