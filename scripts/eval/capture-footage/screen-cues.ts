/**
 * Screen cues tried on the footage's training split and not shipped (docs/signals.md, "What this
 * cannot catch"): per clip, the median and 90th percentile of (a) row banding, the frame-to-frame
 * difference's row means less their 5-row moving average (a display's refresh or PWM beating with a
 * rolling shutter draws horizontal bands), and (b) flicker, the second difference of the frames'
 * mean brightness, both on the 160 px frames the page sends.
 *
 *   npx tsx scripts/eval/capture-footage/screen-cues.ts [--split train]
 */
import { parseArgs } from "node:util";
import { pageFramesOf, readClip } from "./frames";
import { readManifest } from "./sources";

const { values: args } = parseArgs({ options: { split: { type: "string", default: "train" } } });

function banding(a: Uint8Array, b: Uint8Array, w: number, h: number): number {
  const rows = new Float64Array(h);
  for (let y = 0; y < h; y += 1) {
    let s = 0;
    for (let x = 0; x < w; x += 1) s += b[y * w + x]! - a[y * w + x]!;
    rows[y] = s / w;
  }
  let e = 0;
  for (let y = 2; y < h - 2; y += 1) e += (rows[y]! - (rows[y - 2]! + rows[y - 1]! + rows[y]! + rows[y + 1]! + rows[y + 2]!) / 5) ** 2;
  return Math.sqrt(e / (h - 4));
}

const mean = (f: Uint8Array) => f.reduce((s, v) => s + v, 0) / f.length;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;

for (const clip of readManifest().filter((c) => c.split === args.split && (c.camera !== "static" || c.category === "display"))) {
  const frames = pageFramesOf(readClip(clip, 6));
  const bands = frames.slice(1).map((f, i) => banding(frames[i]!.luma, f.luma, f.width, f.height));
  const means = frames.map((f) => mean(f.luma));
  const flicker = means.slice(2).map((m, i) => Math.abs(m - 2 * means[i + 1]! + means[i]!));
  console.log(`${clip.category.padEnd(8)} ${clip.name.padEnd(26)} banding ${quantile(bands, 0.5).toFixed(2)} / ${quantile(bands, 0.9).toFixed(2)}  flicker ${quantile(flicker, 0.5).toFixed(2)} / ${quantile(flicker, 0.9).toFixed(2)}`);
}
