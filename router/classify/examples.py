"""Example similarity: character n-gram TF-IDF nearest neighbour over route examples.

Character n-grams work across scripts without segmentation, cost well under a millisecond
for a request's head, and need no model files (a transformer would blow the 2 ms budget).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from router.classify.text import normalise
from router.classify.config import RecognitionConfig

NGRAM_SIZES = (2, 3, 4)
# Examples are short requests; the head of a long request carries its intent.
MAX_CHARS = 320
MIN_SIMILARITY = 0.4
MIN_MARGIN = 0.05


@dataclass(frozen=True, slots=True)
class ExampleMatch:
    route: str
    similarity: float
    example: str


def _grams(text: str) -> Counter[str]:
    padded = f" {' '.join(normalise(text)[:MAX_CHARS].split())} "
    return Counter(padded[i : i + n] for n in NGRAM_SIZES for i in range(len(padded) - n + 1))


@dataclass(frozen=True, slots=True)
class _Vector:
    weights: dict[str, float]
    norm: float


class ExampleIndex:
    def __init__(
        self,
        routes: Mapping[str, RecognitionConfig],
        min_similarity: float = MIN_SIMILARITY,
        min_margin: float = MIN_MARGIN,
    ) -> None:
        entries = [(r, e) for r, rec in routes.items() for e in rec.examples if e.strip()]
        counts = [_grams(example) for _, example in entries]
        document_frequency: Counter[str] = Counter()
        for grams in counts:
            document_frequency.update(grams.keys())
        total = len(entries)
        self._idf = {
            g: math.log((1 + total) / (1 + df)) + 1 for g, df in document_frequency.items()
        }
        self._unknown_idf = math.log(1 + total) + 1
        self._entries = tuple(
            (route, example, self._vector(grams))
            for (route, example), grams in zip(entries, counts, strict=True)
        )
        self._min_similarity = min_similarity
        self._min_margin = min_margin

    def __bool__(self) -> bool:
        return bool(self._entries)

    def _vector(self, grams: Counter[str]) -> _Vector:
        weights = {
            g: (1 + math.log(c)) * self._idf.get(g, self._unknown_idf) for g, c in grams.items()
        }
        return _Vector(weights, math.sqrt(sum(w * w for w in weights.values())) or 1.0)

    def match(self, text: str) -> ExampleMatch | None:
        """The nearest example's route, if near enough and clearly nearer than other routes."""
        if not self._entries:
            return None
        query = self._vector(_grams(text))
        best: dict[str, tuple[float, str]] = {}
        for route, example, vector in self._entries:
            small, large = sorted((query.weights, vector.weights), key=len)
            dot = sum(w * large.get(g, 0.0) for g, w in small.items())
            similarity = dot / (query.norm * vector.norm)
            if similarity > best.get(route, (-1.0, ""))[0]:
                best[route] = (similarity, example)
        ranked = sorted(best.items(), key=lambda item: item[1][0], reverse=True)
        route, (similarity, example) = ranked[0]
        runner_up = ranked[1][1][0] if len(ranked) > 1 else 0.0
        if similarity < self._min_similarity or similarity - runner_up < self._min_margin:
            return None
        return ExampleMatch(route, similarity, example)
