"""Bearer authentication as pure ASGI middleware, against the keys of the current snapshot.

The keys are read per request from the gateway's snapshot, so a reload that changes
``auth:`` or the keys file applies to the very next request. A refused request never reaches
an endpoint, so it is neither recorded nor counted as a generation.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from router.errors import AuthenticationError, GatewayError, PermissionDeniedError
from router.http.responses import error_response
from router.keys import ANONYMOUS, KeyStore, Principal

# Open without a key: liveness/readiness probes and the API description.
PUBLIC_PATHS = frozenset({"/health", "/ready", "/openapi.json"})
# The playground's page and its static files: the page asks for a key and sends it with
# every API call it makes, so only the files themselves are open.
PUBLIC_PREFIX = "/playground"
ADMIN_PREFIXES = ("/admin", "/metrics")


class AuthMiddleware:
    """Puts the caller's Principal in the request state; refuses what it may not do."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            principal = self._check(scope)
        except GatewayError as exc:
            scope["state"]["record"].error = exc.message
            await error_response(exc)(scope, receive, send)
            return
        scope["state"]["principal"] = principal
        await self.app(scope, receive, send)

    def _check(self, scope: Scope) -> Principal:
        path = route_path(scope)
        keys: KeyStore | None = scope["state"]["gateway"].snapshot.keys
        if keys is None:
            return ANONYMOUS
        token = _bearer_token(scope)
        if path in PUBLIC_PATHS or path == PUBLIC_PREFIX or path.startswith(PUBLIC_PREFIX + "/"):
            # Open to probes; a valid key still identifies the caller (an admin key gets
            # /ready's details), and a wrong one is simply anonymous here.
            return (keys.authenticate(token) if token else None) or ANONYMOUS
        if token is None:
            raise AuthenticationError(
                "Missing API key: send 'Authorization: Bearer <key>'",
                headers={"WWW-Authenticate": "Bearer"},
            )
        principal = keys.authenticate(token)
        if principal is None:
            raise AuthenticationError("Incorrect API key provided",
                                      headers={"WWW-Authenticate": "Bearer"})
        if path.startswith(ADMIN_PREFIXES) and not principal.admin:
            raise PermissionDeniedError(f"{path} needs an admin key")
        return principal


def route_path(scope: Scope) -> str:
    """The path the router matches: scope["path"] less the mount's root_path (uvicorn
    --root-path, an embedding app). Access rules must read this one, not the raw path."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and path[len(root):len(root) + 1] in ("/", ""):
        return path[len(root):] or "/"
    return path


def _bearer_token(scope: Scope) -> str | None:
    headers: list[tuple[bytes, bytes]] = scope["headers"]
    for name, value in headers:
        if name == b"authorization":
            scheme, _, rest = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and rest.strip():
                return rest.strip()
            return None
    return None
