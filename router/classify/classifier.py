"""The request classifier, a cascade in which every decision names its tier and reason:

route rules ▸ near examples (positive or negative, the user's tuning) ▸ language signals
(rules for what is certain + a learned model for phrasing variety) ▸ examples ▸ default,
and, for chats, the conversation ("and in German?" after a translation stays a translation).

The explicit tier (a `model` naming a route or engine, an `X-Route` header) is the caller's:
it builds that decision with `explicit_decision` and never calls `classify`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from router.classify.config import RecognitionConfig
from router.classify.decision import RouteDecision
from router.classify.examples import ExampleIndex, ExampleMatch
from router.classify.learned import CERTAIN, RULE_PRIOR, Score, features
from router.classify.rules import RouteRules
from router.classify.signals import SignalTier, SignalTools, build_signal
from router.classify.text import content_text, last_text, normalise
from router.classify.translation import SignalResult

DEFAULT_CONFIDENCE = 0.5
# The learned model's probability at or above which its route wins.
LEARNED_THRESHOLD = 0.5
# Features shown in reasons and in `explain`.
TOP_FEATURES = 4


@dataclass(frozen=True, slots=True)
class _SignalOutcome:
    tier: SignalTier
    found: SignalResult | None
    kind: str  # the rules' outcome (see TranslationSignal.analyse)
    score: Score


class Classifier:
    def __init__(self, routes: Mapping[str, RecognitionConfig], default_route: str) -> None:
        if default_route not in routes:
            known = ", ".join(routes)
            raise ValueError(f"default route {default_route!r} is not a route (known: {known})")
        self.default_route = default_route
        self._routes = tuple(routes)
        self._rules = RouteRules(routes)
        self._examples = ExampleIndex(routes)
        wanted = [(route, rec.signals) for route, rec in routes.items() if rec.signals]
        tools = SignalTools() if wanted else None  # language models load here, once
        self._signals: tuple[SignalTier, ...] = tuple(
            build_signal(route, name, tools) for route, name in wanted if tools is not None
        )
        for tier in self._signals:
            self._score(tier, "warm up: translate 'hello' into French")

    # -- public API -----------------------------------------------------------------------------

    def classify(self, messages: Sequence[Mapping[str, object]]) -> RouteDecision:
        """Route an OpenAI chat request: its last user turn, the system prompt as context, and
        the previous user turn when the last one is a bare follow-up."""
        user = last_text(messages, "user")
        system = last_text(messages, "system")
        decision = self._decide(user, system)
        follow_up = self._follow_up(messages, user, system, decision)
        return follow_up or decision

    def classify_text(self, text: str) -> RouteDecision:
        return self._decide(text, "")

    def explain(self, messages: Sequence[Mapping[str, object]]) -> dict[str, object]:
        """Every tier's view of a chat request, and the decision (JSON-ready)."""
        user = last_text(messages, "user")
        system = last_text(messages, "system")
        normalised = normalise(user)
        rule = self._rules.match(normalised) if self._rules else None
        near, vetoed = self._examples.near(normalised) if self._examples else (None, frozenset())
        signals: dict[str, object] = {}
        for tier in self._signals:
            outcome = self._score(tier, user, top=TOP_FEATURES)
            instruction = tier.rules.detect_instruction(system, user) if system else None
            signals[tier.route] = {
                "rules": _signal_dict(outcome.found) or {"kind": outcome.kind},
                "system_prompt": _signal_dict(instruction),
                "learned": {
                    "probability": round(outcome.score.probability, 4),
                    "threshold": LEARNED_THRESHOLD,
                    "top_features": [list(pair) for pair in outcome.score.top],
                },
            }
        return {
            "decision": self.classify(messages).as_dict(),
            "tiers": {
                "rules": None if rule is None else {"route": rule.route, "reason": rule.reason},
                "examples": {
                    "near": None if near is None else _example_dict(near),
                    "vetoed_routes": sorted(vetoed),
                    "similarities": [
                        _example_dict(m) for m in self._examples.similarities(normalised)
                    ]
                    if self._examples
                    else [],
                },
                "signals": signals,
                "default": self.default_route,
            },
        }

    # -- the cascade ----------------------------------------------------------------------------

    def _score(
        self, tier: SignalTier, text: str, normalised: str | None = None, top: int = 0
    ) -> _SignalOutcome:
        """The rules' outcome and the model's score; `top` strongest features when a reason
        will show them (finding them costs a sort, so only then)."""
        normalised = normalise(text) if normalised is None else normalised
        found, kind = tier.rules.analyse(text, normalised)
        if kind in CERTAIN and not top:
            return _SignalOutcome(tier, found, kind, Score(1.0, ()))
        score = tier.model.score(features(normalised), top, RULE_PRIOR.get(kind, 0.0))
        return _SignalOutcome(tier, found, kind, score)

    def _decide(self, text: str, system: str) -> RouteDecision:
        normalised = normalise(text)
        rule = self._rules.match(normalised) if self._rules else None
        if rule is not None:
            return RouteDecision(rule.route, rule.confidence, "rules", rule.reason)
        near, vetoed = self._examples.near(normalised) if self._examples else (None, frozenset())
        if near is not None:
            reason = f"near example {_clip(near.example)!r}"
            return RouteDecision(near.route, round(near.similarity, 3), "examples", reason)
        rejected: _SignalOutcome | None = None
        sure_not: _SignalOutcome | None = None
        for tier in self._signals:
            if tier.route in vetoed:
                continue
            instruction = tier.rules.detect_instruction(system, text) if system else None
            if instruction is not None:
                return _signal_decision(tier.route, instruction, "language", instruction.reason)
            outcome = self._score(tier, text, normalised)
            decision = self._learned_decision(outcome, text, normalised)
            if decision is not None:
                return decision
            if outcome.found is not None and rejected is None:
                rejected = outcome
            elif outcome.kind != "none" and sure_not is None:
                sure_not = outcome
        example = self._examples.match(normalised, vetoed) if self._examples else None
        if example is not None:
            reason = f"similar to example {_clip(example.example)!r}"
            return RouteDecision(example.route, round(example.similarity, 3), "examples", reason)
        route = self._fallback(vetoed)
        if vetoed:
            routes = ", ".join(sorted(vetoed))
            return RouteDecision(
                route, DEFAULT_CONFIDENCE, "examples", f"near a negative example of {routes}"
            )
        if rejected is not None and rejected.found is not None:
            rejected = self._score(rejected.tier, text, normalised, TOP_FEATURES)
            assert rejected.found is not None  # the same text: the same rules' outcome
            reason = (
                f"learned tier rejects {rejected.tier.route} signal "
                f"({rejected.found.reason}): p={rejected.score.probability:.2f}"
                f"{_features_text(rejected.score)}"
            )
            return RouteDecision(route, 1 - rejected.score.probability, "learned", reason)
        reason = "no rule, signal or example matched"
        if sure_not is not None:
            reason += f" ({sure_not.tier.route} rules: {sure_not.kind})"
        return RouteDecision(route, DEFAULT_CONFIDENCE, "default", reason)

    def _learned_decision(
        self, outcome: _SignalOutcome, text: str, normalised: str
    ) -> RouteDecision | None:
        """The signal route when the learned model (which weighs the rules' outcome) says so."""
        found, route = outcome.found, outcome.tier.route
        if outcome.score.probability < LEARNED_THRESHOLD:
            return None
        if found is None:  # the model decides alone: its reason names its strongest features
            outcome = self._score(outcome.tier, text, normalised, TOP_FEATURES)
        score = outcome.score
        if found is not None and outcome.kind in CERTAIN:
            return _signal_decision(route, found, "language", found.reason)
        if found is not None:  # the rules and the model agree: the rules say why
            reason = f"{found.reason}; learned p={score.probability:.2f}"
            return _signal_decision(route, found, "language", reason, score.probability)
        described = outcome.tier.rules.describe(text)
        reason = f"learned phrasing p={score.probability:.2f}{_features_text(score)}"
        if outcome.kind != "none":
            reason += f"; rules: {outcome.kind}"
        return _signal_decision(route, described, "learned", reason, score.probability)

    def _follow_up(
        self,
        messages: Sequence[Mapping[str, object]],
        user: str,
        system: str,
        decision: RouteDecision,
    ) -> RouteDecision | None:
        """A bare follow-up naming a language ("and in German?") after a request a signal
        route took stays on that route, with the new target and the earlier payload; so does
        one that carries the request on ("more casual?", "and 'good night'?")."""
        signal_routes = {tier.route for tier in self._signals}
        if decision.tier in ("rules", "examples") or decision.route in signal_routes:
            return None
        earlier = [content_text(m.get("content")) for m in messages if m.get("role") == "user"][:-1]
        if not earlier:
            return None
        for tier in self._signals:
            target = tier.rules.follow_up_target(user)
            phrase = None if target is not None else tier.rules.follow_up_continues(user)
            if target is None and phrase is None:
                continue
            previous = self._decide(earlier[-1], system)
            if previous.route != tier.route:
                continue
            if target is not None:
                reason = f"follow-up naming '{target}' after a {tier.route} request"
                payload = previous.payload
            else:
                target = previous.target_language
                reason = f"follow-up carrying on a {tier.route} request"
                payload = phrase or previous.payload
            return RouteDecision(
                tier.route, 0.85, "conversation", reason, target,
                previous.source_language, payload,
            )  # fmt: skip
        return None

    def _fallback(self, vetoed: frozenset[str]) -> str:
        if self.default_route not in vetoed:
            return self.default_route
        return next((r for r in self._routes if r not in vetoed), self.default_route)


def _signal_decision(
    route: str, found: SignalResult, tier: str, reason: str, probability: float | None = None
) -> RouteDecision:
    confidence = found.confidence if probability is None else max(found.confidence, probability)
    return RouteDecision(
        route, round(confidence, 3), tier, reason,
        found.target_language, found.source_language, found.payload,
    )  # fmt: skip


def _signal_dict(found: SignalResult | None) -> dict[str, object] | None:
    if found is None:
        return None
    return {
        "kind": found.kind,
        "confidence": found.confidence,
        "reason": found.reason,
        "target_language": found.target_language,
        "source_language": found.source_language,
    }


def _example_dict(match: ExampleMatch) -> dict[str, object]:
    return {
        "route": match.route,
        "similarity": round(match.similarity, 3),
        "example": match.example,
        "negative": match.negative,
    }


def _features_text(score: Score) -> str:
    if not score.top:
        return ""
    shown = ", ".join(f"{name!r} {weight:+.2f}" for name, weight in score.top[:3])
    return f" ({shown})"


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
