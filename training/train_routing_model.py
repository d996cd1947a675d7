"""Train the classifier's learned tier on generated requests and write the shipped weights.

    python training/train_routing_model.py DATA.jsonl [DATA2.jsonl …] [--out MODEL.json.gz]

Logistic regression (L2, full-batch Adam, balanced classes) over `router.classify.learned.features`
(phrasing only: the rules' outcome is added at serving time as a fixed prior, see
router/classify/learned.py). numpy is needed here only; serving reads plain JSON.

Given several data files (the generator run with different seeds), one model is fitted per file
and the shipped weights are their mean (a feature one fit lacks counts 0 there): the mean of
linear models is the mean of their logits, so scoring costs the same, and the model no longer
depends on which fillers one seed happened to draw (bagging).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from router.classify.learned import FORMAT, RULE_PRIOR, TRANSLATION_MODEL, Features, features
from router.classify.text import normalise


def featurise(texts: list[str]) -> list[Features]:
    return [features(normalise(text)) for text in texts]


def rule_offsets(texts: list[str], kinds_offset: str = "negative") -> np.ndarray:
    """Each row's rule prior (RULE_PRIOR of the rules' outcome), the offset the model's logit
    gets at serving time: trained with it, the model learns what the rules leave open."""
    from router.classify.classifier import Classifier
    from router.classify.evaluate import default_routes

    tier = Classifier(default_routes(), "qa")._signals[0]
    kinds = [tier.rules.analyse(text, normalise(text))[1] for text in texts]
    # Only the priors against a translation: where the rules found a phrasing (positive
    # priors) the generated rows' balance of labels is not the world's, and an offset there
    # teaches the model to overturn them with shape features (measured: dev 100 % -> 88 %).
    if kinds_offset == "none":
        return np.array([RULE_PRIOR["none"] if kind == "none" else 0.0 for kind in kinds])
    return np.array([min(0.0, RULE_PRIOR.get(kind, 0.0)) for kind in kinds])


def train(
    featured: list[Features],
    labels: np.ndarray,
    min_count: int,
    l2: float,
    epochs: int,
    offsets: np.ndarray | None = None,
    dense_l2: float | None = None,
) -> tuple[dict[str, float], float]:
    rows = [feats.all() for feats in featured]
    dense_names = {f for feats in featured for f in feats.dense}
    counts: Counter[str] = Counter(f for feats in rows for f in set(feats))
    vocab = {f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= min_count))}
    index = [
        np.array(sorted({vocab[f] for f in feats if f in vocab}), dtype=np.int64) for feats in rows
    ]
    dense = np.array([f in dense_names for f in sorted(vocab, key=vocab.__getitem__)])
    # The shape features (length, script, quote scripts) count at full weight and say more
    # about the generator's mix of rows than about a request: they may get a stronger penalty.
    penalty = np.where(dense, l2 if dense_l2 is None else dense_l2, l2)
    # The bag's scale uses its full size, known and unknown features alike, as at serving time.
    lengths = np.array([len(feats.bag) for feats in featured], dtype=np.float64)
    scale = 1.0 / np.sqrt(np.maximum(lengths, 1.0))
    flat = np.concatenate(index)
    row_of = np.repeat(np.arange(len(rows)), [len(ix) for ix in index])
    values = np.where(dense[flat], 1.0, scale[row_of])
    # Balanced classes: each label weighs half of the loss.
    positive = labels.mean()
    sample_weight = np.where(labels == 1, 0.5 / positive, 0.5 / (1 - positive)) / len(rows)
    weights = np.zeros(len(vocab))
    bias = 0.0
    m, v = np.zeros(len(vocab) + 1), np.zeros(len(vocab) + 1)
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    for epoch in range(1, epochs + 1):
        logits = np.bincount(row_of, weights=weights[flat] * values, minlength=len(rows)) + bias
        if offsets is not None:
            logits = logits + offsets
        probs = 1.0 / (1.0 + np.exp(-logits))
        error = (probs - labels) * sample_weight
        grad_w = np.bincount(flat, weights=error[row_of] * values, minlength=len(vocab))
        grad_w += 2 * penalty * weights
        grad = np.append(grad_w, error.sum())
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        step = rate * (m / (1 - beta1**epoch)) / (np.sqrt(v / (1 - beta2**epoch)) + 1e-8)
        weights -= step[:-1]
        bias -= step[-1]
        if epoch % 50 == 0 or epoch == epochs:
            loss = -(
                sample_weight
                * (labels * np.log(probs + 1e-12) + (1 - labels) * np.log(1 - probs + 1e-12))
            ).sum()
            accuracy = ((probs >= 0.5) == (labels == 1)).mean()
            print(f"epoch {epoch}: loss {loss:.4f}  train accuracy {accuracy:.4f}", flush=True)
    names = sorted(vocab, key=vocab.__getitem__)
    return {n: float(w) for n, w in zip(names, weights, strict=True)}, float(bias)


def _fit_file(
    path: Path, args: argparse.Namespace, started: float
) -> tuple[dict[str, float], float, int]:
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    rows = featurise([r["text"] for r in records])
    labels = np.array([1.0 if r["label"] == "translation" else 0.0 for r in records])
    elapsed = time.perf_counter() - started
    print(f"{path}: {len(rows)} rows featurised in {elapsed:.1f} s", flush=True)
    texts = [r["text"] for r in records]
    offsets = None if args.offsets == "off" else rule_offsets(texts, args.offsets)
    weights, bias = train(
        rows, labels, args.min_count, args.l2, args.epochs, offsets, args.dense_l2
    )
    return weights, bias, len(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="one fit per file, weights averaged")
    parser.add_argument("--out", type=Path, default=TRANSLATION_MODEL)
    parser.add_argument("--min-count", type=int, default=3)
    parser.add_argument("--l2", type=float, default=1e-6)
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--keep", type=float, default=0.002, help="drop weights smaller than this")
    parser.add_argument("--dense-l2", type=float, default=None, help="L2 of the shape features")
    parser.add_argument(
        "--offsets",
        choices=("off", "none", "negative"),
        default="off",
        help="fit with the rule prior of each row as an offset: of 'none' rows, or every prior < 0",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    total: dict[str, float] = {}
    biases: list[float] = []
    rows_seen = 0
    for path in args.data:
        weights, bias, count = _fit_file(path, args, started)
        for f, w in weights.items():
            total[f] = total.get(f, 0.0) + w
        biases.append(bias)
        rows_seen += count
    weights = {f: w / len(args.data) for f, w in total.items()}
    bias = sum(biases) / len(biases)
    kept = {f: round(w, 4) for f, w in weights.items() if abs(w) >= args.keep}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model = {
        "format": FORMAT,
        "bias": round(bias, 4),
        "weights": kept,
        "trained_on": {
            "rows": rows_seen,
            "fits_averaged": len(args.data),
            "l2": args.l2,
            "epochs": args.epochs,
            "min_count": args.min_count,
            "offsets": args.offsets,
            "dense_l2": args.dense_l2,
        },
    }
    text = json.dumps(model, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # mtime=0: the same data gives the same bytes, so the committed file can be checked.
    with args.out.open("wb") as raw, gzip.GzipFile(None, "wb", 9, raw, mtime=0) as handle:
        handle.write(text.encode("utf-8"))
    size = args.out.stat().st_size
    print(
        f"{len(kept)} of {len(weights)} weights kept → {args.out} ({size / 1e6:.2f} MB), "
        f"{time.perf_counter() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
