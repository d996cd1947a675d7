"""The hand-written challenge set (tests/unit/data): the same targets as the dev set.

The dev set's phrasings were read while the classifier was written; this set was written
independently, imitating the same sources, to check that the rules generalise.
"""

from __future__ import annotations

import io
from pathlib import Path

from router.classify import Classifier
from router.classify.evaluate import default_routes, run_eval_routing

CHALLENGE = Path(__file__).parent / "data" / "routing_challenge.jsonl"


def test_routing_challenge_set() -> None:
    out = io.StringIO()
    report = run_eval_routing(CHALLENGE, Classifier(default_routes(), "qa"), out)
    assert report.total >= 400, out.getvalue()
    assert report.accuracy >= 0.98, out.getvalue()
    assert all(recall >= 0.97 for recall in report.recall.values()), out.getvalue()
    assert report.hard_accuracy >= 0.90, out.getvalue()
