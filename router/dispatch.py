"""From a validated request to an engine stream: route, admit, render, check, generate.

Everything that can reject a request happens in `prepare`, before a response starts, so
each rejection is a proper 4xx/5xx. `run` then streams deltas while holding the admission
slot, enforces the route's timeouts and aborts the engine request on every early exit
(client gone, timeout, error).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from engines.errors import EngineDeadError, EngineNotReadyError, EngineRequestError
from engines.protocol import GenerationChunk, GenerationRequest, PreparedPrompt
from engines.registry import EngineHandle, EngineState
from router.admission import Admission
from router.classify import RouteDecision
from router.config import RouteConfig, VariantConfig
from router.errors import (
    ContextLengthError,
    EngineUnavailableError,
    GatewayError,
    GatewayTimeoutError,
    InternalError,
    InvalidRequestError,
)
from router.record import RequestRecord
from router.routing import RouteChoice
from router.sampling import merge_sampling
from router.schemas import CompletionRequest
from router.state import GatewayState


@dataclass
class PreparedRequest:
    request_id: str
    handle: EngineHandle
    route: RouteConfig
    variant: VariantConfig | None
    decision: RouteDecision
    generation: GenerationRequest
    timeout_s: float
    first_token_timeout_s: float | None
    # The slot this request holds; released on the same object even if a reload replaced
    # the engine's admission meanwhile.
    admission: Admission

    @property
    def n(self) -> int:
        return int(self.generation.sampling.get("n") or 1)


def sticky_key(request: CompletionRequest, headers: Mapping[str, str]) -> str | None:
    if request.user:
        return f"user:{request.user}"
    if headers.get("x-switchboard-user"):
        return f"user:{headers['x-switchboard-user']}"
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer ") and len(auth) > 7:
        return f"key:{auth[7:].strip()}"
    return None


async def prepare(
    state: GatewayState,
    request: CompletionRequest,
    headers: Mapping[str, str],
    record: RequestRecord,
    priority: int = 0,
) -> PreparedRequest:
    if state.draining:
        raise EngineUnavailableError("the gateway is shutting down", code="shutting_down")
    messages = request.raw_messages if request.kind == "chat" else []
    choice = state.table.choose(
        request.model,
        messages,
        route_header=headers.get("x-route"),
        sticky_key=sticky_key(request, headers),
        forced_variant=headers.get("x-switchboard-variant") or None,
    )
    choice, handle = _serving_engine(state, choice, record)
    decision = choice.decision
    route, variant = choice.route, choice.variant
    record.route, record.engine, record.model = route.name, handle.name, handle.config.model
    record.variant = variant.name if variant else None
    record.route_reason, record.route_tier = choice.decision.reason, choice.decision.tier

    admission = state.admission(handle.name)
    admission.acquire(vip=priority < 0)
    try:
        needs_languages = decision.target_language is None and _templated(route, variant)
        if request.kind == "chat" and needs_languages:
            # A route named explicitly skipped the classifier; its template still wants the
            # languages and the text to translate.
            decision = state.table.classifier.classify(messages)
        prompt = await render_prompt(handle, route, variant, request, decision)
        sampling = merge_sampling(
            handle.config.sampling,
            route.sampling,
            variant.sampling if variant else {},
            request.sampling,
        )
        fit_context(handle, route, prompt, sampling, request)
    except BaseException:
        admission.release()
        raise
    record.prompt_tokens = len(prompt.token_ids)
    timeout = route.timeout_s or state.config.server.request_timeout_s
    return PreparedRequest(
        request_id=record.request_id,
        handle=handle,
        route=route,
        variant=variant,
        decision=decision,
        generation=GenerationRequest(record.request_id, prompt, sampling, priority),
        timeout_s=timeout,
        first_token_timeout_s=route.first_token_timeout_s,
        admission=admission,
    )


def _serving_engine(
    state: GatewayState, choice: RouteChoice, record: RequestRecord
) -> tuple[RouteChoice, EngineHandle]:
    """The chosen engine if it is ready, else the route's fallback route, else 503."""
    seen: set[str] = set()
    while True:
        handle = state.registry.handles.get(choice.engine)
        if handle is not None and handle.state is EngineState.READY:
            return choice, handle
        fallback = choice.route.fallback
        if fallback is None or fallback in seen:
            state_name = handle.state.value if handle else "missing"
            raise EngineUnavailableError(
                f"engine {choice.engine!r} for route {choice.route.name!r} is {state_name}",
                headers={"Retry-After": "5"},
            )
        seen.add(choice.route.name)
        record.extra_headers["x-switchboard-fallback-from"] = choice.route.name
        route = state.table.lookup(fallback)
        assert route is not None  # config validation guarantees fallback routes exist
        choice = RouteChoice(route, choice.decision, None, route.engine)


def _templated(route: RouteConfig, variant: VariantConfig | None) -> bool:
    return bool((variant.prompt_template if variant else None) or route.prompt_template)


async def render_prompt(
    handle: EngineHandle,
    route: RouteConfig,
    variant: VariantConfig | None,
    request: CompletionRequest,
    decision: RouteDecision,
) -> PreparedPrompt:
    engine = handle.engine
    try:
        if request.kind == "text":
            return await engine.prepare_text(request.prompt)
        template = (variant.prompt_template if variant else None) or route.prompt_template
        system_prompt = (variant.system_prompt if variant else None) or route.system_prompt
        messages = request.raw_messages
        if template is not None:
            return await engine.prepare_text(
                _fill_template(template, messages, system_prompt, decision))
        if system_prompt and not any(m["role"] == "system" for m in messages):
            messages = [{"role": "system", "content": system_prompt}, *messages]
        return await engine.prepare_chat(messages)
    except EngineRequestError as exc:
        raise InvalidRequestError(str(exc), param="messages") from exc
    except (EngineNotReadyError, EngineDeadError) as exc:
        raise EngineUnavailableError(str(exc)) from exc


def _fill_template(
    template: str,
    messages: list[dict[str, str]],
    system_prompt: str | None,
    decision: RouteDecision,
) -> str:
    user_turns = [m["content"] for m in messages if m["role"] == "user"]
    system_turns = [m["content"] for m in messages if m["role"] == "system"]
    text = decision.payload or (user_turns[-1] if user_turns else messages[-1]["content"])
    return template.format(
        text=text,
        system=system_turns[0] if system_turns else (system_prompt or ""),
        target_language=decision.target_language or "English",
        source_language=decision.source_language or "Text",
    )


def fit_context(
    handle: EngineHandle,
    route: RouteConfig,
    prompt: PreparedPrompt,
    sampling: dict[str, Any],
    request: CompletionRequest,
) -> None:
    limit = handle.engine.max_model_len
    prompt_len = len(prompt.token_ids)
    if prompt_len == 0:
        raise InvalidRequestError("the prompt is empty after rendering", param="messages")
    param = "messages" if request.kind == "chat" else "prompt"
    if prompt_len >= limit:
        raise ContextLengthError(
            f"This model's maximum context length is {limit} tokens; the prompt has "
            f"{prompt_len} tokens (engine {handle.name!r})",
            param=param,
        )
    room = limit - prompt_len
    asked = "max_tokens" in request.sampling
    max_tokens = int(sampling.get("max_tokens") or room)
    if route.max_tokens_cap is not None:
        if asked and max_tokens > route.max_tokens_cap:
            raise InvalidRequestError(
                f"'max_tokens' is {max_tokens}; route {route.name!r} allows at most "
                f"{route.max_tokens_cap}",
                param="max_tokens",
            )
        max_tokens = min(max_tokens, route.max_tokens_cap)
    if max_tokens > room:
        if asked:
            raise ContextLengthError(
                f"'max_tokens' is {max_tokens}, but the prompt has {prompt_len} tokens and "
                f"the model's maximum context length is {limit}: at most {room} can be "
                "generated",
                param="max_tokens",
            )
        max_tokens = room  # a default that does not fit is clamped, not an error
    sampling["max_tokens"] = max_tokens
    min_tokens = sampling.get("min_tokens")
    if isinstance(min_tokens, int) and min_tokens > max_tokens:
        raise InvalidRequestError("'min_tokens' must not exceed 'max_tokens'", param="min_tokens")


async def run(
    state: GatewayState, prepared: PreparedRequest, record: RequestRecord
) -> AsyncGenerator[GenerationChunk, None]:
    """Stream the engine's deltas; every early exit aborts the request in the engine."""
    handle = prepared.handle
    admission = prepared.admission
    handle.requests.add(prepared.request_id)
    state.request_started()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + prepared.timeout_s
    first_deadline = deadline
    if prepared.first_token_timeout_s is not None:
        first_deadline = min(deadline, loop.time() + prepared.first_token_timeout_s)
    stream = handle.engine.generate(prepared.generation)
    watchdog = _Watchdog(loop, handle, prepared.request_id)
    watchdog.arm(first_deadline)
    finished = False
    try:
        async for chunk in stream:
            if record.first_token_at is None:
                record.first_token_at = time.monotonic()
                if first_deadline != deadline:
                    watchdog.arm(deadline)
            record.completion_tokens += chunk.token_count
            if chunk.finish_reason is not None:
                record.finish_reason = chunk.finish_reason
            yield chunk
        if watchdog.fired:
            which = "first token" if record.first_token_at is None else "total"
            limit = prepared.first_token_timeout_s if which == "first token" else prepared.timeout_s
            record.error = f"{which} timeout"
            raise GatewayTimeoutError(
                f"route {prepared.route.name!r} timed out waiting for the {which} "
                f"({limit} s); the request was aborted"
            )
        finished = True
    except EngineDeadError as exc:
        state.registry.mark_failed(handle, exc)
        record.error = str(exc)
        raise EngineUnavailableError(f"engine {handle.name!r} failed: {exc}") from exc
    except EngineNotReadyError as exc:
        record.error = str(exc)
        raise EngineUnavailableError(str(exc)) from exc
    except EngineRequestError as exc:
        record.error = str(exc)
        raise InvalidRequestError(str(exc)) from exc
    except GatewayError:  # already an answer (the timeout above); not an internal error
        raise
    except Exception as exc:
        record.error = f"{type(exc).__name__}: {exc}"
        raise InternalError(f"generation failed: {type(exc).__name__}") from exc
    finally:
        if not finished:
            record.aborted = True
            await asyncio.shield(_close_and_abort(stream, handle, prepared.request_id))
        watchdog.disarm()
        record.finished_at = time.monotonic()
        handle.requests.discard(prepared.request_id)
        admission.release()
        state.request_finished()


async def _close_and_abort(
    stream: AsyncIterator[GenerationChunk], handle: EngineHandle, request_id: str
) -> None:
    aclose = getattr(stream, "aclose", None)
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
