"""Prepare one lane — live, shadow or compare alike: its sampling, its prompt rendered and
tokenised by its engine, and the room it needs in the engine's context.

Everything that can reject a request happens here, before a response starts, so each
rejection is a proper 4xx/5xx.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.admission import Bound
from engines.errors import EngineDeadError, EngineNotReadyError, EngineRequestError
from engines.protocol import PreparedPrompt
from engines.registry import EngineHandle
from router.classify import RouteDecision
from router.config import RouteConfig, VariantConfig
from router.errors import ContextLengthError, EngineUnavailableError, InvalidRequestError
from router.pipeline.request import CompletionRequest
from router.pipeline.sampling import merge_sampling


@dataclass(frozen=True, slots=True)
class LanePlan:
    """Where one lane runs and how: decided before admission, so admission can weigh it."""

    route: RouteConfig
    variant: VariantConfig | None
    decision: RouteDecision
    handle: EngineHandle
    sampling: dict[str, Any]  # merged; max_tokens is fitted to the prompt later
    priority: int
    bound: Bound
    timeout_s: float
    first_token_timeout_s: float | None

    @property
    def n(self) -> int:
        return int(self.sampling.get("n") or 1)


def plan_lane(
    handle: EngineHandle,
    route: RouteConfig,
    variant: VariantConfig | None,
    decision: RouteDecision,
    request: CompletionRequest,
    priority: int,
    bound: Bound,
    default_timeout_s: float,
) -> LanePlan:
    sampling = merge_sampling(handle.config.sampling, route.sampling,
                              variant.sampling if variant else {}, request.sampling)
    return LanePlan(route, variant, decision, handle, sampling, priority, bound,
                    route.timeout_s or default_timeout_s, route.first_token_timeout_s)


async def render_prompt(plan: LanePlan, request: CompletionRequest) -> PreparedPrompt:
    engine = plan.handle.engine
    route, variant = plan.route, plan.variant
    try:
        if request.kind == "text":
            return await engine.prepare_text(request.prompt)
        template = (variant.prompt_template if variant else None) or route.prompt_template
        system_prompt = (variant.system_prompt if variant else None) or route.system_prompt
        messages = request.raw_messages
        if template is not None:
            return await engine.prepare_text(
                _fill_template(template, messages, system_prompt, plan.decision))
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
    plan: LanePlan, prompt: PreparedPrompt, request: CompletionRequest
) -> dict[str, Any]:
    """The lane's final sampling: max_tokens within the route's cap and the context left."""
    handle, route = plan.handle, plan.route
    sampling = dict(plan.sampling)
    limit = handle.engine.max_model_len
    prompt_len = prompt.token_count
    param = "messages" if request.kind == "chat" else "prompt"
    if prompt_len is None:
        return _fit_uncounted(plan, prompt, request, sampling, limit, param)
    if prompt_len == 0:
        raise InvalidRequestError("the prompt is empty after rendering", param="messages")
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
            raise _over_cap(max_tokens, route)
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
    _check_min_tokens(sampling, max_tokens)
    return sampling


def _fit_uncounted(
    plan: LanePlan, prompt: PreparedPrompt, request: CompletionRequest,
    sampling: dict[str, Any], limit: int, param: str,
) -> dict[str, Any]:
    """An engine that leaves tokenisation to its upstream (engines.remote): the prompt's
    length is unknown here, so the upstream's own 400 is the context check. What can be
    checked without counting still is: an empty prompt, the route's cap, and a max_tokens
    that leaves no room even for a one-token prompt. max_tokens stays unset unless the
    request, the route or the engine sets it: the upstream then fills the context left."""
    route = plan.route
    if not prompt.text and not prompt.messages:
        raise InvalidRequestError("the prompt is empty after rendering", param=param)
    max_tokens = sampling.get("max_tokens")
    asked = "max_tokens" in request.sampling
    if route.max_tokens_cap is not None:
        if asked and isinstance(max_tokens, int) and max_tokens > route.max_tokens_cap:
            raise _over_cap(max_tokens, route)
        max_tokens = min(int(max_tokens or route.max_tokens_cap), route.max_tokens_cap)
    if isinstance(max_tokens, int) and limit > 0 and max_tokens >= limit:
        if asked:
            raise ContextLengthError(
                f"'max_tokens' is {max_tokens}, but the model's maximum context length is "
                f"{limit}, prompt included: at most {limit - 1} can be generated",
                param="max_tokens",
            )
        max_tokens = None  # a default that cannot fit: let the upstream fill what is left
    if max_tokens is None:
        sampling.pop("max_tokens", None)
    else:
        sampling["max_tokens"] = int(max_tokens)
        _check_min_tokens(sampling, int(max_tokens))
    return sampling


def _over_cap(max_tokens: int, route: RouteConfig) -> InvalidRequestError:
    return InvalidRequestError(
        f"'max_tokens' is {max_tokens}; route {route.name!r} allows at most "
        f"{route.max_tokens_cap}",
        param="max_tokens",
    )


def _check_min_tokens(sampling: dict[str, Any], max_tokens: int) -> None:
    min_tokens = sampling.get("min_tokens")
    if isinstance(min_tokens, int) and min_tokens > max_tokens:
        raise InvalidRequestError("'min_tokens' must not exceed 'max_tokens'", param="min_tokens")
