/**
 * Reads back what collect.ts wrote (one JSON line per press) and asks, for each
 * variant of the measure and each statistic of it: is there a threshold, chosen on the footage's
 * training split alone (every press there a genuine camera: hand-held, mounted, fixed, and displays
 * filmed by one), that flags none of those presses and catches the simulated rung-3 warps? The
 * threshold is the one just beyond every genuine training press, on each side the idea allows; the
 * held-out test split and Debian's genuine videos are then counted against it.
 *
 *   npx tsx scripts/eval/level-noise/report.ts FOOTAGE.jsonl DEBIAN.jsonl [--min-spread 40] [--min-pixels 500] [--markdown]
 *
 * `--markdown` prints the table docs/signals.md ("Signal-dependent noise tried") quotes.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { rate } from "../stats";

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { "min-spread": { type: "string", default: "40" }, "min-pixels": { type: "string", default: "500" }, markdown: { type: "boolean", default: false } } });
const MIN_SPREAD = Number(args["min-spread"]);
const MIN_PIXELS = Number(args["min-pixels"]);
/** Bins with fewer pixels than this say too little about their σ. */
const MIN_BIN = 30;

interface Bin {
  level: number;
  n: number;
  sigma: number;
}
type Row = Record<string, unknown> & { part: string; split?: string; group?: string; anomaly: boolean; unassessed: boolean };

const rows: Row[] = positionals.flatMap((file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row),
);

/**
 * The statistics of one press's bins: the pixels split at their median level into a dark and a
 * bright half, each half's pooled σ; `ratio` bright over dark, `slope` of log σ per 100 levels over
 * the bins, `spread` the halves' mean levels apart. Null when fewer than MIN_PIXELS or two bins.
 */
function statistics(bins: Bin[]): { ratio: number; slope: number; spread: number; pixels: number } | null {
  const used = bins.filter((b) => b.n >= MIN_BIN && b.sigma > 0).sort((a, b) => a.level - b.level);
  const pixels = used.reduce((s, b) => s + b.n, 0);
  if (used.length < 2 || pixels < MIN_PIXELS) return null;
  const dark: Bin[] = [];
  const bright: Bin[] = [];
  let seen = 0;
  for (const b of used) {
    (seen < pixels / 2 ? dark : bright).push(b);
    seen += b.n;
  }
  if (dark.length === 0 || bright.length === 0) return null;
  const pool = (bs: Bin[]) => {
    const n = bs.reduce((s, b) => s + b.n, 0);
    return { level: bs.reduce((s, b) => s + b.n * b.level, 0) / n, sigma: Math.sqrt(bs.reduce((s, b) => s + b.n * b.sigma ** 2, 0) / n) };
  };
  const [d, b] = [pool(dark), pool(bright)];
  const mean = used.reduce((s, x) => s + x.n * x.level, 0) / pixels;
  const logMean = used.reduce((s, x) => s + x.n * Math.log(x.sigma), 0) / pixels;
  const sxx = used.reduce((s, x) => s + x.n * (x.level - mean) ** 2, 0);
  const sxy = used.reduce((s, x) => s + x.n * (x.level - mean) * (Math.log(x.sigma) - logMean), 0);
  return { ratio: b.sigma / d.sigma, slope: sxx > 0 ? (100 * sxy) / sxx : 0, spread: b.level - d.level, pixels };
}

/** What a rule reads of a press: the statistic where measured (level spread ≥ MIN_SPREAD), else null. */
type Reading = (bins: Bin[]) => number | null;
const RULES: Array<{ name: string; read: Reading; flags: "below" }> = [
  // Added noise is as strong at every level: |log ratio| near 0. A sensor's grows (or its tone curve bends it).
  { name: "abs(log(bright σ / dark σ)) too small (noise the same at every level)", read: (b) => at(b, (s) => Math.abs(Math.log(s.ratio))), flags: "below" },
  { name: "bright σ / dark σ too small (noise not growing with the light)", read: (b) => at(b, (s) => s.ratio), flags: "below" },
  { name: "abs(slope of log σ per 100 levels) too small", read: (b) => at(b, (s) => Math.abs(s.slope)), flags: "below" },
];
function at(bins: Bin[], f: (s: NonNullable<ReturnType<typeof statistics>>) => number): number | null {
  const s = statistics(bins);
  return s && s.spread >= MIN_SPREAD ? f(s) : null;
}

const variants = Object.keys(rows[0] ?? {}).filter((k) => k.startsWith("bins"));
const train = rows.filter((r) => r.part === "footage" && r.split === "train");
const test = rows.filter((r) => r.part === "footage" && r.split === "test");
const testMoving = test.filter((r) => r.category !== "display" && r.camera !== "static");
const debianGenuine = rows.filter((r) => r.part === "debian" && r.group !== "genuine tree");
const attackGroups = [...new Set(rows.filter((r) => r.part === "attack").map((r) => r.group!))];
const caughtNow = (r: Row) => r.anomaly || r.unassessed;

/** collect.ts's variants, in words. */
const VARIANT_WORDS: Record<string, string> = {
  bins: "exposure taken out",
  bins_subpixel: "exposure and sub-pixel motion taken out",
  bins_subpixel_smooth: "the same, flat pixels chosen on 3 × 3 means",
};
const table = [
  "| variant | statistic flagged when below the threshold | training presses measured (of " + train.length + ") | AUC, camera-shaped warps below training presses | camera-shaped warps (σ 1.5) caught by it alone | caught with today's rules | held out: genuine hand-held or mounted presses flagged | Debian genuine presses flagged |",
  "|---|---|---:|---:|---:|---:|---:|---:|",
];
console.log(`Level spread ≥ ${MIN_SPREAD}, ≥ ${MIN_PIXELS} flat unclipped pixels in bins of ≥ ${MIN_BIN}; threshold just beyond every genuine press of the training split (${train.length} presses).`);
for (const variant of variants) {
  for (const rule of RULES) {
    const read = (r: Row) => rule.read(r[variant] as Bin[]);
    const trainValues = train.map(read).filter((v): v is number => v !== null);
    if (trainValues.length === 0) continue;
    const threshold = Math.min(...trainValues);
    const flagged = (r: Row) => {
      const v = read(r);
      return v !== null && v < threshold;
    };
    const shaped = rows.filter((r) => r.part === "attack" && r.group === attackGroups[0]).map(read).filter((v): v is number => v !== null);
    console.log(`\n${variant}: ${rule.name}: training presses measured ${trainValues.length} of ${train.length}, threshold < ${threshold.toFixed(4)}; ${attackGroups[0]} below a training press (AUC): ${auc(shaped, trainValues).toFixed(2)}; medians ${median(trainValues).toFixed(3)} (training) and ${median(shaped).toFixed(3)} (${attackGroups[0]})`);
    const count = (rs: Row[], f: (r: Row) => boolean) => `${rate(rs.filter(f).length, rs.length)} (${rs.filter(f).length} of ${rs.length})`;
    console.log(`  test, genuine hand-held or mounted, flagged: ${count(testMoving, flagged)}; every test press: ${count(test, flagged)}; measured ${test.filter((r) => read(r) !== null).length}`);
    console.log(`  Debian genuine videos but tree, flagged: ${count(debianGenuine, flagged)}`);
    const shapedAll = rows.filter((r) => r.part === "attack" && r.group === attackGroups[0]);
    const k = (rs: Row[], f: (r: Row) => boolean) => `${rs.filter(f).length} of ${rs.length}: ${rate(rs.filter(f).length, rs.length)}`;
    table.push(`| ${VARIANT_WORDS[variant] ?? variant} | ${rule.name} | ${trainValues.length} | ${auc(shaped, trainValues).toFixed(2)} | ${k(shapedAll, flagged)} | ${k(shapedAll, (r) => caughtNow(r) || flagged(r))} | ${k(testMoving, flagged)} | ${k(debianGenuine, flagged)} |`);
    for (const group of attackGroups) {
      const attacks = rows.filter((r) => r.part === "attack" && r.group === group);
      console.log(`  rung 3 ${group}: measured ${attacks.filter((r) => read(r) !== null).length} of ${attacks.length}; caught by this alone ${count(attacks, flagged)}; by today's rules ${count(attacks, caughtNow)}; by either ${count(attacks, (r) => caughtNow(r) || flagged(r))}`);
    }
  }
}

if (args.markdown) console.log(`\n${table.join("\n")}`);

/** The chance that a value of `low` lies below one of `high` (ties half): 0.5 is no separation. */
function auc(low: number[], high: number[]): number {
  if (low.length === 0 || high.length === 0) return Number.NaN;
  let wins = 0;
  for (const a of low) for (const b of high) wins += a < b ? 1 : a === b ? 0.5 : 0;
  return wins / (low.length * high.length);
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[s.length >> 1]!;
}
