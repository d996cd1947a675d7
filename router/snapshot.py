"""What one configuration generation serves with, frozen: a reload builds a new Snapshot and
swaps it in with one assignment, so every request sees one generation whole."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engines.registry import EngineHandle
from router.classify import Classifier
from router.config import GatewayConfig
from router.keys import KeyStore
from router.pipeline.choose import RoutingTable
from router.pipeline.request import RequestLimits


@dataclass(frozen=True, slots=True)
class Snapshot:
    config: GatewayConfig
    table: RoutingTable
    limits: RequestLimits
    keys: KeyStore | None  # None: auth is off
    # Engine handles by name; each owns its admission.
    engines: Mapping[str, EngineHandle]

    @classmethod
    def build(
        cls,
        config: GatewayConfig,
        classifier: Classifier,
        keys: KeyStore | None,
        engines: Mapping[str, EngineHandle],
    ) -> Snapshot:
        return cls(config, RoutingTable(config, classifier), RequestLimits.of(config.server),
                   keys, dict(engines))
