/**
 * Motion blur as a cue (measurement only, nothing in the service reads it): a real camera that moves
 * while its shutter is open smears the picture along the motion, so in the native 64 px centre
 * patches the gradient energy ALONG the motion falls, relative to the other directions, the faster
 * the camera moves during that frame; a 2-D warp of a still photo (rung 3, attacks.ts `movingScreen`)
 * stays as sharp whatever its motion.
 *
 * Per press (the 6 native patches the page sends: the photo's centre at the shutter, then the next
 * frames'): each consecutive pair's native shift (`alignPatchesWide`, kept only where
 * `patchesAligned`), refined to sub-pixel by a parabola through the SAD; each patch's velocity during
 * its exposure (the mean of the shifts on either side of it). For each aligned pair (a, b) and four
 * directions u (0°, 45°, 90°, 135°), over their common window:
 *   y_u = ln E_b(u) − ln E_a(u)        E(u): mean squared derivative along u (central differences)
 *   x_u = |v_b·u| − |v_a·u|            how much more the motion during b's exposure ran along u
 * each centred over the four directions (a change of focus, exposure or noise that is the same in
 * every direction cancels). Pooled over the pairs, the press's cue is the correlation of x with y
 * (`blur_corr`; a camera that blurs: negative) and the slope (`blur_slope`, ln energy per px of
 * motion a frame). Measurable: ≥ 3 aligned pairs, textured patches, and motion that differs by
 * direction by ≥ 1 native px a frame somewhere (max |x| ≥ 1). Also `aniso`, the RMS of y (how much
 * the directional sharpness changes at all, motion aside; measured where the camera moves ≥ 1 px a
 * frame). Rules are chosen on the training split's genuine hand-held/mounted presses only.
 *
 *   FOOTAGE_MAX_SIDE=1920 nice -n 10 npx tsx scripts/eval/capture-footage/motion-blur.ts [--part footage,debian,forgery] [--sizes 320,960,1920] [--exposure MS] [--out FILE.jsonl] [--from FILE.jsonl,...]
 *
 * --exposure MS: the forgeries made as a forger who knows this cue would (each frame the mean of 8
 * warps over MS ms around its time: motion blur). --from re-reads saved presses instead of measuring.
 * BLUR_PAIRS=all pools every pair of patches within reach instead of consecutive ones (tried: noisier).
 *
 * Footage: as evaluate.ts reads it (a press every 500 ms from 1 s on, 8 s). Debian genuine videos
 * (scripts/capture-fixtures GENUINE): at 320 × 240 as capture-burst.ts reads them, and at their own
 * resolution capped at FOOTAGE_MAX_SIDE. Forgeries: capture-burst.ts's rung-3 warps (6 photos × 3
 * seeds, presses every 500 ms from 1 s over 5 s) at 320 × 240 native (attacks.ts `movingScreen`), and
 * the same warp model, photos, seeds and press times at a larger native size (only the centre patch
 * rendered; the photo read at twice the native size as capture-burst reads it at 640 × 480 for 320).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { NOISE_PATCHES, PATCH_SIDE } from "../../../client/capture-page/integrity/frames";
import { alignPatchesWide, patchesAligned, vertex } from "../../../src/analysis/burst/measures";
import { rng } from "../../../test/helpers/synth";
import { handShake, movingScreen, noiseField, planeSample, type NoiseShape } from "../../capture-fixtures/attacks";
import { GENUINE, SCREEN_PHOTOS } from "../../capture-fixtures/sources";
import { debianFile, readGrey, readPhotoGrey } from "../../capture-fixtures/video";
import { rate } from "../stats";
import { readClip } from "./frames";
import { cachePath, readManifest } from "./sources";

const { values: args } = parseArgs({ options: { part: { type: "string", default: "footage,debian,forgery" }, out: { type: "string" }, from: { type: "string" }, sizes: { type: "string", default: "320,960,1920" }, exposure: { type: "string", default: "0" } } });
const MAX_SIDE = Number(process.env.FOOTAGE_MAX_SIDE ?? 960);
/** --exposure MS: the forger's counter-move, each forged frame the mean of the warp over an exposure of MS ms (8 sub-frames), centred on the frame's time. */
const EXPOSURE = Number(args.exposure) / 1000;
const S = PATCH_SIDE;
const started = Date.now();

// ---------------------------------------------------------------- the cue

interface Cue {
  measurable: boolean;
  why?: string;
  pairs: number;
  corr: number | null;
  slope: number | null;
  maxSpeed: number;
  maxX: number;
  energy: number;
  /** RMS of y (the direction-dependent part of each pair's change of ln gradient energy): how much the directional sharpness moves at all. */
  aniso: number | null;
  /** Whether `aniso` is measured: ≥ 3 aligned pairs, textured patches, and the camera moving ≥ 1 native px a frame somewhere. */
  anisoMeasurable: boolean;
}

/** SAD of b shifted by (dx, dy) against a over a's window [m, S − m)². */
function sad(a: Uint8Array, b: Uint8Array, dx: number, dy: number, m: number, offset: number): number {
  let s = 0;
  for (let y = m; y < S - m; y += 1) for (let x = m; x < S - m; x += 1) s += Math.abs(a[y * S + x]! - b[(y + dy) * S + x + dx]! + offset);
  return s;
}
const meanOf = (p: Uint8Array) => p.reduce((a, v) => a + v, 0) / p.length;

/** The sub-pixel shift of b against a around an integer one (parabola through the SAD). */
function subPixel(a: Uint8Array, b: Uint8Array, d: { dx: number; dy: number }): { dx: number; dy: number } {
  const m = Math.max(Math.abs(d.dx), Math.abs(d.dy)) + 2;
  if (m * 2 >= S - 8) return d;
  const off = meanOf(a) - meanOf(b);
  const c = sad(a, b, d.dx, d.dy, m, off);
  return {
    dx: d.dx + vertex(sad(a, b, d.dx - 1, d.dy, m, off), c, sad(a, b, d.dx + 1, d.dy, m, off)),
    dy: d.dy + vertex(sad(a, b, d.dx, d.dy - 1, m, off), c, sad(a, b, d.dx, d.dy + 1, m, off)),
  };
}

const DIRS = [0, 45, 90, 135].map((deg) => [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)] as const);

/** Mean squared directional derivative of patch p over the window of a (x ∈ [m, S − m)) shifted by (sx, sy). */
function energies(p: Uint8Array, m: number, sx: number, sy: number): number[] {
  const e = [0, 0, 0, 0];
  let n = 0;
  for (let y = m; y < S - m; y += 1) {
    for (let x = m; x < S - m; x += 1) {
      const i = (y + sy) * S + x + sx;
      const gx = (p[i + 1]! - p[i - 1]!) / 2;
      const gy = (p[i + S]! - p[i - S]!) / 2;
      for (let k = 0; k < 4; k += 1) e[k]! += (DIRS[k]![0] * gx + DIRS[k]![1] * gy) ** 2;
      n += 1;
    }
  }
  return e.map((v) => v / Math.max(1, n));
}

export function blurCue(patches: Uint8Array[]): Cue {
  const shifts: Array<{ int: { dx: number; dy: number }; sub: { dx: number; dy: number } } | null> = [];
  for (let i = 1; i < patches.length; i += 1) {
    const [a, b] = [patches[i - 1]!, patches[i]!];
    const d = alignPatchesWide(a, b, S);
    shifts.push(patchesAligned(a, b, S, d) && Math.max(Math.abs(d.dx), Math.abs(d.dy)) < 15 ? { int: d, sub: subPixel(a, b, d) } : null);
  }
  // Velocity of patch i during its exposure: the mean of the known shifts beside it.
  const vel = patches.map((_, i) => {
    const near = [shifts[i - 1], shifts[i]].filter((s): s is NonNullable<typeof s> => !!s);
    if (near.length === 0) return null;
    return { dx: near.reduce((s, q) => s + q.sub.dx, 0) / near.length, dy: near.reduce((s, q) => s + q.sub.dy, 0) / near.length };
  });
  const xs: number[] = [];
  const ys: number[] = [];
  let pairs = 0;
  let energy = Infinity;
  let maxX = 0;
  // Every pair (i < j) joined by aligned consecutive pairs, whose summed shift stays inside the patch's margin.
  const pairList: Array<[number, number, { dx: number; dy: number }]> = [];
  for (let i = 0; i < patches.length; i += 1) {
    let sum = { dx: 0, dy: 0 };
    for (let j = i + 1; j < patches.length && (ALL_PAIRS || j === i + 1); j += 1) {
      const s = shifts[j - 1];
      if (!s) break;
      sum = { dx: sum.dx + s.sub.dx, dy: sum.dy + s.sub.dy };
      const d = j === i + 1 ? s.int : { dx: Math.round(sum.dx), dy: Math.round(sum.dy) };
      if (Math.max(Math.abs(d.dx), Math.abs(d.dy)) >= 15) break;
      pairList.push([i, j, d]);
    }
  }
  for (const [i0, i, d] of pairList) {
    const [va, vb] = [vel[i0], vel[i]];
    if (!va || !vb) continue;
    const m = Math.max(Math.abs(d.dx), Math.abs(d.dy)) + 2;
    const ea = energies(patches[i0]!, m, 0, 0);
    const eb = energies(patches[i]!, m, d.dx, d.dy);
    energy = Math.min(energy, ...ea, ...eb);
    if (Math.min(...ea, ...eb) <= 0) continue;
    const y = ea.map((v, k) => Math.log(eb[k]! / v));
    const x = DIRS.map(([c, sn]) => Math.abs(vb.dx * c + vb.dy * sn) - Math.abs(va.dx * c + va.dy * sn));
    const my = y.reduce((p, q) => p + q, 0) / 4;
    const mx = x.reduce((p, q) => p + q, 0) / 4;
    for (let k = 0; k < 4; k += 1) {
      xs.push(x[k]! - mx);
      ys.push(y[k]! - my);
      maxX = Math.max(maxX, Math.abs(x[k]! - mx));
    }
    pairs += 1;
  }
  const maxSpeed = Math.max(0, ...vel.map((v) => (v ? Math.hypot(v.dx, v.dy) : 0)));
  const base = { pairs, maxSpeed: r3(maxSpeed), maxX: r3(maxX), energy: r3(Number.isFinite(energy) ? energy : 0) };
  let corr: number | null = null;
  let slope: number | null = null;
  if (xs.length >= 8) {
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = ys.reduce((a, b) => a + b, 0) / ys.length;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let k = 0; k < xs.length; k += 1) {
      sxy += (xs[k]! - mx) * (ys[k]! - my);
      sxx += (xs[k]! - mx) ** 2;
      syy += (ys[k]! - my) ** 2;
    }
    if (sxx > 0 && syy > 0) corr = r3(sxy / Math.sqrt(sxx * syy));
    if (sxx > 0) slope = r3(sxy / sxx);
  }
  const aniso = ys.length > 0 ? r3(Math.sqrt(ys.reduce((a, v) => a + v * v, 0) / ys.length)) : null;
  const anisoMeasurable = shifts.filter(Boolean).length >= 3 && energy >= MIN_ENERGY && maxSpeed >= 1 && aniso !== null;
  const why = shifts.filter(Boolean).length < 3 ? "fewer than 3 aligned pairs" : energy < MIN_ENERGY ? "plain patch" : maxX < MIN_X ? "too little motion" : corr === null ? "no variance" : undefined;
  return { measurable: !why, why, corr, slope, aniso, anisoMeasurable, ...base };
}
/** Mean squared derivative (grey levels², any direction) a patch needs: about 3 levels a pixel. */
const MIN_ENERGY = 9;
/** The motion must differ by direction by this many native px a frame somewhere in the press. */
const MIN_X = 1;
/** BLUR_PAIRS=all: every pair of patches (i < j) within reach, not only consecutive ones (more spread of motion to compare). */
const ALL_PAIRS = process.env.BLUR_PAIRS === "all";
const r3 = (v: number) => Math.round(v * 1000) / 1000;

// ---------------------------------------------------------------- presses

interface Row extends Cue {
  group: string;
  item: string;
  split?: string;
  category?: string;
  camera?: string;
  native: string;
}

/** The 6 native centre patches of the press at `t` ms: the frame on screen at t, then the next ones. */
function patchesAt(frames: readonly Uint8Array[], w: number, h: number, fps: number, t: number): Uint8Array[] | null {
  const j0 = Math.floor((t * fps) / 1000 + 1e-9);
  if (j0 + NOISE_PATCHES > frames.length) return null;
  const [px, py] = [(w - S) >> 1, (h - S) >> 1];
  return Array.from({ length: NOISE_PATCHES }, (_, k) => {
    const f = frames[j0 + k]!;
    const out = new Uint8Array(S * S);
    for (let y = 0; y < S; y += 1) out.set(f.subarray((py + y) * w + px, (py + y) * w + px + S), y * S);
    return out;
  });
}

const rows: Row[] = [];
const parts = new Set(args.part.split(","));
const log = (s: string) => console.error(`[${Math.round((Date.now() - started) / 1000)} s] ${s}`);

if (args.from) {
  for (const f of args.from.split(",")) for (const line of readFileSync(f, "utf8").split("\n").filter(Boolean)) rows.push(JSON.parse(line) as Row);
} else {
  if (parts.has("footage")) {
    for (const clip of readManifest()) {
      if (!existsSync(cachePath(clip))) {
        log(`missing ${clip.name}`);
        continue;
      }
      const video = readClip(clip, 8);
      const lastT = ((video.frames.length - 1) * 1000) / video.fps;
      for (let t = 1000; t <= lastT - 150; t += 500) {
        const ps = patchesAt(video.frames, video.width, video.height, video.fps, t);
        if (!ps) continue;
        const group = clip.category === "display" ? `display (${clip.camera === "static" ? "fixed webcam" : "moving camera"})` : clip.category === "static" ? "static" : `genuine ${clip.category}`;
        rows.push({ group, item: clip.name, split: clip.split, category: clip.category, camera: clip.camera, native: `${video.width}x${video.height}`, ...blurCue(ps) });
      }
      log(`${clip.split} ${clip.category} ${clip.name} ${video.width}x${video.height}`);
    }
  }
  if (parts.has("debian")) {
    for (const g of GENUINE) {
      const file = debianFile(g.source);
      const v320 = readGrey(file, 20);
      for (let t = 1000; t <= ((v320.frames.length - 1) * 1000) / v320.fps - 150; t += 250) {
        const ps = patchesAt(v320.frames, 320, 240, v320.fps, t);
        if (ps) rows.push({ group: `debian ${g.camera} @320x240`, item: g.name, camera: g.camera, native: "320x240", ...blurCue(ps) });
      }
      const [w0, h0] = execFileSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", file], { encoding: "utf8" }).trim().split(",").map(Number) as [number, number];
      const sc = Math.min(1, MAX_SIDE / Math.max(w0, h0));
      const [w, h] = [Math.round((w0 * sc) / 2) * 2, Math.round((h0 * sc) / 2) * 2];
      const raw = execFileSync("ffmpeg", ["-v", "error", "-i", file, "-t", "20", "-vf", `scale=${w}:${h},format=gray`, "-f", "rawvideo", "-"], { maxBuffer: 2 ** 31 });
      const frames: Uint8Array[] = [];
      for (let o = 0; o + w * h <= raw.length; o += w * h) frames.push(new Uint8Array(raw.buffer, raw.byteOffset + o, w * h));
      for (let t = 1000; t <= ((frames.length - 1) * 1000) / v320.fps - 150; t += 250) {
        const ps = patchesAt(frames, w, h, v320.fps, t);
        if (ps) rows.push({ group: `debian ${g.camera} @native`, item: g.name, camera: g.camera, native: `${w}x${h}`, ...blurCue(ps) });
      }
      log(`debian ${g.name} ${w}x${h}`);
    }
  }
  if (parts.has("forgery")) {
    const shapes: Array<[string, number, NoiseShape]> = [["camera-shaped σ1.5", 1.5, "camera-shaped"], ["white σ1.5", 1.5, "white"], ["noiseless", 0, "white"]];
    for (const size of args.sizes.split(",").map(Number)) {
      const [W, H] = [size, (size * 3) / 4];
      const photos = SCREEN_PHOTOS.map((p) => readPhotoGrey(debianFile(p), 2 * W, 2 * H));
      for (const [label, sigma, shape] of shapes) {
        for (let i = 0; i < photos.length; i += 1) {
          for (const seed of [1, 2, 3]) {
            const s = 100 * i + seed;
            const frames = size === 320 && EXPOSURE === 0 ? movingScreen(photos[i]!, 640, 480, 30, 5, s, sigma, shape).frames : null;
            for (let t = 1000; t <= (149 * 1000) / 30 - 150; t += 500) {
              const ps = frames ? patchesAt(frames, 320, 240, 30, t) : warpPatches(photos[i]!, W, H, 30, t, s, sigma, shape);
              if (ps) rows.push({ group: `forgery ${label}${EXPOSURE > 0 ? ` + ${args.exposure} ms exposure blur` : ""} @${W}x${H}`, item: `photo${i}-seed${seed}`, native: `${W}x${H}`, ...blurCue(ps) });
            }
          }
        }
        log(`forgery ${label} ${W}x${H}`);
      }
    }
  }
  if (args.out) writeFileSync(args.out, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

// ---------------------------------------------------------------- the warp at any native size

/**
 * attacks.ts `movingScreen` at native W × H (focal length W px, photo 2W × 2H), the same hand
 * (`handShake`) from the same seed, but only the native centre patch of the 6 frames from the one on
 * screen at `t`. The noise (white, or box-blurred twice over a 68 px square, then cropped) comes from
 * its own generator: the same distribution, not the same draws.
 */
function warpPatches(photo: Uint8Array, W: number, H: number, fps: number, t: number, seed: number, sigma: number, shape: NoiseShape): Uint8Array[] {
  const pose = handShake(rng(seed));
  const [pw, ph] = [2 * W, 2 * H];
  const f = W;
  const scale = (pw / W) * f * 0.8;
  const noiseRandom = rng(seed * 7919 + t);
  const j0 = Math.floor((t * fps) / 1000 + 1e-9);
  const [u0, v0] = [(W - S) >> 1, (H - S) >> 1];
  const SUB = EXPOSURE > 0 ? 8 : 1;
  return Array.from({ length: NOISE_PATCHES }, (_, k) => {
    const acc = new Float64Array(S * S);
    for (let sub = 0; sub < SUB; sub += 1) {
      const at = pose((j0 + k) / fps + (SUB > 1 ? (sub / (SUB - 1) - 0.5) * EXPOSURE : 0));
      for (let y = 0; y < S; y += 1) {
        for (let x = 0; x < S; x += 1) acc[y * S + x]! += planeSample(photo, pw, ph, scale, at, (u0 + x - W / 2) / f, (v0 + y - H / 2) / f) / SUB;
      }
    }
    const noise = patchNoise(noiseRandom, sigma, shape);
    return Uint8Array.from(acc, (v, i) => Math.max(0, Math.min(255, Math.round(v + noise[i]!))));
  });
}

/** A patch's noise: `noiseField` over a 4 px wider square, cropped, so that the blur's clamped edges stay outside. */
function patchNoise(random: () => number, sigma: number, shape: NoiseShape): Float32Array {
  if (sigma === 0) return new Float32Array(S * S);
  const N = S + 4;
  const field = noiseField(N, N, random, sigma, shape);
  const crop = new Float32Array(S * S);
  for (let y = 0; y < S; y += 1) for (let x = 0; x < S; x += 1) crop[y * S + x] = field[(y + 2) * N + x + 2]!;
  return crop;
}

// ---------------------------------------------------------------- summary

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))]! : NaN;
};
const f3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : "–");
const isGenuine = (r: Row) => r.group.startsWith("genuine");
const keyOf = (r: Row) => (r.split ? `${r.split} ${r.group}${r.camera && r.group.startsWith("genuine") ? ` ${r.camera}` : ""} @${r.native.split("x").map(Number).reduce((a, b) => Math.max(a, b)) > 960 ? ">960" : "≤960"}` : r.group);
const groups = new Map<string, Row[]>();
for (const r of rows) groups.set(keyOf(r), [...(groups.get(keyOf(r)) ?? []), r]);
const lines = [
  `FOOTAGE_MAX_SIDE=${MAX_SIDE}; ${rows.length} presses`,
  "| group | presses | measurable | blur_corr p10 / median / p90 | blur_slope p10 / median / p90 | max speed px/frame median | why not measurable | aniso measurable | aniso p10 / median / p90 |",
  "|---|---:|---:|---|---|---:|---|---:|---|",
];
for (const [k, rs] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
  const m = rs.filter((r) => r.measurable);
  const c = m.map((r) => r.corr!);
  const s = m.map((r) => r.slope!);
  const whys = new Map<string, number>();
  for (const r of rs) if (r.why) whys.set(r.why, (whys.get(r.why) ?? 0) + 1);
  lines.push(`| ${k} | ${rs.length} | ${m.length} | ${f3(q(c, 0.1))} / ${f3(q(c, 0.5))} / ${f3(q(c, 0.9))} | ${f3(q(s, 0.1))} / ${f3(q(s, 0.5))} / ${f3(q(s, 0.9))} | ${f3(q(rs.map((r) => r.maxSpeed), 0.5))} | ${[...whys].map(([w, n]) => `${w} ${n}`).join(", ")} | ${rs.filter((r) => r.anisoMeasurable).length} | ${(() => { const a = rs.filter((r) => r.anisoMeasurable).map((r) => r.aniso!); return `${f3(q(a, 0.1))} / ${f3(q(a, 0.5))} / ${f3(q(a, 0.9))}`; })()} |`);
}

// The rules, from the training split's genuine hand-held/mounted presses only. Each cue flags a
// measurable press on the side a warp of a still photo falls: blur_corr or blur_slope ABOVE the
// threshold (no blur along the motion), aniso BELOW it (directional sharpness that never changes).
const trainG = rows.filter((r) => r.split === "train" && isGenuine(r));
const testG = rows.filter((r) => r.split === "test" && isGenuine(r));
const CUES: Array<{ name: string; value: (r: Row) => number | null; ok: (r: Row) => boolean; high: boolean }> = [
  { name: "blur_corr", value: (r) => r.corr, ok: (r) => r.measurable, high: true },
  { name: "blur_slope", value: (r) => r.slope, ok: (r) => r.measurable, high: true },
  { name: "aniso", value: (r) => r.aniso ?? null, ok: (r) => !!r.anisoMeasurable, high: false },
];
if (trainG.length > 0) {
  for (const cue of CUES) {
    const tc = trainG.filter(cue.ok).map((r) => cue.value(r)!);
    const pick = (p: number) => (cue.high ? q(tc, 1 - p) : q(tc, p));
    const rules = [
      { name: "zero train false alarms", thr: cue.high ? Math.max(...tc) : Math.min(...tc) },
      { name: "train p5 / p95", thr: pick(0.05) },
      { name: "train p20 / p80", thr: pick(0.2) },
    ];
    lines.push("", `${cue.name}: flagged = measurable and ${cue.name} ${cue.high ? ">" : "<"} threshold (chosen on train genuine only; ${tc.length} measurable of ${trainG.length}); unmeasurable presses are not flagged.`);
    for (const rule of rules) {
      const flagged = (rs: Row[]) => rs.filter((r) => cue.ok(r) && (cue.high ? cue.value(r)! > rule.thr : cue.value(r)! < rule.thr)).length;
      lines.push(`- ${rule.name}: threshold ${f3(rule.thr)}`);
      lines.push(`  - train genuine (in-sample): ${flagged(trainG)} of ${trainG.length}: ${rate(flagged(trainG), trainG.length)}`);
      lines.push(`  - test genuine (held out): ${flagged(testG)} of ${testG.length}: ${rate(flagged(testG), testG.length)}`);
      for (const [k, rs] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
        if (k.includes("genuine") && !k.startsWith("debian")) continue;
        lines.push(`  - ${k}: ${flagged(rs)} of ${rs.length} (measurable ${rs.filter(cue.ok).length}): ${rate(flagged(rs), rs.length)}`);
      }
    }
  }
}
// Within-press sign test pooled: how often the correlation is negative.
lines.push("", "Share of measurable presses with blur_corr < 0 (a real blur predicts most; no relation predicts ~half):");
for (const [k, rs] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
  const m = rs.filter((r) => r.measurable);
  lines.push(`- ${k}: ${m.filter((r) => r.corr! < 0).length} of ${m.length}`);
}
lines.push("", `run in ${Math.round((Date.now() - started) / 1000)} s`);
console.log(lines.join("\n"));
