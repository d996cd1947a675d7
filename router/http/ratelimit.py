"""Rate limits at the door of the generation endpoints, as pure ASGI middleware.

It runs after authentication (it needs the key and its tier) and before the endpoint: a
request over its key's budget is answered 429 with Retry-After and never parsed; one let in
carries its budget (router.pipeline.ratelimit.current_budget) to the lanes that charge its
tokens. Every answer of a limited tier carries OpenAI's x-ratelimit-* headers.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from router.errors import OverloadedError
from router.gateway import Gateway
from router.http.responses import error_response
from router.keys import ANONYMOUS, Principal
from router.pipeline.ratelimit import Budget, current_budget
from router.telemetry.record import RequestRecord

# What generates tokens (a compare request is one request whose lanes all charge tokens).
LIMITED_PATHS = frozenset({"/v1/chat/completions", "/v1/completions", "/v1/compare"})


def route_path(scope: Scope) -> str:
    """The path the router matches, without a root_path prefix (uvicorn --root-path)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root):] or "/"
    return path


class RateLimitMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or route_path(scope) not in LIMITED_PATHS:
            await self.app(scope, receive, send)
            return
        state = scope["state"]
        gateway: Gateway = state["gateway"]
        principal: Principal = state.get("principal", ANONYMOUS)
        policy = gateway.snapshot.config.rate_limits.get(principal.tier)
        if policy is None:
            await self.app(scope, receive, send)
            return
        outcome, headers = gateway.limiter.admit(principal.name, principal.tier, policy)
        record: RequestRecord = state["record"]
        retry_after = headers.pop("retry-after", None)
        record.extra_headers.update(headers)
        if not isinstance(outcome, Budget):
            error = OverloadedError(outcome.message, code="rate_limit_exceeded",
                                    headers={"Retry-After": retry_after or "1"})
            record.error = error.message
            await error_response(error)(scope, receive, send)
            return
        token = current_budget.set(outcome)
        try:
            await self.app(scope, receive, send)
        finally:
            current_budget.reset(token)
