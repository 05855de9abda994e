/**
 * The capture-burst rules on footage nobody here filmed (manifest.tsv; `npx tsx
 * scripts/eval/capture-footage/build.ts` fills the cache first): each clip read as the capture page
 * reads a camera (its frames reduced to 160 px on the longest side, the 64 px centre at the clip's
 * own resolution, capped at 960 px), a shutter pressed every 500 ms from 1 s on, and each press
 * decided as the service decides it (scripts/eval/burst-press.ts). Figures by category and split
 * (split by source: thresholds are chosen on `train`, `test` is held out).
 *
 *   npx tsx scripts/eval/capture-footage/evaluate.ts [--write] [--split train|test] [--measures FILE] [--every N]
 *
 * `--every N` keeps every Nth frame of each clip at its own time: a camera giving a third of the
 * frames (`--every 3`: 10 fps from 30, as phones do in low light) over the same hand and scene. Its
 * figures are printed, never written into the docs' table (which is the footage as filmed).
 * `--measures FILE` writes every press's measures (one JSON line each, with its clip) for choosing thresholds.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { burstAround, fingerprint, FLAT_FRAME_STD, frameStd, NOISE_PATCHES, RepeatWatch } from "../../../client/capture-page/integrity/frames";
import { CAPTURE_BURST_VERSION } from "../../../src/analysis/signals/capture-burst";
import { GRID_RATIO_THRESHOLD, WEAK_GRID_WITH_FLAT_DEPTH } from "../../../src/analysis/signals/screen-moire";
import { PHONE_CAMERA, type PageFrame, type Press } from "../../capture-fixtures/page-frames";
import { codesOf, decidePress, isAnomaly, isUnassessed } from "../burst-press";
import { sweepLines, type Spread } from "../noise-rules";
import { rate } from "../stats";
import { pageFramesOf, readClip } from "./frames";
import { cachePath, readManifest, ROOT, sequence, type Clip } from "./sources";

const { values: args } = parseArgs({ options: { write: { type: "boolean", default: false }, split: { type: "string" }, seconds: { type: "string", default: "8" }, measures: { type: "string" }, every: { type: "string", default: "1" } } });
const SECONDS = Number(args.seconds);
const EVERY = Number(args.every);
if (!(Number.isInteger(EVERY) && EVERY >= 1) || (EVERY > 1 && args.write)) throw new Error("--every takes a whole number of 1 or more, and is not written into the docs");

function pressAt(frames: PageFrame[], shutterAt: number, native: { width: number; height: number }): Press | null {
  const watch = new RepeatWatch();
  const seen = frames.filter((f) => f.t <= shutterAt);
  const onScreen = seen.at(-1);
  if (!onScreen) return null;
  for (const f of seen) watch.add(fingerprint(f), frameStd(f.luma) < FLAT_FRAME_STD);
  const burst = burstAround(frames, shutterAt);
  if (!burst) return null;
  const after = frames.filter((f) => f.t > shutterAt).slice(0, NOISE_PATCHES - 1);
  return {
    device: PHONE_CAMERA,
    preview: { frames: watch.frames, duration_ms: Math.round(onScreen.t), repeated_frames: watch.repeated },
    frames: burst.map((f) => ({ t: Math.round((f.t - shutterAt) * 10) / 10, width: f.width, height: f.height, luma: f.luma })),
    patches: [onScreen, ...after].map((f) => f.patch),
    photo: { ...native, data: onScreen.native },
  };
}

interface Result {
  clip: Clip;
  n: number;
  anomaly: number;
  unassessed: number;
  flat: number;
  /** Presses whose photo the `screen` signal reads as a screen (its moiré), whatever `depth` decided. */
  screen: number;
  /** Per press: the photo's lattice strength (grid ratio) and whether `depth` read one moving plane. */
  lattice: Array<{ strength: number; flat: boolean }>;
  /** Presses the verdict does not read `verified`: `depth` flagged or not assessed, or the photo read as a screen. */
  verdict: number;
  codes: Map<string, number>;
  spread: Spread[];
  /** The first native patch against the photo's centre, where compared (capture-burst/8). */
  patchScores: number[];
}

const started = Date.now();
const clips = readManifest().filter((c) => !args.split || c.split === args.split);
const results: Result[] = [];
const measured: string[] = [];
for (const clip of clips) {
  const file = cachePath(clip);
  if (!existsSync(file) || (sequence(clip) && readdirSync(file).length === 0)) {
    console.error(`missing ${clip.name}: run scripts/eval/capture-footage/build.ts`);
    continue;
  }
  const video = readClip(clip, SECONDS);
  const frames = pageFramesOf(video).filter((_, i) => i % EVERY === 0);
  const r: Result = { clip, n: 0, anomaly: 0, unassessed: 0, flat: 0, screen: 0, verdict: 0, lattice: [], codes: new Map(), spread: [], patchScores: [] };
  for (let t = 1000; t <= frames.at(-1)!.t - 150; t += 500) {
    const press = pressAt(frames, t, video);
    if (!press) continue;
    const { decision, measures, patches, chain, screenDetected, screenStrength } = await decidePress(press);
    r.n += 1;
    if (screenDetected) r.screen += 1;
    if (screenDetected || isAnomaly(decision) || isUnassessed(decision)) r.verdict += 1;
    if (patches.measured) r.patchScores.push(patches.score);
    measured.push(JSON.stringify({ clip: clip.name, split: clip.split, category: clip.category, camera: clip.camera, ...measures, frame_chain: chain, patch_agreement: patches }));
    if (isAnomaly(decision)) r.anomaly += 1;
    if (isUnassessed(decision)) r.unassessed += 1;
    const codes = codesOf(decision);
    if (codes.includes("planar_motion")) r.flat += 1;
    r.lattice.push({ strength: screenStrength, flat: codes.includes("planar_motion") });
    for (const c of codes) r.codes.set(c, (r.codes.get(c) ?? 0) + 1);
    if (measures.noise_correlation !== null && measures.noise_correlation_far !== null) r.spread.push({ near: measures.noise_correlation, far: measures.noise_correlation_far });
  }
  results.push(r);
  const top = [...r.codes.entries()].filter(([c]) => !["sensor_noise", "camera_motion", "burst_photo_agreement", "noise_correlation", "patch_still_share", "frame_chain"].includes(c)).map(([c, n]) => `${c} ${n}`).join(", ");
  console.error(`${clip.split} ${clip.category} ${clip.camera} ${clip.name}: ${r.anomaly}+${r.unassessed} of ${r.n} not verified, flat ${r.flat}, photo read as a screen ${r.screen}; ${top}`);
}

const genuine = (c: Clip) => c.category !== "display" && c.camera !== "static";
const row = (label: string, rs: Result[], positive: boolean) => {
  const n = rs.reduce((a, r) => a + r.n, 0);
  const k = rs.reduce((a, r) => a + r.anomaly + r.unassessed, 0);
  const anomaly = rs.reduce((a, r) => a + r.anomaly, 0);
  const flat = rs.reduce((a, r) => a + r.flat, 0);
  const screen = rs.reduce((a, r) => a + r.screen, 0);
  const verdict = rs.reduce((a, r) => a + r.verdict, 0);
  const clipsFlagged = rs.filter((r) => r.anomaly + r.unassessed > r.n / 2).length;
  return `| ${label} | ${positive ? "yes" : "no"} | ${rs.length} | ${n} | ${anomaly} | ${rate(k, n)} | ${rate(clipsFlagged, rs.length)} | ${flat} | ${screen} | ${rate(verdict, n)} |`;
};
const lines = [
  "| footage | should be flagged | clips | presses | `depth_anomaly` | `depth` not verified, by press (95% CI) | clips mostly not verified (95% CI) | read one moving plane | photo read as a screen (`screen_detected`) | verdict not `verified` (`depth` or `screen`), by press (95% CI) |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
];
for (const split of ["train", "test"] as const) {
  const of = (f: (c: Clip) => boolean) => results.filter((r) => r.clip.split === split && f(r.clip));
  lines.push(
    row(`${split}: genuine flat subjects, hand-held`, of((c) => c.category === "flat" && genuine(c)), false),
    row(`${split}: genuine near 3-D scenes, hand-held or mounted`, of((c) => c.category === "scene3d" && genuine(c)), false),
    row(`${split}: genuine distant scenes, hand-held or mounted`, of((c) => c.category === "distant" && genuine(c)), false),
    row(`${split}: a display filmed by a moving camera`, of((c) => c.category === "display" && c.camera !== "static"), true),
    row(`${split}: a display moved in front of a fixed camera`, of((c) => c.category === "display" && c.camera === "static"), true),
    row(`${split}: fixed cameras (no motion to judge depth by)`, of((c) => c.category === "static"), false),
  );
}
const heldOut = results.filter((r) => r.clip.split === "test" && genuine(r.clip));
const fa = heldOut.reduce((a, r) => a + r.anomaly + r.unassessed, 0);
const faN = heldOut.reduce((a, r) => a + r.n, 0);
const faVerdict = heldOut.reduce((a, r) => a + r.verdict, 0);
lines.push(
  "",
  `Held out (test split, by source): genuine hand-held or mounted footage not verified in ${rate(fa, faN)} of ${faN} presses, ${heldOut.filter((r) => r.anomaly + r.unassessed > 0).length} of ${heldOut.length} clips with any. With the photo's own \`screen\` signal beside \`depth\` (the verdict): not verified in ${rate(faVerdict, faN)}. Presses of one clip are not independent: the per-clip rate is the one to read.`,
  "",
  ...(["train", "test"] as const).map((split) => {
    const scores = results.filter((r) => r.clip.split === split).flatMap((r) => r.patchScores);
    const presses = results.filter((r) => r.clip.split === split).reduce((a, r) => a + r.n, 0);
    return `First native patch against the photo's centre (every clip, ${split}; a mismatch below 0.9 is \`burst_patch_mismatch\`): min ${scores.length > 0 ? Math.min(...scores).toFixed(3) : "-"} over ${scores.length} presses compared, ${presses - scores.length} with a centre too plain to compare.`;
  }),
  "",
  `_Generated by \`npx tsx scripts/eval/capture-footage/evaluate.ts --write\`, run of ${new Date().toISOString().slice(0, 10)}, in ${Math.round((Date.now() - started) / 1000)} s, rules of ${CAPTURE_BURST_VERSION}; clips from scripts/eval/capture-footage/manifest.tsv._`,
);
console.log(lines.join("\n"));
for (const split of ["train", "test"]) {
  const of = (f: (c: Clip) => boolean) => results.filter((r) => r.clip.split === split && f(r.clip)).flatMap((r) => r.spread);
  console.log(`${split}:\n${sweepLines([{ name: "genuine", spreads: of(genuine) }, { name: "display", spreads: of((c) => c.category === "display") }, { name: "fixed", spreads: of((c) => c.category === "static") }]).join("\n")}`);
}

// The photo's moiré as a display cue (printed, not written into the docs' table): its lattice strength
// by group, and what a weak lattice beside one moving plane would flag, the fusion the screen signal
// makes with a flat depth map (WEAK_GRID_WITH_FLAT_DEPTH × GRID_RATIO_THRESHOLD).
{
  const groups: Array<[string, (c: Clip) => boolean]> = [
    ["genuine hand-held or mounted", genuine],
    ["fixed cameras", (c) => c.category === "static"],
    ["displays, moving camera", (c) => c.category === "display" && c.camera !== "static"],
    ["displays, fixed camera", (c) => c.category === "display" && c.camera === "static"],
  ];
  const weak = WEAK_GRID_WITH_FLAT_DEPTH * GRID_RATIO_THRESHOLD;
  console.log(`\nThe photo's lattice strength (grid ratio; detected at ${GRID_RATIO_THRESHOLD}), both splits, and presses with one moving plane and a lattice of at least ${weak.toFixed(1)} (square symmetry not checked):`);
  for (const [name, f] of groups) {
    const presses = results.filter((r) => f(r.clip)).flatMap((r) => r.lattice);
    const s = presses.map((p) => p.strength).sort((a, b) => a - b);
    const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(1) : "-");
    console.log(`- ${name}: ${presses.length} presses, median ${at(0.5)}, 90th percentile ${at(0.9)}, max ${at(1)}; one moving plane ${presses.filter((p) => p.flat).length}, of them with a weak lattice ${presses.filter((p) => p.flat && p.strength >= weak).length}`);
  }
}

if (args.measures) writeFileSync(args.measures, `${measured.join("\n")}\n`);

if (args.write) {
  const file = path.join(ROOT, "docs", "signals.md");
  const text = readFileSync(file, "utf8");
  const start = "<!-- capture-footage:start -->";
  const end = "<!-- capture-footage:end -->";
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) throw new Error("docs/signals.md has no capture-footage markers");
  writeFileSync(file, `${text.slice(0, from + start.length)}\n${lines.join("\n")}\n${text.slice(to)}`);
}
