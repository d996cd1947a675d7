"""The request classifier: route rules ▸ language signals ▸ example similarity ▸ default.

The explicit tier (a `model` naming a route or engine, an `X-Route` header) is the caller's:
it builds that decision with `explicit_decision` and never calls `classify`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from router.classify.decision import RouteDecision
from router.classify.examples import ExampleIndex
from router.classify.rules import RouteRules
from router.classify.signals import LanguageSignal, SignalTools, build_signal
from router.classify.text import last_text, normalise
from router.classify.config import RecognitionConfig

DEFAULT_CONFIDENCE = 0.5


class Classifier:
    def __init__(self, routes: Mapping[str, RecognitionConfig], default_route: str) -> None:
        if default_route not in routes:
            known = ", ".join(routes)
            raise ValueError(f"default route {default_route!r} is not a route (known: {known})")
        self.default_route = default_route
        self._rules = RouteRules(routes)
        self._examples = ExampleIndex(routes)
        wanted = [(route, rec.signals) for route, rec in routes.items() if rec.signals]
        tools = SignalTools() if wanted else None  # language models load here, once
        self._signals: tuple[tuple[str, LanguageSignal], ...] = tuple(
            (route, build_signal(name, tools)) for route, name in wanted if tools is not None
        )
        for _, signal in self._signals:
            signal.detect("warm up: translate 'hello' into French")

    def classify(self, messages: Sequence[Mapping[str, object]]) -> RouteDecision:
        """Route an OpenAI chat request by its last user message (system prompt as context)."""
        user = last_text(messages, "user")
        system = last_text(messages, "system")
        return self._decide(user, system)

    def classify_text(self, text: str) -> RouteDecision:
        return self._decide(text, "")

    def _decide(self, text: str, system: str) -> RouteDecision:
        normalised = normalise(text)
        rule = self._rules.match(normalised) if self._rules else None
        if rule is not None:
            return RouteDecision(rule.route, rule.confidence, "rules", rule.reason)
        for route, signal in self._signals:
            found = signal.detect(text)
            if found is None and system:
                found = signal.detect_instruction(system, text)
            if found is not None:
                return RouteDecision(
                    route, found.confidence, "language", found.reason,
                    found.target_language, found.source_language, found.payload,
                )  # fmt: skip
        example = self._examples.match(normalised) if self._examples else None
        if example is not None:
            reason = f"similar to example {_clip(example.example)!r}"
            return RouteDecision(example.route, round(example.similarity, 3), "examples", reason)
        return RouteDecision(
            self.default_route, DEFAULT_CONFIDENCE, "default", "no rule, signal or example matched"
        )


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
