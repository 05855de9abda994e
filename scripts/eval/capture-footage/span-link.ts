/**
 * Does the burst's first frame show the scene its last frames show? (docs/signals.md, "Threat
 * model", rung 4‴.) A photo blended into another recording over several frames (each frame a small
 * step from the one before) passes the frame chain, which compares neighbours only. Across the whole
 * burst it cannot hide: its first frames are the recording, its last the photo. This measures, per
 * shutter press of the footage (manifest.tsv; build.ts first):
 *
 * - genuine: the press's own frames;
 * - faded: another clip's frames of the same size (another source) with this press's photo, reduced
 *   as the page reduces it, blended in with a weight rising by 1/FADE a frame to the shutter and
 *   falling as fast after it (scripts/eval/capture-burst.ts, `fadedInto`), for FADE 6 and 12.
 *
 * The span link: the first frame against the frame at the shutter, at the sum of the consecutive
 * pairs' shifts ± SEARCH px, over what both cover (at least half the frame); with SPAN=ms, the
 * weakest such link between each frame and the first one SPAN ms or more after it. DETAIL=x lists
 * every press whose own frames' link is below x.
 *
 *   [SPAN=150] [DETAIL=0.45] npx tsx scripts/eval/capture-footage/span-link.ts [--split train|test] [--search 2]
 *
 * The answer, run of 2026-12-06 on both splits (docs/signals.md, "Known misses", rung 4‴): the
 * blend shows across 150 ms, but genuine footage comes too close to it (a chessboard waved by hand,
 * a coin before a fixed camera), and a blend twelve frames long passes almost always, so it is not
 * shipped.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { blockMotion, globalShift, type GreyFrame } from "../../../src/analysis/burst/measures";
import { frameLink } from "../../../src/analysis/burst/frame-chain";
import { pageFramesOf, pressesIn, readClip, type PressFrames } from "./frames";
import { cachePath, readManifest, type Clip } from "./sources";

const { values: args } = parseArgs({ options: { split: { type: "string" }, search: { type: "string", default: "2" } } });
const SEARCH = Number(args.search);

interface Press extends PressFrames {
  clip: Clip;
}

const pressesOf = (clip: Clip): Press[] => pressesIn(pageFramesOf(readClip(clip, 8))).map((p) => ({ ...p, clip }));

const SPAN = Number(process.env.SPAN ?? 0);

/** Each consecutive pair's shift (the median of its blocks'), index i for the pair (i - 1, i). */
function pairShifts(frames: GreyFrame[]): Array<{ dx: number; dy: number }> {
  return frames.map((f, i) => {
    if (i === 0) return { dx: 0, dy: 0 };
    const blocks = blockMotion(frames[i - 1]!, f, { dx: 0, dy: 0 }, 4);
    return blocks.length > 0 ? globalShift(blocks) : { dx: 0, dy: 0 };
  });
}

/** With SPAN set: the weakest link between each frame and the first one SPAN ms or more after it (up to the shutter's); else the first frame against the shutter's. */
function spanLink(frames: GreyFrame[], to: number): number | null {
  const shifts = pairShifts(frames);
  if (!SPAN) return link(frames, shifts, 0, to);
  let worst: number | null = null;
  for (let i = 0; i < to; i += 1) {
    const j = frames.findIndex((f, k) => k > i && f.t - frames[i]!.t >= SPAN);
    if (j === -1 || j > to) break;
    const l = link(frames, shifts, i, j);
    if (l !== null) worst = Math.min(worst ?? 1, l);
  }
  return worst;
}

/** Frame `from` against frame `to` at the sum of the pairs' shifts between them ± SEARCH px (frame-chain.ts). */
function link(frames: GreyFrame[], shifts: ReadonlyArray<{ dx: number; dy: number }>, from: number, to: number): number | null {
  const total = shifts.slice(from + 1, to + 1).reduce((t, s) => ({ dx: t.dx + s.dx, dy: t.dy + s.dy }), { dx: 0, dy: 0 });
  return frameLink(frames[from]!, frames[to]!, total, SEARCH);
}

function faded(donor: Press, picture: Uint8Array, steps: number): Press {
  const frames = donor.frames.map((f, i) => {
    const weight = Math.max(0, 1 - Math.abs(i - donor.shutter) / steps);
    return weight === 0 ? f : { ...f, luma: Uint8Array.from(f.luma, (v, p) => Math.round(weight * picture[p]! + (1 - weight) * v)) };
  });
  return { ...donor, frames };
}

const clips = readManifest().filter((c) => (!args.split || c.split === args.split) && existsSync(cachePath(c)));
const all = clips.flatMap((clip) => pressesOf(clip));
const groups: Array<[string, (c: Clip) => boolean]> = [
  ["genuine hand-held or mounted", (c) => c.category !== "display" && c.camera !== "static"],
  ["fixed cameras", (c) => c.category === "static"],
  ["displays", (c) => c.category === "display"],
];
const line = (label: string, xs: Array<number | null>) => {
  const v = xs.flatMap((x) => (x === null ? [] : [x])).sort((p, q) => p - q);
  const at = (q: number) => v[Math.min(v.length - 1, Math.floor(q * v.length))]?.toFixed(3);
  const below = (x: number) => v.filter((m) => m < x).length;
  console.log(`${label}: n ${xs.length}, measured ${v.length}; min ${at(0)} p1 ${at(0.01)} p5 ${at(0.05)} median ${at(0.5)} max ${at(1)}; below 0.3 ${below(0.3)}, 0.4 ${below(0.4)}, 0.5 ${below(0.5)}, 0.6 ${below(0.6)}`);
};
console.log(`span link ±${SEARCH} px, ${clips.length} clips${args.split ? ` (${args.split})` : ""}`);
for (const [label, inGroup] of groups) {
  const own = all.filter((p) => inGroup(p.clip));
  line(`${label}, own frames`, own.map((p) => spanLink(p.frames, p.shutter)));
  for (const steps of [6, 12]) {
    line(
      `${label}, photo faded over ${steps} frames into another clip's`,
      own.map((p, i) => {
        const size = (q: Press) => `${q.frames[0]!.width}x${q.frames[0]!.height}`;
        const donors = all.filter((q) => q.clip.source !== p.clip.source && size(q) === size(p));
        if (donors.length === 0) return null;
        const donor = donors[(i * 7) % donors.length]!;
        const f = faded(donor, p.frames[p.shutter]!.luma, steps);
        return spanLink(f.frames, f.shutter);
      }),
    );
  }
}
if (process.env.DETAIL) {
  for (const p of all) {
    const s = spanLink(p.frames, p.shutter);
    if (s !== null && s < Number(process.env.DETAIL)) console.log(`  ${p.clip.name} (${p.clip.category}, ${p.clip.camera}): ${s.toFixed(3)} over ${Math.round(p.frames[p.shutter]!.t - p.frames[0]!.t)} ms, ${p.shutter} steps`);
  }
}
