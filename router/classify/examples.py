"""Example similarity: character n-gram TF-IDF nearest neighbour over route examples.

Character n-grams work across scripts without segmentation, cost well under a millisecond
for a request's head, and need no model files (a transformer would blow the 2 ms budget).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from router.classify.config import RecognitionConfig
from router.classify.text import normalise

NGRAM_SIZES = (2, 3, 4)
# Examples are short requests; the head of a long request carries its intent.
MAX_CHARS = 320
MIN_SIMILARITY = 0.4
MIN_MARGIN = 0.05
# A request this close to a user's example is that example's case: it outranks the built-in
# language signals and the learned tier (the user's own tuning, in routes.yaml).
NEAR_SIMILARITY = 0.6


@dataclass(frozen=True, slots=True)
class ExampleMatch:
    route: str
    similarity: float
    example: str
    # A negative example: the request looks like `route` but belongs elsewhere.
    negative: bool = False


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
        entries = [
            (route, example, negative)
            for route, rec in routes.items()
            for examples, negative in ((rec.examples, False), (rec.negative_examples, True))
            for example in examples
            if example.strip()
        ]
        counts = [_grams(example) for _, example, _ in entries]
        document_frequency: Counter[str] = Counter()
        for grams in counts:
            document_frequency.update(grams.keys())
        total = len(entries)
        self._idf = {
            g: math.log((1 + total) / (1 + df)) + 1 for g, df in document_frequency.items()
        }
        self._unknown_idf = math.log(1 + total) + 1
        self._entries = tuple(
            (route, example, negative, self._vector(grams))
            for (route, example, negative), grams in zip(entries, counts, strict=True)
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

    def similarities(self, text: str) -> list[ExampleMatch]:
        """Every route's nearest positive and nearest negative example, most similar first."""
        if not self._entries:
            return []
        query = self._vector(_grams(text))
        best: dict[tuple[str, bool], ExampleMatch] = {}
        for route, example, negative, vector in self._entries:
            small, large = sorted((query.weights, vector.weights), key=len)
            dot = sum(w * large.get(g, 0.0) for g, w in small.items())
            similarity = dot / (query.norm * vector.norm)
            current = best.get((route, negative))
            if current is None or similarity > current.similarity:
                best[(route, negative)] = ExampleMatch(route, similarity, example, negative)
        return sorted(best.values(), key=lambda match: match.similarity, reverse=True)

    def near(self, text: str) -> tuple[ExampleMatch | None, frozenset[str]]:
        """A positive example near enough to decide, and the routes whose negative examples
        the request is nearer to than to any of their positives (those routes are vetoed)."""
        found = self.similarities(text)
        positive = {m.route: m.similarity for m in found if not m.negative}
        vetoed = frozenset(
            m.route
            for m in found
            if m.negative
            and m.similarity >= NEAR_SIMILARITY - 0.1
            and m.similarity > positive.get(m.route, 0.0)
        )
        for match in found:
            if not match.negative and match.route not in vetoed:
                if match.similarity >= NEAR_SIMILARITY:
                    return match, vetoed
                break
        return None, vetoed

    def match(self, text: str, excluded: frozenset[str] = frozenset()) -> ExampleMatch | None:
        """The nearest positive example's route, if near enough and clearly nearer than other
        routes' positives; routes in `excluded` are skipped."""
        ranked = [m for m in self.similarities(text) if not m.negative and m.route not in excluded]
        if not ranked:
            return None
        runner_up = ranked[1].similarity if len(ranked) > 1 else 0.0
        best = ranked[0]
        if best.similarity < self._min_similarity or best.similarity - runner_up < self._min_margin:
            return None
        return best
