/**
 * The live capture measured both ways (`npm run eval:capture -- [--write]`): genuine camera videos
 * must not read as injected; each rung of the attack ladder (docs/signals.md, "Threat model") is
 * counted. Each video is read as the capture page reads its camera (scripts/capture-fixtures/
 * page-frames.ts: the page's own frame code), a shutter pressed every 250 ms from 1 s on, and each
 * press decided as the service decides it (scripts/eval/burst-press.ts: the service's measures,
 * agreement and decision). `--write` replaces the block between the capture-eval markers in
 * docs/signals.md; `--sweep` prints the photo-agreement and flatness distributions; `--measures FILE`
 * writes every press's measures (one JSON line each, with its case) for choosing thresholds.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { assessCaptureBurst, CAPTURE_BURST_THRESHOLDS, CAPTURE_BURST_VERSION } from "../../src/analysis/signals/capture-burst";
import { PATCH_SIDE, type BurstMeasures } from "../../src/analysis/burst/measures";
import type { CaptureDevice } from "../../src/schemas/capture-integrity";
import { blinkingCorner, brightnessRamp, gainRamp, looping, movingScreen, noisyStill, shiftedStill, sparseNoise, still, type NoiseShape } from "../capture-fixtures/attacks";
import { halved, pageFrames, PHONE_CAMERA, pressAt, type Press } from "../capture-fixtures/page-frames";
import { GENUINE, SCREEN_PHOTOS, type VideoSource } from "../capture-fixtures/sources";
import { debianFile, HEIGHT, readGrey, readPhotoGrey, ROOT, WIDTH, type GreyVideo } from "../capture-fixtures/video";
import { codesOf, decidePress, isAnomaly, isUnassessed, type Decision } from "./burst-press";
import { sweepLines, type Spread } from "./noise-rules";
import { rate } from "./stats";

const { values: args } = parseArgs({ options: { write: { type: "boolean", default: false }, sweep: { type: "boolean", default: false }, measures: { type: "string" } } });

interface Case {
  group: string;
  /** The rung of the ladder (docs/signals.md), or "genuine". */
  rung: string;
  positive: boolean;
  decisions: Decision[];
  /** The noise's spatial correlations of each press, where measured. */
  spread?: Spread[];
  /** What the service measured of each press. */
  measures?: BurstMeasures[];
  /** Whether the `screen` signal read each press's photo as a screen (its moiré), beside `depth`. */
  screens?: boolean[];
}

const OWN_NAME: CaptureDevice = { label: "OBS Virtual Camera", kind: "videoinput", settings: { width: 1920, height: 1080, frame_rate: 30 }, controls: [] };
const NATIVE = { width: WIDTH, height: HEIGHT };

/** `count` native patches of `photo`, the first its centre as the page cuts it, each next one `step` px further right. */
function movedCentres(photo: Press["photo"], count: number, step: number): Uint8Array[] {
  const { width: w, height: h, data } = photo;
  const [x0, y0] = [(w - PATCH_SIDE) >> 1, (h - PATCH_SIDE) >> 1];
  return Array.from({ length: count }, (_, i) => {
    const out = new Uint8Array(PATCH_SIDE * PATCH_SIDE);
    const x = Math.min(w - PATCH_SIDE, x0 + step * i);
    for (let y = 0; y < PATCH_SIDE; y += 1) out.set(data.subarray((y0 + y) * w + x, (y0 + y) * w + x + PATCH_SIDE), y * PATCH_SIDE);
    return out;
  });
}

function presses(video: GreyVideo, device: CaptureDevice, fromMs = 1000, stepMs = 250): Press[] {
  const frames = pageFrames(video);
  const out: Press[] = [];
  for (let t = fromMs; t <= frames.at(-1)!.t - 150; t += stepMs) {
    const p = pressAt(frames, t, device, NATIVE);
    if (p) out.push(p);
  }
  return out;
}

async function decideAll(ps: Press[]): Promise<Pick<Case, "decisions" | "spread" | "measures" | "screens">> {
  const out = await Promise.all(ps.map((p) => decidePress(p)));
  return { decisions: out.map((o) => o.decision), measures: out.map((o) => o.measures), screens: out.map((o) => o.screenDetected), spread: out.flatMap(({ measures: m }) => (m.noise_correlation !== null && m.noise_correlation_far !== null ? [{ near: m.noise_correlation, far: m.noise_correlation_far }] : [])) };
}

const started = Date.now();
const cases: Case[] = [];
const videos: Array<{ source: VideoSource; video: GreyVideo }> = GENUINE.map((source) => ({ source, video: readGrey(debianFile(source.source), 20) }));
const group = (s: VideoSource) => (s.name === "tree" ? "static camera, a compressed file whose frames repeat (duplicated at encoding)" : s.camera === "hand-held" ? "hand-held phone" : "static camera, things moving in view");
const genuinePresses = new Map<string, Press[]>();
for (const { source, video } of videos) {
  const ps = presses(video, PHONE_CAMERA);
  genuinePresses.set(source.name, ps);
  cases.push({ group: `genuine: ${group(source)}: ${source.name}`, rung: "genuine", positive: false, ...(await decideAll(ps)) });
}

// Rung 1: a record typed by a script, no frames (the issue's: 12 frames, noise 1.4, parallax 0.9 px over 3 px).
const typed = assessCaptureBurst({
  record: {
    schema_version: 1,
    device: PHONE_CAMERA,
    burst: { frames: 12, duration_ms: 400, width: 160, height: 120, identical_pairs: 0, repeated_frames: 0, temporal_noise: 1.4, changed_fraction: 0.5, motion_px: 1, parallax: { blocks: 40, baseline_px: 3, residual_px: 0.9 } },
    preview: { frames: 90, duration_ms: 3000, repeated_frames: 0 },
  },
  burst: null,
  measures: null,
  agreement: null,
  patches: null,
  screenCue: null,
});
cases.push({ group: "1. a made-up record, no frames (by construction: a version 1 record is a claim)", rung: "1", positive: true, decisions: [typed] });

const photos = SCREEN_PHOTOS.map((p) => readPhotoGrey(debianFile(p), 640, 480));
const photo320 = SCREEN_PHOTOS.map((p) => readPhotoGrey(debianFile(p), 320, 240));
const loopable = videos.filter(({ source }) => source.name !== "tree");
for (const [label, device] of [["its own name (OBS Virtual Camera)", OWN_NAME], ['renamed "Back Camera"', PHONE_CAMERA]] as const) {
  const stills = [...photo320.map((p) => still(p, 30, 3)), ...videos.map(({ video }) => still(video.frames[Math.floor(video.frames.length / 2)]!, 30, 3))];
  cases.push({ group: `2. an injected still photo, ${label}`, rung: "2", positive: true, ...(await decideAll(stills.flatMap((v) => presses(v, device, 1000, 1000)))) });
  const noisy = photo320.map((p, i) => noisyStill(p, 30, 3, 900 + i));
  cases.push({ group: `2. the photo repeated with fresh noise (σ 1.5) on every frame, no motion, ${label}`, rung: "2", positive: true, ...(await decideAll(noisy.flatMap((v) => presses(v, device, 1000, 500)))) });
  // Faint white noise (σ 0.4): what the probe of 2026-12-04 fed the unmodified page as a camera file.
  const faint = photo320.map((p, i) => noisyStill(p, 30, 3, 950 + i, 0.4));
  cases.push({ group: `2. the photo repeated with faint fresh noise (σ 0.4) on every frame, no motion, ${label}`, rung: "2", positive: true, ...(await decideAll(faint.flatMap((v) => presses(v, device, 1000, 500)))) });
  const screens = photos.flatMap((p, i) => [1, 2, 3].map((seed) => movingScreen(p, 640, 480, 30, 5, 100 * i + seed)));
  cases.push({ group: `3. frames made by 2-D warps of the photo (a plane under hand shake) with fresh noise, ${label}`, rung: "3", positive: true, ...(await decideAll(screens.flatMap((v) => presses(v, device, 1000, 500)))) });
  const faintScreens = photos.flatMap((p, i) => [1, 2, 3].map((seed) => movingScreen(p, 640, 480, 30, 5, 100 * i + seed, 0.4)));
  cases.push({ group: `3. the same warps with faint fresh noise (σ 0.4), ${label}`, rung: "3", positive: true, ...(await decideAll(faintScreens.flatMap((v) => presses(v, device, 1000, 500)))) });
  // Noise shaped like a camera's (white noise box-blurred twice): what passed the forge probe of 2026-12-04.
  const shapedScreens = photos.flatMap((p, i) => [1, 2, 3].map((seed) => movingScreen(p, 640, 480, 30, 5, 100 * i + seed, 1.5, "camera-shaped")));
  cases.push({ group: `3. the same warps with camera-shaped noise (σ 1.5, white noise box-blurred twice), ${label}`, rung: "3", positive: true, ...(await decideAll(shapedScreens.flatMap((v) => presses(v, device, 1000, 500)))) });
  // The warps shake about three times faster than the footage's hands (scripts/eval/capture-footage/
  // rs-skew.ts: 1.77 px a frame at 160 px against 0.25-0.52): the same paths rendered 1/90 s apart and
  // played at 30 fps, a gentler hand, so that the figure does not rest on the simulated hand's speed.
  const gentle = (sigma: number, shape: NoiseShape) => photos.flatMap((p, i) => [1, 2, 3].map((seed) => ({ ...movingScreen(p, 640, 480, 90, 5 / 3, 100 * i + seed, sigma, shape), fps: 30 })));
  for (const [what, sigma, shape] of [["camera-shaped noise", 1.5, "camera-shaped"], ["fresh noise (σ 1.5)", 1.5, "white"], ["no noise at all", 0, "white"]] as const) {
    cases.push({ group: `3. the same warps with ${what}, the hand three times gentler (the footage's speed), ${label}`, rung: "3", positive: true, ...(await decideAll(gentle(sigma, shape).flatMap((v) => presses(v, device, 1000, 500)))) });
  }
  // No noise at all (the outside probe of 2026-12-05 read each of these `verified` under capture-burst/5).
  const noiseless = photos.flatMap((p, i) => [1, 2, 3].map((seed) => movingScreen(p, 640, 480, 30, 5, 100 * i + seed, 0)));
  const noiselessPresses = noiseless.flatMap((v) => presses(v, device, 1000, 500));
  cases.push({ group: `3. the same warps with no noise at all, ${label}`, rung: "3", positive: true, ...(await decideAll(noiselessPresses)) });
  // A real camera's native patches (of another scene) beside the warps: the noise rules read the
  // patches, which until capture-burst/8 were tied to nothing.
  const recorded = [...genuinePresses.entries()].filter(([name]) => GENUINE.find((g) => g.name === name)?.camera === "hand-held").flatMap(([, ps]) => ps);
  const borrowed = (i: number) => recorded[(i * 5) % recorded.length]!.patches;
  cases.push({ group: `3. the same noiseless warps sent with a real camera's native patches of another scene, ${label}`, rung: "3", positive: true, ...(await decideAll(noiselessPresses.map((p, i) => ({ ...p, patches: borrowed(i) })))) });
  cases.push({ group: `3. the same, the photo's own centre as the first patch and a real camera's after it, ${label}`, rung: "3", positive: true, ...(await decideAll(noiselessPresses.map((p, i) => ({ ...p, patches: [p.patches[0]!, ...borrowed(i).slice(1)] })))) });
  // Native patches cut from the photo itself, moved by whole pixels further each frame than the
  // patch alignment used to search (±8 px): under capture-burst/7 every edge read as noise.
  for (const step of [12, 24]) {
    cases.push({ group: `2. the same warps, the native patches the photo's centre moved ${step} px a frame by whole pixels, no noise, ${label}`, rung: "2", positive: true, ...(await decideAll(noiselessPresses.map((p) => ({ ...p, patches: movedCentres(p.photo, p.patches.length, step) })))) });
  }
  const shifted = photos.flatMap((p, i) => [1, 2, 3].map((seed) => shiftedStill(p, 640, 480, 30, 5, 100 * i + seed)));
  cases.push({ group: `2. the photo moved by whole pixels, no noise, ${label}`, rung: "2", positive: true, ...(await decideAll(shifted.flatMap((v) => presses(v, device, 1000, 500)))) });
  for (const share of [0.08, 0.16]) {
    const sparse = shifted.map((v, i) => sparseNoise(v, share, 7000 + i));
    cases.push({ group: `2. the photo moved by whole pixels, ±1 on ${share * 100} % of the pixels of every frame (sparse noise), ${label}`, rung: "2", positive: true, ...(await decideAll(sparse.flatMap((v) => presses(v, device, 1000, 500)))) });
  }
  const ramps = photo320.map((p) => brightnessRamp(p, 30, 3));
  cases.push({ group: `2. the photo repeated with only its brightness ramped, no noise, ${label}`, rung: "2", positive: true, ...(await decideAll(ramps.flatMap((v) => presses(v, device, 1000, 500)))) });
  const gains = photo320.map((p) => gainRamp(still(p, 30, 3)));
  cases.push({ group: `2. the photo repeated with its gain ramped 1.5 % a frame (an exposure change), no noise, ${label}`, rung: "2", positive: true, ...(await decideAll(gains.flatMap((v) => presses(v, device, 1000, 500)))) });
  cases.push({ group: `2. the photo moved by whole pixels, its gain ramped 1.5 % a frame, no noise, ${label}`, rung: "2", positive: true, ...(await decideAll(shifted.map((v) => gainRamp(v)).flatMap((v) => presses(v, device, 1000, 500)))) });
  const blinking = photo320.map((p) => blinkingCorner(p, 30, 3));
  cases.push({ group: `2. the photo repeated with one corner blinking, no noise, ${label}`, rung: "2", positive: true, ...(await decideAll(blinking.flatMap((v) => presses(v, device, 1000, 500)))) });
  for (const loop of [0.5, 1, 2]) {
    const clips = loopable.filter(({ video }) => video.frames.length / video.fps >= loop + 1).map(({ video }) => looping(video, loop, 6, 0.5));
    cases.push({ group: `looping ${loop} s clip of a real video, shutter after ≥ 1 loop, ${label}`, rung: "loop", positive: true, ...(await decideAll(clips.flatMap((v) => presses(v, device, (loop + 0.2) * 1000, 500)))) });
  }
}

// Rung 4: real frames of another scene sent beside the photo: each genuine press with the photo of another video's press, and of its own video 2 s later.
const agreements = { genuine: [] as number[], mismatched: [] as number[] };
// The first native patch against the photo's centre: each genuine press's own, and another video's press's (capture-burst/8).
const patchScores = { genuine: [] as number[], plain: 0, borrowed: [] as number[] };
const mismatch: { other: Decision[]; later: Decision[]; spliced: Decision[]; blanked: Decision[]; faded: Decision[] } = { other: [], later: [], spliced: [], blanked: [], faded: [] };
// The weaker link beside the photo's frames (photoChain): each genuine press's own, and with another video's photo spliced in at the shutter.
const chains = { genuine: [] as number[], spliced: [] as number[] };

/**
 * `press` (a real recording) with `photo` spliced in as the frame at the shutter and its centre as
 * the first native patch, the recording's after it: what the photo agreement and the first patch
 * look at are the photo's, the rest is a real camera's.
 */
function splicedInto(press: Press, photo: Press["photo"], centre: Uint8Array): Press {
  const atShutter = press.frames.reduce((best, f, i) => (f.t <= 0 && f.t > press.frames[best]!.t ? i : best), 0);
  const frames = press.frames.map((f, i) => (i === atShutter ? { ...f, luma: halved(photo.data, photo.width, photo.height) } : f));
  return { ...press, frames, patches: [centre, ...press.patches.slice(1)], photo };
}
/**
 * `splicedInto` with the frames on either side of the photo's made blank (two greys: the same one
 * twice is a repeated frame), so that no link beside the photo can be measured (capture-burst/12).
 */
function blankedBeside(press: Press, photo: Press["photo"], centre: Uint8Array): Press {
  const spliced = splicedInto(press, photo, centre);
  const atShutter = press.frames.reduce((best, f, i) => (f.t <= 0 && f.t > press.frames[best]!.t ? i : best), 0);
  const frames = spliced.frames.map((f, i) => (Math.abs(i - atShutter) === 1 ? { ...f, luma: new Uint8Array(f.luma.length).fill(120 + i) } : f));
  return { ...spliced, frames };
}
/**
 * `splicedInto`, the photo blended in rather than cut in (rung 4‴): frame i of the recording is
 * mixed with the photo by a weight that grows by 1 / FADE_STEPS a frame to 1 at the shutter and falls
 * as fast after it, so consecutive frames differ by a small step only.
 */
const FADE_STEPS = 6;
function fadedInto(press: Press, photo: Press["photo"], centre: Uint8Array): Press {
  const atShutter = press.frames.reduce((best, f, i) => (f.t <= 0 && f.t > press.frames[best]!.t ? i : best), 0);
  const picture = halved(photo.data, photo.width, photo.height);
  const frames = press.frames.map((f, i) => {
    const weight = Math.max(0, 1 - Math.abs(i - atShutter) / FADE_STEPS);
    return weight === 0 ? f : { ...f, luma: Uint8Array.from(f.luma, (v, p) => Math.round(weight * picture[p]! + (1 - weight) * v)) };
  });
  return { ...press, frames, patches: [centre, ...press.patches.slice(1)], photo };
}
const hand = [...genuinePresses.entries()].filter(([name]) => name !== "tree");
for (const [name, ps] of hand) {
  const others = hand.filter(([n]) => n !== name).flatMap(([, q]) => q);
  for (let i = 0; i < ps.length; i += 1) {
    const own = await decidePress(ps[i]!);
    if (own.agreement !== null) agreements.genuine.push(own.agreement);
    if (own.chain !== null) chains.genuine.push(own.chain);
    if (own.patches.measured) patchScores.genuine.push(own.patches.score);
    else patchScores.plain += 1;
    const donor = others[(i * 7) % Math.max(1, others.length)];
    const lent = donor ? (await decidePress({ ...ps[i]!, patches: donor.patches })).patches : null;
    if (lent?.measured) patchScores.borrowed.push(lent.score);
    const other = donor?.photo;
    if (other) {
      const { decision, agreement } = await decidePress(ps[i]!, { photo: other });
      if (agreement !== null) agreements.mismatched.push(agreement);
      mismatch.other.push(decision);
    }
    if (donor) {
      const spliced = await decidePress(splicedInto(ps[i]!, donor.photo, donor.patches[0]!));
      mismatch.spliced.push(spliced.decision);
      mismatch.blanked.push((await decidePress(blankedBeside(ps[i]!, donor.photo, donor.patches[0]!))).decision);
      if (spliced.chain !== null) chains.spliced.push(spliced.chain);
      mismatch.faded.push((await decidePress(fadedInto(ps[i]!, donor.photo, donor.patches[0]!))).decision);
    }
    const later = ps[i + 8]?.photo;
    if (later) mismatch.later.push((await decidePress(ps[i]!, { photo: later })).decision);
  }
}
cases.push({ group: "4. real frames of another scene (another video) sent beside the photo", rung: "4", positive: true, decisions: mismatch.other });
cases.push({ group: "4'. frames of the same video 2 s earlier sent beside the photo (a static camera's scene barely changes: the same scene)", rung: "4", positive: true, decisions: mismatch.later });
cases.push({ group: "4''. real frames of another scene with the photo spliced in at the shutter, its centre the first native patch and the recording's after it", rung: "4", positive: true, decisions: mismatch.spliced });
cases.push({ group: "4''. the same with a blank frame on either side of the photo (no link beside it can be measured)", rung: "4", positive: true, decisions: mismatch.blanked });
cases.push({ group: `4'''. the same with the photo blended in over ${FADE_STEPS} frames either side of the shutter instead of cut in`, rung: "4", positive: true, decisions: mismatch.faded });

// Rung 5: a burst already received. Frame digests match exactly (by construction): one press sent twice.
const replayed = (await decidePress(hand[0]![1][0]!, { burst: { replayOf: ["cap_earlier"] } })).decision;
cases.push({ group: "5. a burst already received, sent again (by construction: exact frame digests)", rung: "5", positive: true, decisions: [replayed] });

const rows = cases.map((c) => ({ ...c, n: c.decisions.length, flagged: c.decisions.filter(isAnomaly).length, unassessed: c.decisions.filter(isUnassessed).length, flat: c.decisions.filter((d) => codesOf(d).includes("planar_motion")).length }));
const notVerified = (r: (typeof rows)[number]) => r.flagged + r.unassessed;
const genuineAll = rows.filter((r) => !r.positive && !r.group.includes("duplicated at encoding"));
const genuineHand = rows.filter((r) => r.group.startsWith("genuine: hand-held"));
const sum = (rs: typeof rows, k: "n" | "flagged" | "unassessed") => rs.reduce((a, r) => a + r[k], 0);
/** The photo's own `screen` signal beside `depth` (what the verdict reads), over the cases decided press by press. */
function screenLine(): string {
  const count = (rs: typeof rows) => {
    const screens = rs.flatMap((r) => r.screens ?? []);
    return { k: screens.filter(Boolean).length, n: screens.length };
  };
  const [hand, all, forged] = [count(genuineHand), count(genuineAll), count(rows.filter((r) => r.rung === "2" || r.rung === "3"))];
  return `The photo's own \`screen\` signal (its moiré) on the same presses, which the verdict reads beside \`depth\`: genuine hand-held presses read as a screen ${hand.k} of ${hand.n}, every genuine video but tree ${all.k} of ${all.n}; forged presses of rungs 2 and 3 ${forged.k} of ${forged.n}.`;
}
const lines = [
  "| case | should read injected | n (shutter presses) | `depth_anomaly` | not assessed | not verified: rate (95% CI) | read one moving plane |",
  "|---|---|---:|---:|---:|---:|---:|",
  ...rows.map((r) => `| ${r.group} | ${r.positive ? "yes" : "no"} | ${r.n} | ${r.flagged} | ${r.unassessed} | ${rate(notVerified(r), r.n)} | ${r.flat} |`),
  "",
  `False alarms (anomaly or not assessed) on genuine hand-held presses (${genuineHand.map((r) => r.group.split(": ").at(-1)).join(", ")}): ${rate(sum(genuineHand, "flagged") + sum(genuineHand, "unassessed"), sum(genuineHand, "n"))}, n=${sum(genuineHand, "n")}; every genuine video but tree: ${rate(sum(genuineAll, "flagged") + sum(genuineAll, "unassessed"), sum(genuineAll, "n"))}, n=${sum(genuineAll, "n")}. Presses of one video are not independent: the intervals are narrower than the videos' variety warrants.`,
  "",
  screenLine(),
  "",
  `Photo agreement (best correlation with a frame within 150 ms of the shutter; threshold ${CAPTURE_BURST_THRESHOLDS.minPhotoAgreement}): genuine presses min ${Math.min(...agreements.genuine).toFixed(3)} (n=${agreements.genuine.length}); mismatched pairs max ${Math.max(...agreements.mismatched).toFixed(3)} (n=${agreements.mismatched.length}).`,
  "",
  `Patch agreement (the first native patch against the photo's centre, 4 × 4 block texture; threshold ${CAPTURE_BURST_THRESHOLDS.minPatchAgreement}): genuine presses min ${Math.min(...patchScores.genuine).toFixed(3)} (n=${patchScores.genuine.length}; ${patchScores.plain} with a centre too plain to compare); another video's patches max ${Math.max(...patchScores.borrowed).toFixed(3)} (n=${patchScores.borrowed.length}).`,
  "",
  `Frame chain (the weaker of the photo's frame's links to the frames before and after it, once each pair's shift is taken out): genuine hand-held presses min ${Math.min(...chains.genuine).toFixed(3)} (n=${chains.genuine.length}); another video's photo spliced in at the shutter max ${Math.max(...chains.spliced).toFixed(3)} (n=${chains.spliced.length}).`,
  "",
  `_Generated by \`npm run eval:capture\` (scripts/eval/capture-burst.ts), run of ${new Date().toISOString().slice(0, 10)}, in ${Math.round((Date.now() - started) / 1000)} s, rules of ${CAPTURE_BURST_VERSION}._`,
];
console.log(lines.join("\n"));

if (args.sweep) {
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;
  console.log(`agreement, genuine: min ${Math.min(...agreements.genuine)}, p1 ${q(agreements.genuine, 0.01)}, p50 ${q(agreements.genuine, 0.5)}`);
  console.log(`agreement, mismatched: p50 ${q(agreements.mismatched, 0.5)}, p99 ${q(agreements.mismatched, 0.99)}, max ${Math.max(...agreements.mismatched)}`);
  const spreads = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).flatMap((r) => r.spread ?? []);
  console.log(
    sweepLines([
      { name: "genuine (not tree)", spreads: spreads((r) => !r.positive && !r.group.includes("duplicated at encoding")) },
      { name: "rung 2 noisy still", spreads: spreads((r) => r.group.startsWith("2. the photo repeated")) },
      { name: "rung 3 warps", spreads: spreads((r) => r.rung === "3") },
    ]).join("\n"),
  );
  for (const r of rows) {
    const why = new Map<string, number>();
    for (const d of r.decisions) for (const c of codesOf(d)) why.set(c, (why.get(c) ?? 0) + 1);
    console.log(`${r.group}: ${[...why.entries()].map(([c, n]) => `${c} ${n}`).join(", ")}`);
  }
}

if (args.measures) {
  writeFileSync(args.measures, cases.flatMap((c) => (c.measures ?? []).map((m) => JSON.stringify({ case: c.group, rung: c.rung, positive: c.positive, ...m }))).join("\n") + "\n");
}

if (args.write) {
  const file = path.join(ROOT, "docs", "signals.md");
  const text = readFileSync(file, "utf8");
  const start = "<!-- capture-eval:start -->";
  const end = "<!-- capture-eval:end -->";
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) throw new Error("docs/signals.md has no capture-eval markers");
  writeFileSync(file, `${text.slice(0, from + start.length)}\n${lines.join("\n")}\n${text.slice(to)}`);
}
