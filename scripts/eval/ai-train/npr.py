#!/usr/bin/python3
"""Upsampling traces learned by a small network: NPR, Tan et al., CVPR 2024 (research: nothing
ships; README.md here).

    scripts/eval/ai-train/npr.py            # after scripts/eval/ai-data/build.ts; about 10 minutes

Debian's /usr/bin/python3 with python3-torch, python3-sklearn, python3-numpy and python3-pil.
Deterministic seeds. A generator's decoder upsamples, so in a generated image the pixels of a 2×2
block are related in a way a camera's are not; NPR is the image minus its nearest-neighbour
2× down-and-up copy (each pixel minus its block's top-left one), read by a five-layer network.

  1. Crops: 16 native-resolution 64×64 crops per image, at offsets that are multiples of 8 (the
     decoder's and JPEG's grids stay aligned); `test` images also once JPEG-re-encoded (quality
     75–90) and once resized (50–100 %, bicubic) before cropping.
  2. Training on `train` only: every class half the samples, every source of a class the same share,
     each crop JPEG-re-encoded (quality 70–95) with probability 1/2 in both classes, so that a
     camera's compression cannot stand for "real", and mirrored with probability 1/2. 4 epochs.
  3. An image's score is the mean of its crops' logits. Threshold: above every `train` and `val`
     real photograph, the service's rule; also printed, the threshold above the `test` photographs
     themselves (an oracle no deployment has), to show the ceiling.
  4. When scripts/eval/backbone-probe/ has run on the AI set, both detectors together: an image
     reads generated only when both scores, each standardised on the `train` photographs, are
     above the threshold (the lower of the two), on the original files.
"""
import io
import json
import os
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts/eval"))
from wilson import rate  # noqa: E402
DATA = ROOT / ".cache/ai-data"
SIDE, CROPS, EPOCHS, BATCH = 64, 16, 4, 128
# NPR_UPSCALE=0.3: that share of real crops is upscaled (1.25–4×, four interpolations) in training,
# as hard negatives for the upscaled genuine photographs (README.md: it did not help).
UPSCALE = float(os.environ.get("NPR_UPSCALE", "0"))
Image.MAX_IMAGE_PIXELS = None


def crops(image, rng):
    w, h = image.size
    if w < SIDE or h < SIDE:
        return None
    pixels = np.asarray(image)
    at = [(rng.randrange((w - SIDE) // 8 + 1) * 8, rng.randrange((h - SIDE) // 8 + 1) * 8) for _ in range(CROPS)]
    return np.stack([pixels[y:y + SIDE, x:x + SIDE] for x, y in at])


def jpeg(image, quality):
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB")


def variant(image, name, rng):
    if name == "jpeg":
        return jpeg(image, rng.randint(75, 90))
    if name == "resize":
        f = rng.uniform(0.5, 1.0)
        return image.resize((max(1, round(image.width * f)), max(1, round(image.height * f))), Image.BICUBIC)
    return image


def load():
    rng = random.Random(31)
    samples, meta = [], []
    for split in ("train", "val", "test"):
        for cls in ("generated", "real"):
            for name in sorted(os.listdir(DATA / split / cls)):
                image = Image.open(DATA / split / cls / name)
                image.seek(0)
                image = image.convert("RGB")
                for v in ("original", "jpeg", "resize") if split == "test" else ("original",):
                    c = crops(variant(image, v, rng), rng)
                    if c is not None:
                        samples.append(c)
                        meta.append((split, cls == "generated", name.split("__")[0], v, name))
    return np.stack(samples), meta


class Net(nn.Module):
    def __init__(self):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

        self.features = nn.Sequential(block(3, 16), block(16, 16), nn.MaxPool2d(2), block(16, 32), block(32, 32), nn.MaxPool2d(2), block(32, 64))
        self.head = nn.Linear(64, 1)

    def forward(self, x):
        npr = x - x[:, :, ::2, ::2].repeat_interleave(2, 2).repeat_interleave(2, 3)
        return self.head(self.features(npr * 4).mean((2, 3))).squeeze(1)


def upscaled(crop, rng):
    side = max(8, int(SIDE / rng.uniform(1.25, 4.0)))
    method = (Image.BILINEAR, Image.BICUBIC, Image.LANCZOS, Image.NEAREST)[int(rng.integers(4))]
    return np.asarray(Image.fromarray(np.ascontiguousarray(crop[:side, :side])).resize((SIDE, SIDE), method))


def tensor(batch):
    return torch.from_numpy(np.ascontiguousarray(np.stack(batch))).permute(0, 3, 1, 2).float() / 255


def train(x, y, source, rows):
    rng = np.random.default_rng(31)
    weight = np.zeros(len(rows))
    for cls in (False, True):
        count = Counter(source[rows][y[rows] == cls])
        for j, i in enumerate(rows):
            if y[i] == cls:
                weight[j] = 1.0 / (count[source[i]] * len(count))
    weight /= weight.sum()
    net = Net()
    opt = torch.optim.AdamW(net.parameters(), 1e-3, weight_decay=1e-4)
    for epoch in range(EPOCHS):
        net.train()
        total = 0.0
        steps = len(rows) * CROPS // BATCH
        for _ in range(steps):
            picked = [(rows[j], int(rng.integers(CROPS))) for j in rng.choice(len(rows), BATCH, p=weight)]
            batch = []
            for i, k in picked:
                a = x[i, k]
                if UPSCALE and not y[i] and rng.random() < UPSCALE:
                    a = upscaled(a, rng)
                if rng.random() < 0.5:
                    a = np.asarray(jpeg(Image.fromarray(a), int(rng.integers(70, 96))))
                batch.append(a[:, ::-1] if rng.random() < 0.5 else a)
            loss = F.binary_cross_entropy_with_logits(net(tensor(batch)), torch.from_numpy(y[[i for i, _ in picked]].astype(np.float32)))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / steps:.3f}", file=sys.stderr)
    return net


def main():
    torch.manual_seed(31)
    torch.set_num_threads(os.cpu_count() or 1)
    x, meta = load()
    split = np.array([m[0] for m in meta])
    y = np.array([m[1] for m in meta])
    source = np.array([m[2] for m in meta])
    kind = np.array([m[3] for m in meta])
    net = train(x, y, source, np.where(split == "train")[0])
    net.eval()
    with torch.no_grad():
        score = np.array([net(tensor(list(x[i]))).mean().item() for i in range(len(meta))])
    val = split == "val"
    print(f"val AUC {roc_auc_score(y[val], score[val]):.3f}")
    seen = score[(split != "test") & ~y].max()
    oracle = score[(split == "test") & ~y & (kind == "original")].max()
    top = np.argsort(-np.where((split != "test") & ~y, score, -np.inf))[:3]
    print("highest seen photographs:", ", ".join(f"{source[i]} {score[i]:.2f}" for i in top))
    for v in ("original", "jpeg", "resize"):
        t = (split == "test") & (kind == v)
        cells = [f"{v}: test AUC {roc_auc_score(y[t], score[t]):.3f}"]
        for label, threshold in (("seen", seen), ("oracle", oracle)):
            cells.append(f"{label} {threshold:.2f}: caught {rate(int(np.sum(score[t & y] > threshold)), int(np.sum(t & y)))}, "
                         f"false alarms {rate(int(np.sum(score[t & ~y] > threshold)), int(np.sum(t & ~y)))}")
        print(" | ".join(cells))
    both(score, meta, split, y, kind)


def both(score, meta, split, y, kind):
    """Generated only when both agree: this network and the backbone probe, if it has run."""
    path = ROOT / ".cache/backbone-probe/ai-scores.json"
    if not path.exists():
        return
    probe = json.loads(path.read_text())
    rows = np.array([kind[i] == "original" and meta[i][4] in probe for i in range(len(meta))])
    a, b = score[rows], np.array([probe[meta[i][4]] for i in np.where(rows)[0]])
    s, t = split[rows], y[rows]

    def standard(v):
        real = v[(s == "train") & ~t]
        return (v - real.mean()) / real.std()

    combined = np.minimum(standard(a), standard(b))
    test = s == "test"
    seen = combined[~test & ~t].max()
    print(f"both (the lower of the two standardised scores): test AUC {roc_auc_score(t[test], combined[test]):.3f} | "
          f"seen {seen:.2f}: caught {rate(int(np.sum(combined[test & t] > seen)), int(np.sum(test & t)))}, "
          f"false alarms {rate(int(np.sum(combined[test & ~t] > seen)), int(np.sum(test & ~t)))}")


if __name__ == "__main__":
    main()
