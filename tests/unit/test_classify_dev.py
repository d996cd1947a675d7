"""The routing dev set (/work/shared/eval): accuracy, per-label recall and hard-subset targets."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from router.classify import Classifier
from router.classify.evaluate import default_data_path, default_routes, run_eval_routing


def test_routing_dev_set() -> None:
    path: Path = default_data_path()
    if not path.exists():
        pytest.skip(f"routing dev set not found at {path} (set SWITCHBOARD_ROUTING_DEV)")
    out = io.StringIO()
    report = run_eval_routing(path, Classifier(default_routes(), "qa"), out)
    assert report.accuracy >= 0.98, out.getvalue()
    assert all(recall >= 0.97 for recall in report.recall.values()), out.getvalue()
    assert report.hard_accuracy >= 0.90, out.getvalue()
    assert "confusion" in out.getvalue() and "p99" in out.getvalue()
