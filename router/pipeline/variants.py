"""Sticky weighted A/B assignment.

The same key (user, header, API key) always lands on the same variant: the pick is a pure
function of route name, key and weights, via a cryptographic hash, so it holds across
restarts and across gateway replicas. Without a key each request is assigned at random.
"""

from __future__ import annotations

import hashlib
import random

from router.config import RouteConfig, VariantConfig
from router.errors import InvalidRequestError

_SCALE = float(1 << 64)


def unit_interval(route: str, key: str) -> float:
    """Map (route, key) to a stable number in [0, 1)."""
    digest = hashlib.blake2b(f"{route}\x00{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / _SCALE


def pick_variant(
    route: RouteConfig, sticky_key: str | None, forced: str | None = None
) -> VariantConfig | None:
    if not route.variants:
        if forced:
            raise InvalidRequestError(
                f"route {route.name!r} has no variants", param="x-switchboard-variant"
            )
        return None
    if forced:
        for variant in route.variants:
            if variant.name == forced:
                return variant
        names = ", ".join(v.name for v in route.variants)
        raise InvalidRequestError(
            f"route {route.name!r} has no variant {forced!r} (known: {names})",
            param="x-switchboard-variant",
        )
    point = unit_interval(route.name, sticky_key) if sticky_key else random.random()
    total = sum(v.weight for v in route.variants)
    cumulative = 0.0
    for variant in route.variants:
        cumulative += variant.weight / total
        if point < cumulative and variant.weight > 0:
            return variant
    return next(v for v in reversed(route.variants) if v.weight > 0)
