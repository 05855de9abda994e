/**
 * Display cues tried on the footage's training split (docs/signals.md, "What this cannot catch"):
 * each a number computed per shutter press from what the server receives (the burst's 160 px grey
 * frames, the 64 px native centre patches, and the photo, in colour here), read the way
 * evaluate.ts reads the clips (a press every 500 ms from 1 s on, 8 s). For each cue: the threshold
 * just beyond every genuine press (hand-held or mounted flat, near 3-D and distant footage, and fixed
 * cameras), and how many display presses and clips lie beyond it; the same per clip (clip medians);
 * and the AUC (0.5: no information).
 * A cue is worth shipping only if it catches displays with no genuine press beyond it.
 *
 *   npx tsx scripts/eval/capture-footage/display-cues.ts [--split train] [--seconds 8] [--write] [--csv FILE] [--from-csv FILE]
 *
 * --write puts the table between docs/signals.md's display-cues markers (train split only); --csv
 * writes every press's cues (one row a press); --from-csv reads them back instead of the clips.
 *
 * Never run with --split test to choose anything: test is held out (evaluate.ts measures it).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { burstAround, NOISE_PATCHES } from "../../../client/capture-page/integrity/frames";
import { alignPatches } from "../../../src/analysis/burst/measures";
import { pageFramesOf, readClip } from "./frames";
import { cachePath, readManifest, ROOT, sequence, type Clip } from "./sources";

const { values: args } = parseArgs({ options: { split: { type: "string", default: "train" }, seconds: { type: "string", default: "8" }, write: { type: "boolean", default: false }, csv: { type: "string" }, "from-csv": { type: "string" } } });
const SECONDS = Number(args.seconds);
if (args.write && args.split !== "train") throw new Error("--write publishes the training split only: the test split is held out");
const started = Date.now();
const P = 64;

/** The clip's colour frames at the size readClip gives its grey ones (RGB, 3 bytes a pixel). */
function readColour(clip: Clip, width: number, height: number): Uint8Array[] {
  const file = cachePath(clip);
  const seq = sequence(clip);
  const input = seq ? ["-framerate", String(clip.fps), "-pattern_type", "glob", "-i", path.join(file, `*${path.extname(clip.path)}`)] : ["-i", file];
  const raw = execFileSync("ffmpeg", ["-v", "error", ...input, "-t", String(SECONDS), "-vf", `scale=${width}:${height},format=rgb24`, "-r", String(clip.fps), "-f", "rawvideo", "-"], { maxBuffer: 2 ** 31 });
  const size = width * height * 3;
  const out: Uint8Array[] = [];
  for (let o = 0; o + size <= raw.length; o += size) out.push(new Uint8Array(raw.buffer, raw.byteOffset + o, size));
  return out;
}

const quantile = (xs: ArrayLike<number>, q: number) => {
  const s = Array.from(xs).sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((s.length - 1) * q))]! : NaN;
};
const median = (xs: number[]) => quantile(xs, 0.5);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** 64-point DFT table. */
const COS = Float64Array.from({ length: P * P }, (_, i) => Math.cos((2 * Math.PI * (i % P) * Math.floor(i / P)) / P));
const SIN = Float64Array.from({ length: P * P }, (_, i) => -Math.sin((2 * Math.PI * (i % P) * Math.floor(i / P)) / P));

/** Power spectrum of a 64×64 patch, mean removed, Hann window. */
function spectrum(patch: Uint8Array): Float64Array {
  const w = Float64Array.from({ length: P }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (P - 1)));
  const m = mean(Array.from(patch));
  const re = new Float64Array(P * P);
  const im = new Float64Array(P * P);
  // rows
  for (let y = 0; y < P; y += 1) {
    for (let u = 0; u < P; u += 1) {
      let r = 0;
      let i = 0;
      for (let x = 0; x < P; x += 1) {
        const v = (patch[y * P + x]! - m) * w[x]! * w[y]!;
        r += v * COS[u * P + x]!;
        i += v * SIN[u * P + x]!;
      }
      re[y * P + u] = r;
      im[y * P + u] = i;
    }
  }
  const power = new Float64Array(P * P);
  for (let u = 0; u < P; u += 1) {
    for (let v = 0; v < P; v += 1) {
      let r = 0;
      let i = 0;
      for (let y = 0; y < P; y += 1) {
        const c = COS[v * P + y]!;
        const s = SIN[v * P + y]!;
        r += re[y * P + u]! * c - im[y * P + u]! * s;
        i += re[y * P + u]! * s + im[y * P + u]! * c;
      }
      power[v * P + u] = r * r + i * i;
    }
  }
  return power;
}

/** Pixel-grid / moiré energy: the strongest spectral peak beyond radius 8 over the median there, and the share of power beyond radius 16. */
function patchSpectral(patch: Uint8Array): { peak: number; hf: number } {
  const power = spectrum(patch);
  const mid: number[] = [];
  let peak = 0;
  let total = 0;
  let high = 0;
  for (let v = 0; v < P; v += 1) {
    for (let u = 0; u < P / 2 + 1; u += 1) {
      const fu = u;
      const fv = v > P / 2 ? v - P : v;
      const r = Math.hypot(fu, fv);
      if (r < 2) continue;
      const p = power[v * P + u]!;
      total += p;
      if (r > 16) high += p;
      if (r >= 8 && fu !== 0 && fv !== 0) {
        mid.push(p);
        peak = Math.max(peak, p);
      }
    }
  }
  const med = median(mid);
  return { peak: med > 0 ? Math.log10(peak / med) : 0, hf: total > 0 ? high / total : 0 };
}

interface Cues {
  [name: string]: number;
}

/** Cues of the photo (colour, native size): emitted light, white point, fine texture on bright flat areas, dark surroundings. */
function photoCues(rgb: Uint8Array, w: number, h: number): Cues {
  const n = w * h;
  const luma = new Float64Array(n);
  for (let i = 0; i < n; i += 1) luma[i] = 0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!;
  const sample = Array.from({ length: Math.min(n, 20000) }, (_, k) => luma[Math.floor((k * n) / Math.min(n, 20000))]!);
  const p90 = quantile(sample, 0.9);
  const p50 = quantile(sample, 0.5);
  let clipped = 0;
  let dark = 0;
  let blueBright = 0;
  let nBright = 0;
  let blueRest = 0;
  let nRest = 0;
  let satBright = 0;
  let sat = 0;
  for (let i = 0; i < n; i += 1) {
    const r = rgb[i * 3]!;
    const g = rgb[i * 3 + 1]!;
    const b = rgb[i * 3 + 2]!;
    const y = luma[i]!;
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    const s = max > 0 ? (max - min) / max : 0;
    sat += s;
    if (y >= 250) clipped += 1;
    if (y < 40) dark += 1;
    const bias = (b - r) / (r + g + b + 1);
    if (y >= p90 && max < 250) {
      blueBright += bias;
      satBright += s;
      nBright += 1;
    } else if (y < p50) {
      blueRest += bias;
      nRest += 1;
    }
  }
  // Fine texture on bright, smooth 8×8 blocks: residual of a 3×3 box blur, relative to the block's mean.
  const texture: number[] = [];
  for (let by = 1; by + 9 < h; by += 8) {
    for (let bx = 1; bx + 9 < w; bx += 8) {
      let sum = 0;
      for (let y = by; y < by + 8; y += 1) for (let x = bx; x < bx + 8; x += 1) sum += luma[y * w + x]!;
      const m = sum / 64;
      if (m < p90 || m > 245) continue;
      let e = 0;
      let coarse = 0;
      for (let y = by; y < by + 8; y += 1) {
        for (let x = bx; x < bx + 8; x += 1) {
          let box = 0;
          for (let dy = -1; dy <= 1; dy += 1) for (let dx = -1; dx <= 1; dx += 1) box += luma[(y + dy) * w + x + dx]!;
          e += (luma[y * w + x]! - box / 9) ** 2;
          coarse += (box / 9 - m) ** 2;
        }
      }
      if (Math.sqrt(coarse / 64) > 6) continue; // an edge, not a smooth area
      texture.push(Math.sqrt(e / 64));
    }
  }
  return {
    photo_clipped: clipped / n,
    photo_dark: dark / n,
    photo_bright_blue: (nBright ? blueBright / nBright : 0) - (nRest ? blueRest / nRest : 0),
    photo_bright_saturation: nBright ? satBright / nBright : 0,
    photo_saturation: sat / n,
    photo_bright_texture: texture.length >= 8 ? median(texture) : 0,
    photo_contrast: p90 - quantile(sample, 0.1),
  };
}

/**
 * Row banding (as screen-cues.ts): the frame-to-frame difference's row means less their 5-row moving
 * average; a display's refresh or PWM beating with a rolling shutter draws horizontal bands.
 */
function banding(a: { luma: Uint8Array }, b: { luma: Uint8Array; width: number; height: number }): number {
  const { width: w, height: h } = b;
  const rows = new Float64Array(h);
  for (let y = 0; y < h; y += 1) {
    let s = 0;
    for (let x = 0; x < w; x += 1) s += b.luma[y * w + x]! - a.luma[y * w + x]!;
    rows[y] = s / w;
  }
  let e = 0;
  for (let y = 2; y < h - 2; y += 1) e += (rows[y]! - (rows[y - 2]! + rows[y - 1]! + rows[y]! + rows[y + 1]! + rows[y + 2]!) / 5) ** 2;
  return Math.sqrt(e / (h - 4));
}

/** Cues of the burst's reduced frames: the bright part's level against the dark part's across frames, the whole frame's drift, flicker (second difference of the frames' means) and row banding. */
function burstCues(frames: Array<{ luma: Uint8Array; width: number; height: number }>): Cues {
  const ratios = frames.map((f) => Math.log((quantile(f.luma, 0.9) + 1) / (quantile(f.luma, 0.25) + 1)));
  const means = frames.map((f) => mean(Array.from(f.luma)));
  const sd = (xs: number[]) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));
  const flicker = means.slice(2).map((m, i) => Math.abs(m - 2 * means[i + 1]! + means[i]!));
  return {
    burst_ratio_drift: sd(ratios),
    burst_mean_drift: sd(means.map((m) => Math.log(m + 1))),
    burst_flicker: flicker.length ? Math.max(...flicker) : 0,
    burst_banding: median(frames.slice(1).map((f, i) => banding(frames[i]!, f))),
  };
}

/** Grow a mask by one pixel (8-neighbours). */
function dilate(mask: Uint8Array, w: number, h: number): Uint8Array {
  const out = new Uint8Array(mask);
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      if (mask[y * w + x]) continue;
      for (let dy = -1; dy <= 1 && !out[y * w + x]; dy += 1) {
        for (let dx = -1; dx <= 1; dx += 1) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w && mask[yy * w + xx]) {
            out[y * w + x] = 1;
            break;
          }
        }
      }
    }
  }
  return out;
}

/**
 * A bezel: the largest bright region of the frame at the shutter (smoothed, above its 85th
 * percentile, holes filled), and how much darker a band 1–3 px around it is than a band 5–9 px out,
 * relative to the region's level (a screen's dark rim between its light and the room; a sheet of
 * paper sits directly on its surroundings). 0 when the region is under 2 % of the frame.
 */
function rimCue(f: { luma: Uint8Array; width: number; height: number }): { rim: number; inside: Uint8Array | null; around: Uint8Array | null } {
  const { width: w, height: h, luma } = f;
  const sm = new Float64Array(w * h);
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      let s = 0;
      let n = 0;
      for (let dy = -1; dy <= 1; dy += 1) for (let dx = -1; dx <= 1; dx += 1) {
        const yy = y + dy;
        const xx = x + dx;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
          s += luma[yy * w + xx]!;
          n += 1;
        }
      }
      sm[y * w + x] = s / n;
    }
  }
  const th = quantile(sm, 0.85);
  const label = new Int32Array(w * h).fill(-1);
  let best = -1;
  let bestSize = 0;
  let next = 0;
  const stack: number[] = [];
  for (let i = 0; i < w * h; i += 1) {
    if (sm[i]! < th || label[i] !== -1) continue;
    let size = 0;
    label[i] = next;
    stack.push(i);
    while (stack.length) {
      const j = stack.pop()!;
      size += 1;
      const x = j % w;
      const y = (j / w) | 0;
      for (const k of [x > 0 ? j - 1 : -1, x < w - 1 ? j + 1 : -1, y > 0 ? j - w : -1, y < h - 1 ? j + w : -1]) {
        if (k >= 0 && label[k] === -1 && sm[k]! >= th) {
          label[k] = next;
          stack.push(k);
        }
      }
    }
    if (size > bestSize) [best, bestSize] = [next, size];
    next += 1;
  }
  if (bestSize < 0.02 * w * h) return { rim: 0, inside: null, around: null };
  // Fill holes: what the border cannot reach without crossing the region is inside it.
  const outside = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i += 1) {
    const x = i % w;
    const y = (i / w) | 0;
    if ((x === 0 || y === 0 || x === w - 1 || y === h - 1) && label[i] !== best) {
      outside[i] = 1;
      stack.push(i);
    }
  }
  while (stack.length) {
    const j = stack.pop()!;
    const x = j % w;
    const y = (j / w) | 0;
    for (const k of [x > 0 ? j - 1 : -1, x < w - 1 ? j + 1 : -1, y > 0 ? j - w : -1, y < h - 1 ? j + w : -1]) {
      if (k >= 0 && !outside[k] && label[k] !== best) {
        outside[k] = 1;
        stack.push(k);
      }
    }
  }
  const region = Uint8Array.from(outside, (o) => 1 - o);
  let grown: Uint8Array = region;
  const rings: Uint8Array[] = [];
  for (let r = 1; r <= 9; r += 1) {
    grown = dilate(grown, w, h);
    rings.push(grown);
  }
  const bandMean = (inner: Uint8Array, outer: Uint8Array) => {
    let s = 0;
    let n = 0;
    for (let i = 0; i < w * h; i += 1) if (outer[i] && !inner[i]) [s, n] = [s + luma[i]!, n + 1];
    return n ? s / n : NaN;
  };
  let inside = 0;
  for (let i = 0; i < w * h; i += 1) if (label[i] === best) inside += luma[i]!;
  inside /= bestSize;
  const near = bandMean(region, rings[2]!);
  const far = bandMean(rings[3]!, rings[8]!);
  if (!Number.isFinite(near) || !Number.isFinite(far)) return { rim: 0, inside: null, around: null };
  return { rim: (far - near) / (inside + 1), inside: Uint8Array.from(label, (l) => (l === best ? 1 : 0)), around: Uint8Array.from(rings[8]!, (g, i) => (g && !rings[3]![i] ? 1 : 0)) };
}

/**
 * Emitted light: the log ratio of the bright region's level to its surroundings' across the burst
 * (region and surroundings fixed at the shutter's frame), its standard deviation. A screen's light
 * does not follow the room's when the hand shades the scene or the exposure shifts; a print's does.
 */
function emittedDrift(burst: Array<{ luma: Uint8Array }>, inside: Uint8Array | null, around: Uint8Array | null): number {
  if (!inside || !around) return 0;
  const ratios = burst.map((f) => {
    let a = 0;
    let na = 0;
    let b = 0;
    let nb = 0;
    for (let i = 0; i < f.luma.length; i += 1) {
      if (inside[i]) [a, na] = [a + f.luma[i]!, na + 1];
      else if (around[i]) [b, nb] = [b + f.luma[i]!, nb + 1];
    }
    return Math.log((a / Math.max(1, na) + 1) / (b / Math.max(1, nb) + 1));
  });
  const m = mean(ratios);
  return Math.sqrt(mean(ratios.map((r) => (r - m) ** 2)));
}

/**
 * Fine banding at native resolution: consecutive patches aligned (±4 px), their difference's row
 * means and column means less a 3-line moving average, each over what pixel noise alone would give
 * (σ/√64); the larger over the smaller (a refresh against a rolling shutter bands one way, motion
 * edges both; the clip may be rotated, so either way counts).
 */
function patchBanding(a: Uint8Array, b: Uint8Array): number {
  const r = 4;
  const { dx: bx, dy: by } = alignPatches(a, b, P, r);
  const n = P - 2 * r;
  const d = new Float64Array(n * n);
  for (let y = 0; y < n; y += 1) for (let x = 0; x < n; x += 1) d[y * n + x] = b[(y + r + by) * P + x + r + bx]! - a[(y + r) * P + x + r]!;
  const m = mean(Array.from(d));
  const sd = Math.sqrt(mean(Array.from(d, (v) => (v - m) ** 2)));
  if (sd === 0) return 1;
  const lines = (rows: boolean) => {
    const means = Array.from({ length: n }, (_, i) => {
      let t = 0;
      for (let j = 0; j < n; j += 1) t += rows ? d[i * n + j]! : d[j * n + i]!;
      return t / n;
    });
    let e = 0;
    for (let i = 1; i < n - 1; i += 1) e += (means[i]! - (means[i - 1]! + means[i]! + means[i + 1]!) / 3) ** 2;
    return Math.sqrt(e / (n - 2)) / (sd / Math.sqrt(n));
  };
  const rows = lines(true);
  const cols = lines(false);
  return Math.max(rows, cols) / Math.max(1e-9, Math.min(rows, cols));
}

function patchCues(patches: Uint8Array[]): Cues {
  const s = patches.map(patchSpectral);
  const bands = patches.slice(1).map((p, i) => patchBanding(patches[i]!, p));
  return { patch_peak: median(s.map((x) => x.peak)), patch_hf: median(s.map((x) => x.hf)), patch_banding: bands.length ? median(bands) : 1 };
}

interface Row {
  clip: Clip;
  presses: Cues[];
}

/** Presses' cues as --csv wrote them. */
function readCsv(file: string): Row[] {
  const [head, ...lines] = readFileSync(file, "utf8").trim().split("\n");
  const keys = head!.split(",").slice(3);
  const clips = new Map(readManifest().map((c) => [c.name, c]));
  const byClip = new Map<string, Row>();
  for (const line of lines) {
    const [name, , , ...values] = line.split(",");
    const clip = clips.get(name!);
    if (!clip) throw new Error(`${name} is not in manifest.tsv`);
    if (clip.split !== args.split) continue;
    const row = byClip.get(name!) ?? { clip, presses: [] };
    row.presses.push(Object.fromEntries(keys.map((k, i) => [k, Number(values[i])])));
    byClip.set(name!, row);
  }
  return [...byClip.values()];
}

const rows: Row[] = [];
const fromCsv = args["from-csv"] ? readCsv(args["from-csv"]) : null;
if (fromCsv) rows.push(...fromCsv);
for (const clip of fromCsv ? [] : readManifest().filter((c) => c.split === args.split)) {
  const video = readClip(clip, SECONDS);
  const frames = pageFramesOf(video);
  const colour = readColour(clip, video.width, video.height);
  const presses: Cues[] = [];
  for (let t = 1000; t <= frames.at(-1)!.t - 150; t += 500) {
    const seen = frames.filter((f) => f.t <= t);
    const onScreen = seen.length - 1;
    const burst = burstAround(frames, t);
    if (onScreen < 0 || !burst || !colour[onScreen]) continue;
    const patches = [frames[onScreen]!, ...frames.filter((f) => f.t > t).slice(0, NOISE_PATCHES - 1)].map((f) => f.patch);
    const rim = rimCue(frames[onScreen]!);
    presses.push({ ...photoCues(colour[onScreen]!, video.width, video.height), ...burstCues(burst), ...patchCues(patches), burst_rim: rim.rim, burst_emitted_drift: emittedDrift(burst, rim.inside, rim.around) });
  }
  rows.push({ clip, presses });
  const med = Object.keys(presses[0] ?? {}).map((k) => `${k} ${median(presses.map((p) => p[k]!)).toFixed(3)}`).join("  ");
  console.error(`${clip.category.padEnd(8)} ${clip.camera.padEnd(9)} ${clip.name.padEnd(26)} n=${presses.length}  ${med}`);
}

/** The chance that a display press lies beyond a genuine one in the cue's direction (ties count half). */
function auc(displays: number[], genuine: number[], up: boolean): number {
  let wins = 0;
  for (const d of displays) for (const g of genuine) wins += d === g ? 0.5 : (up ? d > g : d < g) ? 1 : 0;
  return wins / Math.max(1, displays.length * genuine.length);
}

const isDisplay = (c: Clip) => c.category === "display";
const names = Object.keys(rows.find((r) => r.presses.length)!.presses[0]!);
if (args.csv) {
  const csv = [["clip", "category", "camera", ...names].join(","), ...rows.flatMap((r) => r.presses.map((p) => [r.clip.name, r.clip.category, r.clip.camera, ...names.map((k) => p[k])].join(",")))];
  writeFileSync(args.csv, `${csv.join("\n")}\n`);
}
const lines = [
  `Display cues on the ${args.split} split (scripts/eval/capture-footage/display-cues.ts): threshold just beyond every genuine press / clip median, displays beyond it`,
  "",
  "| cue | direction | genuine presses (clips) | display presses (clips) | AUC, by press | threshold (press) | displays caught, by press | threshold (clip median) | display clips caught |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|",
];
for (const name of names) {
  const gen = rows.filter((r) => !isDisplay(r.clip));
  const dis = rows.filter((r) => isDisplay(r.clip));
  const gp = gen.flatMap((r) => r.presses.map((p) => p[name]!));
  const dp = dis.flatMap((r) => r.presses.map((p) => p[name]!));
  const gm = gen.map((r) => median(r.presses.map((p) => p[name]!)));
  const dm = dis.map((r) => median(r.presses.map((p) => p[name]!)));
  const up = median(dp) >= median(gp);
  const beyond = (x: number, th: number) => (up ? x > th : x < th);
  const th = up ? Math.max(...gp) : Math.min(...gp);
  const thc = up ? Math.max(...gm) : Math.min(...gm);
  const caught = dp.filter((x) => beyond(x, th)).length;
  const caughtClips = dm.filter((x) => beyond(x, thc)).length;
  lines.push(`| ${name} | display ${up ? "higher" : "lower"} | ${gp.length} (${gen.length}) | ${dp.length} (${dis.length}) | ${auc(dp, gp, up).toFixed(2)} | ${th.toFixed(3)} | ${caught} of ${dp.length} | ${thc.toFixed(3)} | ${caughtClips} of ${dis.length} |`);
}
// Every pair of cues, each in its direction, both thresholds chosen on these very presses so that no
// genuine press lies beyond both: an optimistic, in-sample bound on what two of these cues could do.
let bestPair = { a: "", b: "", caught: -1, clips: 0 };
const directions = new Map(names.map((k) => {
  const g = rows.filter((r) => !isDisplay(r.clip)).flatMap((r) => r.presses.map((p) => p[k]!));
  const d = rows.filter((r) => isDisplay(r.clip)).flatMap((r) => r.presses.map((p) => p[k]!));
  return [k, median(d) >= median(g) ? 1 : -1];
}));
for (const [i, a] of names.entries()) {
  for (const b of names.slice(i + 1)) {
    const sa = directions.get(a)!;
    const sb = directions.get(b)!;
    const gen = rows.filter((r) => !isDisplay(r.clip)).flatMap((r) => r.presses.map((p) => [sa * p[a]!, sb * p[b]!] as const));
    const dis = rows.filter((r) => isDisplay(r.clip)).map((r) => r.presses.map((p) => [sa * p[a]!, sb * p[b]!] as const));
    for (const [ta] of dis.flat()) {
      const tb = Math.max(-Infinity, ...gen.filter(([x]) => x >= ta).map(([, y]) => y));
      const hit = (p: readonly [number, number]) => p[0] >= ta && p[1] > tb;
      const caught = dis.flat().filter(hit).length;
      if (caught > bestPair.caught) bestPair = { a, b, caught, clips: dis.filter((ps) => ps.filter(hit).length > ps.length / 2).length };
    }
  }
}
lines.push("", `Best pair of cues, both thresholds fitted on these presses with no genuine press beyond both (in-sample, optimistic): ${bestPair.a} and ${bestPair.b}, ${bestPair.caught} of ${rows.filter((r) => isDisplay(r.clip)).reduce((n, r) => n + r.presses.length, 0)} display presses, ${bestPair.clips} of ${rows.filter((r) => isDisplay(r.clip)).length} display clips mostly.`);
console.log(lines.join("\n"));
lines.push("", `_Generated by \`npx tsx scripts/eval/capture-footage/display-cues.ts ${fromCsv ? "--csv FILE` then `… --from-csv FILE --write" : "--write"}\`, run of ${new Date().toISOString().slice(0, 10)}, ${fromCsv ? "tables from the presses' cues its --csv wrote" : `in ${Math.round((Date.now() - started) / 1000)} s`}; clips from scripts/eval/capture-footage/manifest.tsv, ${args.split} split._`);
console.log(lines.at(-1));

if (args.write) {
  const file = path.join(ROOT, "docs", "signals.md");
  const text = readFileSync(file, "utf8");
  const start = "<!-- display-cues:start -->";
  const end = "<!-- display-cues:end -->";
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) throw new Error("docs/signals.md has no display-cues markers");
  writeFileSync(file, `${text.slice(0, from + start.length)}\n${lines.slice(2).join("\n")}\n${text.slice(to)}`);
}
