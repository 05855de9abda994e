#!/usr/bin/python3
"""A linear probe on the features extract.ts wrote (research: nothing ships; README.md here).

    scripts/eval/backbone-probe/probe.py ai|screen

Debian's /usr/bin/python3 with python3-sklearn. For each view (the squashed whole picture, the
native-resolution centre, both) and each regularisation: a logistic regression fitted on `train`
(classes balanced), its AUC on `val` (the AI set only: the recapture set has none) and on `test`, and
the share of `test` positives caught at a threshold above every `train` and `val` real photograph,
which is the service's rule (no false alarm on the photographs it has seen), with Wilson 95 % intervals.
"""
import json
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts/eval"))
from wilson import rate  # noqa: E402
POSITIVE = {"ai": "generated", "screen": "recapture"}
# The best on `val` (the AI set); its scores go to .cache/backbone-probe/<set>-scores.json, which
# scripts/eval/ai-train/npr.py combines with its own.
KEPT = ("both", 0.01)


def main():
    which = sys.argv[1]
    rows = [json.loads(line) for line in open(ROOT / f".cache/backbone-probe/{which}.jsonl")]
    split = np.array([r["label"].split(":")[0] for r in rows])
    y = np.array([r["label"].split(":")[1] == POSITIVE[which] for r in rows], dtype=int)
    views = {"squash": np.array([r["squash"] for r in rows]), "crop": np.array([r["crop"] for r in rows])}
    views["both"] = np.hstack([views["squash"], views["crop"]])
    seen = (split == "train") | (split == "val")
    test = split == "test"
    print(f"{which}: train {np.sum(split == 'train')}, val {np.sum(split == 'val')}, test {np.sum(test)} "
          f"({np.sum(y[test])} {POSITIVE[which]}, {np.sum(test & (y == 0))} real)")
    for view, x in views.items():
        for c in (0.001, 0.01, 0.1):
            train = split == "train"
            scale = StandardScaler().fit(x[train])
            model = LogisticRegression(C=c, max_iter=5000, class_weight="balanced").fit(scale.transform(x[train]), y[train])
            score = model.decision_function(scale.transform(x))
            threshold = score[seen & (y == 0)].max()
            caught = int(np.sum(score[test & (y == 1)] > threshold))
            false = int(np.sum(score[test & (y == 0)] > threshold))
            val = f"val AUC {roc_auc_score(y[split == 'val'], score[split == 'val']):.2f} | " if np.any(split == "val") else ""
            print(f"{view:6s} C={c:<5} | {val}test AUC {roc_auc_score(y[test], score[test]):.2f} | "
                  f"caught {rate(caught, int(np.sum(test & (y == 1))))} | false alarms {rate(false, int(np.sum(test & (y == 0))))}")
            if (view, c) == KEPT:
                kept = {Path(r["file"]).name: float(v) for r, v in zip(rows, score)}
                (ROOT / f".cache/backbone-probe/{which}-scores.json").write_text(json.dumps(kept))


if __name__ == "__main__":
    main()
