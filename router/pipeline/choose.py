"""Choose: which route (classification), which variant (sticky A/B), which engine (with
the route's fallback when that engine is not ready).

A table is immutable and part of the gateway's snapshot; a reload builds a new one and swaps
it in with the rest, so a request keeps the table it started with. Classification runs
once per request, here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from engines.registry import EngineHandle, EngineState
from router.classify import Classifier, RouteDecision, explicit_decision
from router.config import GatewayConfig, RouteConfig, VariantConfig
from router.errors import EngineUnavailableError, ModelNotFoundError
from router.pipeline.variants import pick_variant

AUTO_NAMES = frozenset({"auto", "default", ""})
# "engine:NAME" always means the bare engine, even where a route has the same name.
ENGINE_PREFIX = "engine:"


@dataclass(frozen=True, slots=True)
class RouteChoice:
    route: RouteConfig
    decision: RouteDecision
    variant: VariantConfig | None
    engine: str
    forced_variant: bool = False
    # The route this one stands in for, when the chosen engine was down.
    fallback_from: str | None = None


def build_classifier(config: GatewayConfig) -> Classifier:
    recognition = {name: route.recognize for name, route in config.routes.items()}
    return Classifier(recognition, config.default_route)


class RoutingTable:
    def __init__(self, config: GatewayConfig, classifier: Classifier) -> None:
        self.config = config
        self.classifier = classifier
        # An engine name used as a model gets a bare route: engine defaults, no prompts.
        self._engine_routes = {
            ENGINE_PREFIX + name: RouteConfig(name=ENGINE_PREFIX + name, engine=name)
            for name in config.engines
        }
        for name in config.engines:
            if name not in config.routes:
                self._engine_routes[name] = self._engine_routes[ENGINE_PREFIX + name]

    @property
    def model_ids(self) -> list[str]:
        return [*self.config.routes, *(n for n in self._engine_routes if n in self.config.engines)]

    def lookup(self, name: str) -> RouteConfig | None:
        return self.config.routes.get(name) or self._engine_routes.get(name)

    def choose(
        self,
        model: str,
        messages: Sequence[Mapping[str, object]],
        route_header: str | None = None,
        sticky_key: str | None = None,
        forced_variant: str | None = None,
    ) -> RouteChoice:
        decision = self.decide(model, messages, route_header)
        route = self.route_of(decision)
        variant = pick_variant(route, sticky_key, forced_variant)
        engine = variant.engine if variant is not None else route.engine
        if route.prompt_template or (variant is not None and variant.prompt_template):
            decision = self.with_languages(decision, messages)
        return RouteChoice(route, decision, variant, engine, forced_variant is not None)

    def route_of(self, decision: RouteDecision) -> RouteConfig:
        route = self.lookup(decision.route)
        if route is None:  # a classifier naming a route the config lacks is a config bug
            route = self.config.routes[self.config.default_route]
        return route

    def with_languages(
        self, decision: RouteDecision, messages: Sequence[Mapping[str, object]]
    ) -> RouteDecision:
        """A route named explicitly skipped the classifier; its prompt template still wants
        the languages and the text to translate."""
        if decision.target_language is not None or not messages:
            return decision
        found = self.classifier.classify(messages)
        return replace(found, route=decision.route, reason=decision.reason, tier=decision.tier)

    def serving(
        self, choice: RouteChoice, engines: Mapping[str, EngineHandle]
    ) -> tuple[RouteChoice, EngineHandle]:
        """The chosen engine if it is ready, else the route's fallback route, else 503."""
        seen: set[str] = set()
        first = choice.route.name
        while True:
            handle = engines.get(choice.engine)
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
            route = self.lookup(fallback)
            assert route is not None  # config validation guarantees fallback routes exist
            choice = RouteChoice(route, choice.decision, None, route.engine,
                                 fallback_from=first)

    def decide(
        self,
        model: str,
        messages: Sequence[Mapping[str, object]],
        route_header: str | None = None,
    ) -> RouteDecision:
        if route_header:
            name = route_header.strip()
            if self.lookup(name) is None:
                raise self._not_found(name, "X-Route header")
            return explicit_decision(name, "X-Route header")
        if model not in AUTO_NAMES:
            if self.lookup(model) is None:
                raise self._not_found(model, "model")
            return explicit_decision(model, f"model {model!r}")
        if not messages:
            return explicit_decision(self.config.default_route, "default route")
        return self.classifier.classify(messages)

    def _not_found(self, name: str, where: str) -> ModelNotFoundError:
        known = ", ".join(["auto", *self.model_ids])
        return ModelNotFoundError(
            f"The model {name!r} ({where}) does not exist; known: {known}",
            param="model",
        )
