"""The classifier's output: which route, how sure, which tier decided and why."""

from __future__ import annotations

from dataclasses import dataclass

TIERS = ("explicit", "rules", "examples", "language", "learned", "conversation", "default")


@dataclass(frozen=True, slots=True)
class RouteDecision:
    route: str
    confidence: float
    tier: str
    reason: str
    target_language: str | None = None
    source_language: str | None = None
    # For translation: the text to translate, without the instruction around it.
    payload: str | None = None

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form; language fields appear only when known."""
        data: dict[str, object] = {
            "route": self.route,
            "confidence": round(self.confidence, 3),
            "tier": self.tier,
            "reason": self.reason,
        }
        if self.target_language is not None:
            data["target_language"] = self.target_language
        if self.source_language is not None:
            data["source_language"] = self.source_language
        return data


def explicit_decision(route: str, source: str) -> RouteDecision:
    """A route the client named itself: `source` is e.g. "model 'qa'" or "X-Route header"."""
    return RouteDecision(route=route, confidence=1.0, tier="explicit", reason=source)
