"""Who may address what, with auth on: a route's `allow:` list (tiers or key names) and the
opt-in for addressing an engine directly (`model: "engine:NAME"`, a bare engine name, or an
X-Route header naming one), which skips the route's caps, timeouts, prompts and fallback.
Admin keys may do both. With auth off there is no one to tell apart, so nothing is refused."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from router.config import GatewayConfig
from router.errors import PermissionDeniedError
from router.keys import Principal
from router.pipeline.choose import AUTO_NAMES, ENGINE_PREFIX, RoutingTable


def check_request(table: RoutingTable, principal: Principal, model: str,
                  messages: Sequence[Mapping[str, object]], route_header: str | None) -> None:
    """The routing target this request names (X-Route wins over `model`, as in routing), or,
    for `auto`, the route the classifier picks — classified only when some route has an
    `allow:` list, so gateways without one pay nothing."""
    if route_header and route_header.strip():
        check_access(table.config, principal, route_header.strip(), "X-Route header")
    elif model not in AUTO_NAMES:
        check_access(table.config, principal, model, "model")
    elif not principal.admin and any(r.allow for r in table.config.routes.values()):
        route = table.route_of(table.decide(model, messages))
        check_route(route.name, route.allow, principal, "chosen by the classifier")


def check_access(config: GatewayConfig, principal: Principal, name: str, where: str) -> None:
    """Refuse (403) an explicitly named route or engine this principal may not use.
    `where` says what named it ("model", "X-Route header") for the error message."""
    if principal.admin or name in AUTO_NAMES:
        return
    route = config.routes.get(name)
    if route is None:
        engine = name.removeprefix(ENGINE_PREFIX)
        if engine in config.engines and principal.tier not in config.auth.direct_engine_tiers:
            raise PermissionDeniedError(
                f"{where} {name!r} addresses an engine directly, which this key may not do "
                "(admin keys and auth.direct_engine_tiers may); use a route instead",
                param="model" if where == "model" else None)
        return
    check_route(route.name, route.allow, principal, where)


def check_route(route: str, allow: tuple[str, ...], principal: Principal, where: str) -> None:
    if not allow or principal.admin or principal.tier in allow or principal.name in allow:
        return
    raise PermissionDeniedError(f"route {route!r} ({where}) is not open to this key",
                                param="model" if where == "model" else None)
