"""Route rules: the keywords and regex patterns a route lists under `recognize:`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from router.classify.config import RecognitionConfig
from router.classify.text import normalise


@dataclass(frozen=True, slots=True)
class RuleMatch:
    route: str
    confidence: float
    reason: str


@dataclass(frozen=True, slots=True)
class _RouteRule:
    route: str
    keywords: re.Pattern[str] | None
    patterns: tuple[tuple[str, re.Pattern[str]], ...]


def _keyword_regex(keyword: str) -> str:
    """Whole-word match for alphabetic scripts; unsegmented scripts (CJK) match anywhere."""
    escaped = re.escape(keyword)
    if any("\u3040" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af" for c in keyword):
        return escaped
    head = r"(?<!\w)" if keyword[:1].isalnum() else ""
    tail = r"(?!\w)" if keyword[-1:].isalnum() else ""
    return head + escaped + tail


class RouteRules:
    """Matches normalised (NFKC, casefolded) text; a pattern hit outranks keyword hits."""

    def __init__(self, routes: Mapping[str, RecognitionConfig]) -> None:
        rules: list[_RouteRule] = []
        for route, recognize in routes.items():
            words = [normalise(k) for k in recognize.keywords if k.strip()]
            keywords = re.compile("|".join(_keyword_regex(w) for w in words)) if words else None
            patterns = tuple((pat, re.compile(pat, re.IGNORECASE)) for pat in recognize.patterns)
            if keywords is not None or patterns:
                rules.append(_RouteRule(route, keywords, patterns))
        self._rules = tuple(rules)

    def __bool__(self) -> bool:
        return bool(self._rules)

    def match(self, text: str) -> RuleMatch | None:
        """Best route for normalised `text`; ties go to the route listed first."""
        best: tuple[int, RuleMatch] | None = None
        for rule in self._rules:
            score, reason = 0, ""
            for source, pattern in rule.patterns:
                if pattern.search(text):
                    score, reason = score + 10, reason or f"pattern {source!r}"
            if rule.keywords is not None:
                hits = sorted({m.group() for m in rule.keywords.finditer(text)})
                if hits:
                    score += len(hits)
                    reason = reason or "keyword " + ", ".join(repr(h) for h in hits[:3])
            if score and (best is None or score > best[0]):
                confidence = 0.9 if score >= 10 else min(0.9, 0.7 + 0.1 * (score - 1))
                best = (score, RuleMatch(rule.route, confidence, reason))
        return best[1] if best else None
