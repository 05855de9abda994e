/**
 * A camera swept faster than block motion searches (±4 px a frame at 160 px) broke the frame chain
 * of a genuine burst: no block matched, the pair was compared in place, and its frames read as not
 * continuing each other, the mark of a spliced frame (`burst_frames_discontinuous`, docs/signals.md).
 * `capture-burst/11` also searches around the burst's typical motion and each pair's neighbours'
 * (src/analysis/burst/swing.ts); `capture-burst/12` reads only the links beside the photo's frame
 * (frame-chain.ts#photoFrameChain), where every link of the burst was read before.
 *
 * Nobody here has footage of such a sweep: the footage's own pairs never move that far. So each
 * clip (manifest.tsv; build.ts first) is read with every STRIDE-th frame only, its times divided by
 * STRIDE: the same scene, the same camera and noise, moving STRIDE times as fast between frames 33 ms
 * apart (or as a camera giving a third or a quarter of the frames, 10 fps in low light, would see the
 * same hand). Per shutter press (every 500 ms from 1 s, as evaluate.ts), the burst's weakest link with
 * the blocks searched around no motion (`/10`), every link as measures.ts searches them now (`/11`),
 * and the weaker link beside the frame at the shutter, the photo's (`/12`); and the same press with
 * the frame at the shutter replaced by another source's frame of the same size (rung 4″: the photo
 * spliced in), which must stay below 0.45.
 *
 *   npx tsx scripts/eval/capture-footage/fast-sweep.ts [--split train|test] [--strides 1,2,3,4]
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { frameLink, MIN_LINK_STD, photoFrameChain } from "../../../src/analysis/burst/frame-chain";
import { frameStd } from "../../../src/model/evidence/grey-frame";
import { blockMotion, globalShift, pairShift, type GreyFrame } from "../../../src/analysis/burst/measures";
import { searchCentres, swingOf, type Shift } from "../../../src/analysis/burst/swing";
import { CAPTURE_BURST_THRESHOLDS } from "../../../src/analysis/signals/capture-burst";
import { rate } from "../stats";
import { pageFramesOf, pressesIn, readClip, type PressFrames } from "./frames";
import { cachePath, readManifest, type Clip } from "./sources";

const { values: args } = parseArgs({ options: { split: { type: "string" }, strides: { type: "string", default: "1,2,3,4" } } });
const STRIDES = args.strides.split(",").map(Number);
const LIMIT = CAPTURE_BURST_THRESHOLDS.minFrameChain;

interface Press extends PressFrames {
  clip: Clip;
}

/** Each pair's shift as `capture-burst/10` found it (before `/11`): blocks searched ±4 px around no motion. */
function stillShift(a: GreyFrame, b: GreyFrame): Shift {
  const blocks = blockMotion(a, b, { dx: 0, dy: 0 }, 4);
  return blocks.length > 0 ? globalShift(blocks) : { dx: 0, dy: 0 };
}

/** A frame at half its size (2 × 2 means): VARIANT=half links the frames there, to forgive blur and sub-pixel misfit. */
function halved(f: GreyFrame): GreyFrame {
  const [w, h] = [f.width >> 1, f.height >> 1];
  const luma = new Uint8Array(w * h);
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      const i = 2 * y * f.width + 2 * x;
      luma[y * w + x] = (f.luma[i]! + f.luma[i + 1]! + f.luma[i + f.width]! + f.luma[i + f.width + 1]! + 2) >> 2;
    }
  }
  return { t: f.t, width: w, height: h, luma };
}

/** Each link of `frames` (as measures.ts), each pair's shift found by `shiftOf`, and the fastest pair's motion. */
function chain(frames: GreyFrame[], shiftOf: (a: GreyFrame, b: GreyFrame, pair: number) => Shift): { links: Array<number | null>; motion: number } {
  const links: Array<number | null> = [];
  let motion = 0;
  for (let i = 1; i < frames.length; i += 1) {
    const shift = shiftOf(frames[i - 1]!, frames[i]!, i - 1);
    motion = Math.max(motion, Math.hypot(shift.dx, shift.dy));
    const half = process.env.VARIANT === "half";
    links.push(half ? frameLink(halved(frames[i - 1]!), halved(frames[i]!), { dx: shift.dx / 2, dy: shift.dy / 2 }) : frameLink(frames[i - 1]!, frames[i]!, shift));
  }
  return { links, motion };
}
const weakest = (links: Array<number | null>) => links.reduce<number | null>((w, l) => (l === null ? w : Math.min(w ?? 1, l)), null);

/**
 * Each pair's shift as measures.ts finds it now (`capture-burst/11`). Variants measured and not kept:
 * VARIANT=typical searches around the burst's typical motion only, VARIANT=own around the pair's own
 * coarse shift instead of its neighbours', VARIANT=half links the frames at half size, VARIANT=both
 * reads a splice only where both links beside the photo break (docs/signals.md says what each did).
 */
const sweptShift = (frames: GreyFrame[]) => {
  const sweep = swingOf(frames);
  return (a: GreyFrame, b: GreyFrame, pair: number) => {
    const own = sweep.pairs[pair];
    if (process.env.VARIANT === "typical") return pairShift(a, b, [sweep.typical]);
    if (process.env.VARIANT === "own") return pairShift(a, b, own ? [sweep.typical, own] : [sweep.typical]);
    return pairShift(a, b, searchCentres(sweep, pair));
  };
};

const clips = readManifest().filter((c) => (!args.split || c.split === args.split) && existsSync(cachePath(c)));
const read = clips.map((clip) => ({ clip, frames: pageFramesOf(readClip(clip, 8)) }));
const genuine = (c: Clip) => c.category !== "display";
const show = (label: string, below: number, n: number) => `${label} ${below}/${n} (${rate(below, n)})`;

console.log(`frame chain under a faster sweep, ${clips.length} clips${args.split ? ` (${args.split})` : ""}; below ${LIMIT} = burst_frames_discontinuous`);
for (const stride of STRIDES) {
  const presses: Press[] = read.flatMap(({ clip, frames }) =>
    pressesIn(frames.filter((_, i) => i % stride === 0).map((f) => ({ t: f.t / stride, width: f.width, height: f.height, luma: f.luma }))).map((p) => ({ ...p, clip })),
  );
  const own = presses.filter((p) => genuine(p.clip));
  // Below the threshold: the burst's weakest link under /10 and /11, the photo's under /12; genuine presses and spliced ones.
  const below = { still: 0, every: 0, photo: 0 };
  const caught = { still: 0, every: 0, photo: 0 };
  let [measured, fast, spliced] = [0, 0, 0];
  let worst = 1;
  const count = (into: typeof below, frames: GreyFrame[], shutter: number) => {
    const [old, now] = [chain(frames, stillShift), chain(frames, sweptShift(frames))];
    if (weakest(old.links) === null && weakest(now.links) === null) return null; // no frame textured enough to link
    if ((weakest(old.links) ?? 1) < LIMIT) into.still += 1;
    if ((weakest(now.links) ?? 1) < LIMIT) into.every += 1;
    // VARIANT=both: a splice only when both links beside the photo break (a jerk breaks one; a spliced photo two).
    const beside = [now.links[shutter - 1], now.links[shutter]].filter((l) => l !== undefined).map((l) => l ?? 0);
    const photo = process.env.VARIANT === "both" && beside.length === 2 ? Math.max(...beside) : photoFrameChain(now.links, frames.flatMap((f, i) => (frameStd(f.luma) < MIN_LINK_STD ? [i] : [])), shutter);
    if ((photo ?? 1) < LIMIT) into.photo += 1;
    return { now, photo };
  };
  own.forEach((p, i) => {
    const counted = count(below, p.frames, p.shutter);
    if (!counted) return;
    const { now, photo } = counted;
    measured += 1;
    if (now.motion > 4) fast += 1;
    worst = Math.min(worst, photo ?? 1);
    // Rung 4″: another source's frame of the same size put at the shutter.
    const size = (q: Press) => `${q.frames[0]!.width}x${q.frames[0]!.height}`;
    const donors = presses.filter((q) => q.clip.source !== p.clip.source && size(q) === size(p));
    if (donors.length === 0) return;
    const donor = donors[(i * 7) % donors.length]!.frames;
    spliced += 1;
    count(caught, p.frames.map((f, j) => (j === p.shutter ? { ...f, luma: donor[Math.min(j, donor.length - 1)]!.luma } : f)), p.shutter);
  });
  const rule = (r: typeof below, n: number) => `${show("/10", r.still, n)}, ${show("/11", r.every, n)}, ${show("/12", r.photo, n)}`;
  console.log(
    `stride ${stride}: genuine presses ${own.length} (${measured} with a link; ${fast} moving over 4 px a frame at their fastest): ` +
      `below ${rule(below, measured)}, the photo's weakest under /12 ${worst.toFixed(3)}; spliced caught ${rule(caught, spliced)}`,
  );
}
