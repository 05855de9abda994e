#!/usr/bin/python3
"""Fits the grid-spectrum detector's model from the feature vectors extract.ts wrote (research: not
shipped, see README.md here).

    scripts/eval/ai-train/train.py [--features .cache/ai-train/grid.jsonl] [--write]

Debian's /usr/bin/python3 with python3-sklearn and python3-numpy (a pyenv python lacks them).
Deterministic: the same vectors give the same model. The test split is never read here.

  1. A logistic regression on the standardised grid-spectrum features, fitted on `train` (each image
     as it is and once re-encoded or resized), every source weighing the same within its class: a
     linear rule over 68 physically meant measures (README.md: what else was tried).
  2. The threshold: above every `val` real photograph's score, in every variant (as it is, JPEG,
     resized, both), by a margin. Validation sources are never in training, so this is the score a
     genuine photo of an unseen kind reached.
  3. Written to .cache/ai-train/grid-model.json as plain numbers (standardisation, coefficients,
     intercept, threshold) with what it was fitted on; evaluate.ts scores the test split with it.
"""
import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / ".cache/ai-train/grid-model.json"
C = 0.05
MARGIN = 0.25


def load(path):
    with open(path) as f:
        names = json.loads(f.readline())["features"]
        return names, [json.loads(line) for line in f if line.strip()]


def source_weights(rows):
    count = defaultdict(int)
    sources = defaultdict(set)
    for r in rows:
        count[(r["class"], r["source"])] += 1
        sources[r["class"]].add(r["source"])
    w = np.array([1.0 / count[(r["class"], r["source"])] / len(sources[r["class"]]) for r in rows])
    return w * len(rows) / w.sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--features", default=str(ROOT / ".cache/ai-train/grid.jsonl"))
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    names, rows = load(args.features)
    train = [r for r in rows if r["split"] == "train"]
    val = [r for r in rows if r["split"] == "val"]
    x = np.array([r["features"] for r in train])
    y = np.array([r["class"] == "generated" for r in train], dtype=int)
    scaler = StandardScaler().fit(x)
    model = LogisticRegression(C=C, max_iter=5000).fit(scaler.transform(x), y, sample_weight=source_weights(train))

    xv = np.array([r["features"] for r in val])
    yv = np.array([r["class"] == "generated" for r in val], dtype=int)
    sv = model.decision_function(scaler.transform(xv))
    real = sv[yv == 0]
    threshold = float(real.max() + MARGIN)
    print(f"train: {len(train)} vectors from {len({r['source'] for r in train})} sources; val: {len(val)} from {len({r['source'] for r in val})}", file=sys.stderr)
    print(f"val AUC {roc_auc_score(yv, sv):.3f}; real max {real.max():.3f}, threshold {threshold:.3f}; val generated detected {(sv[yv == 1] >= threshold).mean():.3f}", file=sys.stderr)
    top = np.argsort(-np.abs(model.coef_[0]))[:8]
    print("heaviest features: " + ", ".join(f"{names[i]} {model.coef_[0][i]:+.2f}" for i in top), file=sys.stderr)
    if args.write:
        out = {
            "features": names,
            "mean": [round(float(v), 6) for v in scaler.mean_],
            "scale": [round(float(v), 6) for v in scaler.scale_],
            "coef": [round(float(v), 6) for v in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 6),
            "threshold": round(threshold, 4),
            "trained_on": {
                "train_sources": sorted({r["source"] for r in train}),
                "val_sources": sorted({r["source"] for r in val}),
                "vectors": len(train),
                "C": C,
                "margin": MARGIN,
            },
        }
        MODEL.write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {MODEL}", file=sys.stderr)


if __name__ == "__main__":
    main()
