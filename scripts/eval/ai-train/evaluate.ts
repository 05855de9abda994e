/**
 * The grid-spectrum detector (./grid-spectrum.ts, the model train.py wrote) on the TEST split, which
 * training never reads: detection per generator family and generator, false alarms on real
 * photographs per source and per hard case, and both under what a photo's life does to it (JPEG
 * re-encoding, resizing, a camera's EXIF). Every rate carries a 95 % Wilson interval.
 *
 *   npx tsx scripts/eval/ai-train/evaluate.ts [--features .cache/ai-train/features.jsonl] [--write]
 *
 * `--write` replaces the block between `<!-- ai-eval:start -->` and `<!-- ai-eval:end -->` in
 * docs/signals.md. The vectors are extract.ts's, computed with the service's own decoders.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pixelScore, type LinearModel } from "./linear-model";
import { rate } from "../stats";
import type { FeatureRow } from "./extract";

const ROOT = resolve(import.meta.dirname, "../../..");
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const FEATURES = resolve(ROOT, arg("--features", ".cache/ai-train/grid.jsonl"));
const DOC = resolve(ROOT, "docs/signals.md");
const model = JSON.parse(readFileSync(resolve(ROOT, ".cache/ai-train/grid-model.json"), "utf8")) as LinearModel;

const lines = readFileSync(FEATURES, "utf8").split("\n").filter(Boolean);
const header = JSON.parse(lines[0]!) as { features: string[] };
if (header.features.join() !== model.features.join()) throw new Error("the vectors and the model name different features: re-run extract.ts and train.py");
const rows = lines.slice(1).map((l) => JSON.parse(l) as FeatureRow);
const trainedSources = new Set([...(model.trained_on?.train_sources ?? []), ...(model.trained_on?.val_sources ?? [])]);
const test = rows.filter((r) => r.split === "test");
const leaked = [...new Set(test.map((r) => r.source))].filter((s) => trainedSources.has(s));
if (leaked.length > 0) throw new Error(`test sources the model was trained on: ${leaked.join(", ")}`);

const flagged = (r: FeatureRow) => pixelScore(r.features, model) >= model.threshold;
/** The variant's kind: original, jpeg, resize, resize+jpeg. */
const kind = (variant: string) => variant.replace(/\d+/g, "");

function table(title: string, header: string[], body: string[][]): string {
  return [`**${title}**`, "", `| ${header.join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`, ...body.map((r) => `| ${r.join(" | ")} |`), ""].join("\n");
}

function group<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) out.set(key(x), [...(out.get(key(x)) ?? []), x]);
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

const count = (xs: FeatureRow[]) => {
  const k = xs.filter(flagged).length;
  return [String(xs.length), String(k), rate(k, xs.length)];
};

const generated = test.filter((r) => r.class === "generated");
const real = test.filter((r) => r.class === "real");
const originals = (xs: FeatureRow[]) => xs.filter((r) => r.variant === "original");
const variants = ["original", "jpeg", "resize", "resize+jpeg"];

const out: string[] = [];
out.push(
  `Run of ${new Date().toISOString().slice(0, 10)} (scripts/eval/ai-train/evaluate.ts). Test split: ${originals(generated).length} generated images from ${new Set(generated.map((r) => r.source)).size} sources, ${originals(real).length} real photographs from ${new Set(real.map((r) => r.source)).size} sources; none of these sources is in the model's training or validation data (checked). Threshold ${model.threshold} (log-odds).`,
  "",
);
out.push(
  table(
    "Detection and false alarms as a photo's life changes it (each image once per row)",
    ["variant", "generated: n", "detected", "detection (95 % CI)", "real: n", "flagged", "false alarms (95 % CI)"],
    variants.map((v) => [v, ...count(generated.filter((r) => kind(r.variant) === v)), ...count(real.filter((r) => kind(r.variant) === v))]),
  ),
);
out.push(
  table(
    "Detection per generator family (original files)",
    ["family", "n", "detected", "rate (95 % CI)"],
    [...group(originals(generated), (r) => r.family)].map(([family, xs]) => [family, ...count(xs)]),
  ),
);
out.push(
  table(
    "Detection per generator (original files)",
    ["generator", "n", "detected", "rate (95 % CI)"],
    [...group(originals(generated), (r) => r.generator)].map(([g, xs]) => [g, ...count(xs)]),
  ),
);
out.push(
  table(
    "False alarms per real source (every variant)",
    ["source", "n", "flagged", "rate (95 % CI)"],
    [...group(real, (r) => r.source)].map(([s, xs]) => [s, ...count(xs)]),
  ),
);
const tags = new Map<string, FeatureRow[]>();
for (const r of real) for (const t of r.tags.split(/[,;\s]+/).filter(Boolean)) tags.set(t, [...(tags.get(t) ?? []), r]);
out.push(
  table(
    "False alarms on the hard cases (every variant)",
    ["hard case", "n", "flagged", "rate (95 % CI)"],
    [...tags].sort(([a], [b]) => a.localeCompare(b)).map(([t, xs]) => [t, ...count(xs)]),
  ),
);

const text = out.join("\n");
console.log(text);
if (process.argv.includes("--write")) {
  const doc = readFileSync(DOC, "utf8");
  const start = "<!-- ai-eval:start -->";
  const end = "<!-- ai-eval:end -->";
  if (!doc.includes(start)) throw new Error(`docs/signals.md has no ${start} block`);
  writeFileSync(DOC, `${doc.slice(0, doc.indexOf(start) + start.length)}\n${text}\n${doc.slice(doc.indexOf(end))}`);
  console.error("docs/signals.md updated");
}
