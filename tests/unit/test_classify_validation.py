"""The generalisation check's inputs (training/validate_routing.py): every template family of
the generator is held out in exactly one group, and the hand-written validation set is
well-formed (the check itself trains models: run it by hand, see training/README.md)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

TRAINING = Path(__file__).resolve().parents[2] / "training"
sys.path.insert(0, str(TRAINING))

import generate_routing_data  # noqa: E402
import validate_routing  # noqa: E402


def test_every_family_is_held_out_in_exactly_one_group() -> None:
    families = [f"translation:{k}" for k in generate_routing_data.TRANSLATION]
    families += [f"qa:{k}" for k in generate_routing_data.QA]
    grouped = Counter(kind for group in validate_routing.GROUPS.values() for kind in group)
    assert set(grouped) == set(families)
    assert set(grouped.values()) == {1}
    labels = {name.split(":")[0] for name in validate_routing.GROUPS}
    assert labels == {"t", "q"}


def test_validation_set_is_labelled_and_varied() -> None:
    rows = [json.loads(line) for line in (TRAINING / "routing_validation.jsonl").open()]
    assert len(rows) >= 100
    assert {r["label"] for r in rows} == {"translation", "qa"}
    assert all(r["messages"][-1]["role"] == "user" and r["id"] for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({r["lang"] for r in rows}) >= 12  # payload languages; frames in more
    assert all(r["source"].startswith("switchboard-validation:") for r in rows)
