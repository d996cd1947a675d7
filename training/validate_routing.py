"""A generalisation check for the learned tier: leave-one-family-group-out validation.

    python training/validate_routing.py [--per-template N] [--epochs E] [--groups G,…]

The dev set is at 100 %, so it no longer says whether a change generalises. Here the generator's
template families are split into groups of related phrasings; for each group the model is
trained on every other group's rows (same generator, same seed, fewer rows than the shipped
model) and the whole classifier (rules + that model) routes a sample of the held-out group's
rows. A group scored well is phrasing learned from *other* templates, not enumerated. The
per-group accuracies and their mean are printed; `--validation FILE` also routes a labelled
JSONL set (training/routing_validation.jsonl, written by hand) with each held-out model.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_routing_data import generate
from train_routing_model import featurise, train

from router.classify.classifier import Classifier
from router.classify.evaluate import default_routes, run_eval_routing
from router.classify.learned import RULE_PRIOR, LinearModel

# Families that share a way of asking are held out together (a family alone would leak its
# phrasing through its siblings).
GROUPS = {
    "t:colloquial": ["translation:word_in", "translation:say", "translation:people",
                     "translation:colloquial", "translation:put_in", "translation:people_more"],
    "t:frames": ["translation:other_frame", "translation:code_switched", "translation:native"],
    "t:explicit+meaning": ["translation:explicit", "translation:from_foreign",
                           "translation:meaning", "translation:foreign_message",
                           "translation:terse", "translation:meaning_more"],
    "t:ni_task": ["translation:ni_task"],
    "q:about_language": ["qa:about_language", "qa:say_same_language", "qa:same_language_say",
                         "qa:own_words", "qa:grammar", "qa:script", "qa:native_own_meaning"],
    "q:judging+tasks": ["qa:translation_topic", "qa:pair_judgement",
                        "qa:tasks_about_languages", "qa:same_language_tasks"],
    "q:false+settings": ["qa:false_translate", "qa:settings", "qa:in_place",
                         "qa:quoted_queries", "qa:people_lookalikes", "qa:terse_lookalikes"],
    "q:frames+general": ["qa:other_frame", "qa:general", "qa:write_in",
                         "qa:same_language", "qa:colloquial_lookalikes", "qa:native", "qa:generic"],
}  # fmt: skip
SAMPLE_PER_FAMILY = 150


def _with_model(classifier: Classifier, model: LinearModel) -> Classifier:
    classifier._signals = tuple(  # a check swaps the model it scores
        dataclasses.replace(tier, model=model) for tier in classifier._signals
    )
    return classifier


def _route_rows(classifier: Classifier, rows: list[dict[str, str]]) -> float:
    hits = sum(classifier.classify_text(r["text"]).route == r["label"] for r in rows)
    return hits / len(rows) if rows else 0.0


def _route_set(classifier: Classifier, path: Path) -> dict[str, float]:
    """A labelled JSONL set scored by eval-routing's own evaluation: overall, hard, per label."""
    report = run_eval_routing(path, classifier, io.StringIO())
    per = {"all": report.accuracy}
    per.update({name: accuracy for name, (_, accuracy) in report.slices.items()
                if name == "hard" or name.startswith("label=")})
    return per


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-template", type=int, default=400)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--l2", type=float, default=1e-6)
    parser.add_argument("--min-count", type=int, default=3)
    parser.add_argument("--groups", default=",".join(GROUPS))
    parser.add_argument("--validation", type=Path, default=None)
    parser.add_argument("--per-family", action="store_true", help="also print each family's share")
    parser.add_argument(
        "--none-priors",
        default="",
        help="also route each held-out group with these priors for 'no rule fired' (a,b,…)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    rows = list(generate(args.per_template, args.seed))
    kinds = {kind for group in GROUPS.values() for kind in group}
    missing = {r["kind"] for r in rows} - kinds
    if missing:
        raise SystemExit(f"families in no group: {sorted(missing)}")
    featured = featurise([r["text"] for r in rows])
    labels = np.array([1.0 if r["label"] == "translation" else 0.0 for r in rows])
    classifier = Classifier(default_routes(), "qa")
    print(f"{len(rows)} rows featurised in {time.perf_counter() - started:.0f} s", flush=True)
    rng = random.Random(args.seed)
    scores: dict[str, float] = {}
    by_prior: dict[str, dict[str, float]] = {}
    for name in args.groups.split(","):
        held = set(GROUPS[name])
        keep = [i for i, r in enumerate(rows) if r["kind"] not in held]
        with contextlib.redirect_stdout(io.StringIO()):
            weights, bias = train(
                [featured[i] for i in keep], labels[keep], args.min_count, args.l2, args.epochs
            )
        model = LinearModel({f: w for f, w in weights.items() if abs(w) >= 0.002}, bias)
        _with_model(classifier, model)
        sample: list[dict[str, str]] = []
        for kind in sorted(held):
            of_kind = [r for r in rows if r["kind"] == kind]
            sample += rng.sample(of_kind, min(SAMPLE_PER_FAMILY, len(of_kind)))
        scores[name] = _route_rows(classifier, sample)
        if args.per_family:
            for kind in sorted(held):
                of_kind = [r for r in sample if r["kind"] == kind]
                if of_kind:
                    print(f"  family {kind:<36} {_route_rows(classifier, of_kind):.2%}")
        shipped = RULE_PRIOR["none"]
        for value in filter(None, args.none_priors.split(",")):
            RULE_PRIOR["none"] = float(value)
            by_prior.setdefault(value, {})[name] = _route_rows(classifier, sample)
        RULE_PRIOR["none"] = shipped
        line = f"held out {name:<20} {len(sample):>5} rows  routed right {scores[name]:.2%}"
        if args.validation is not None:
            per = _route_set(classifier, args.validation)
            line += "  validation " + " ".join(f"{k} {v:.1%}" for k, v in sorted(per.items()))
        print(line, flush=True)
    mean = sum(scores.values()) / len(scores)
    for value, of_groups in by_prior.items():
        routed = " ".join(f"{g} {v:.1%}" for g, v in of_groups.items())
        print(f"none prior {value}: mean {sum(of_groups.values()) / len(of_groups):.2%} ({routed})")
    took = time.perf_counter() - started
    print(f"mean over {len(scores)} held-out groups: {mean:.2%} ({took:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
