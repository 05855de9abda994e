/**
 * Can consecutive native patches be tied to each other? (docs/signals.md, "Threat model", rung 3b.)
 * Since capture-burst/8 the first patch must be the photo's centre; a script can still send the
 * photo's centre first and a real camera's patches of anything after it. Tying each patch to the one
 * before it would stop that, if genuine consecutive patches are always similar once aligned and
 * unrelated ones never are. This measures both on the footage (manifest.tsv; build.ts first):
 *
 * - genuine: each press's own patches (the page's: the photo's frame at the shutter, then the next
 *   five frames at the clip's native resolution, capped at 960 px);
 * - borrowed: the same press's first patch, then another clip's five (a real camera's, another scene).
 *
 * For each consecutive pair: the motion predicted from the reduced frames (the whole frame's shift
 * over the last frame pair before the shutter, scaled to native pixels; then the pair before), the
 * best correlation of 4 × 4 block texture (patch-agreement.ts) within ±R px of it over the two
 * patches' overlap, and whether the prediction is too far to search (beyond MAX_SHIFT, 24 px). Per
 * press, the least similar pair.
 *
 *   npx tsx scripts/eval/capture-footage/patch-chain.ts [--split train|test] [--radius 8] [--max-shift 24] [--detail X]
 *
 * The answer, run of 2026-12-06 on the training split (docs/signals.md, rung 3b): no threshold on
 * the least similar pair both keeps every genuine press and catches most borrowed patches, because
 * moving subjects, a car's forward motion and a display waved before a webcam change the centre
 * in ways the frames' motion does not predict. So it is not shipped.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { burstAround, NOISE_PATCHES } from "../../../client/capture-page/integrity/frames";
import { blockMotion, globalShift, PATCH_SIDE } from "../../../src/analysis/burst/measures";
import { blockTexture, correlation, MIN_TEXTURE, spread } from "../../../src/analysis/burst/texture";
import type { PageFrame } from "../../capture-fixtures/page-frames";
import { pageFramesOf, readClip } from "./frames";
import { cachePath, readManifest, type Clip } from "./sources";

const { values: args } = parseArgs({ options: { split: { type: "string" }, radius: { type: "string", default: "8" }, "max-shift": { type: "string", default: "24" }, seconds: { type: "string", default: "8" }, detail: { type: "string" } } });
const R = Number(args.radius);

interface PressPatches {
  clip: Clip;
  patches: Uint8Array[];
  /** Native px per reduced px. */
  scale: number;
  /** The whole frame's shift (reduced px per frame) over the last frame pair before the shutter. */
  velocity: { dx: number; dy: number };
}

type Pair = { score: number; predicted: { dx: number; dy: number }; found: { dx: number; dy: number } } | { tooFar: true } | { plain: true };

const MAX_SHIFT = Number(args["max-shift"]);

/** Patch b against patch a shifted by (dx, dy): their overlap's block texture, correlated. */
function overlapScore(a: Uint8Array, b: Uint8Array, dx: number, dy: number): number {
  const side = PATCH_SIDE;
  const x0 = Math.max(0, -dx);
  const y0 = Math.max(0, -dy);
  const w = Math.floor((Math.min(side, side - dx) - x0) / 4) * 4;
  const h = Math.floor((Math.min(side, side - dy) - y0) / 4) * 4;
  return correlation(blockTexture(a, side, x0, y0, w, h), blockTexture(b, side, x0 + dx, y0 + dy, w, h));
}

/** Patch b against patch a, searched within ±R of `predicted` over their overlap. */
function pairScore(a: Uint8Array, b: Uint8Array, predicted: { dx: number; dy: number }): Pair {
  if (spread(blockTexture(a, PATCH_SIDE, 0, 0, PATCH_SIDE)) < MIN_TEXTURE) return { plain: true };
  const [px, py] = [Math.round(predicted.dx), Math.round(predicted.dy)];
  if (Math.abs(px) + R > MAX_SHIFT || Math.abs(py) + R > MAX_SHIFT) return { tooFar: true };
  let best = -1;
  let found = { dx: px, dy: py };
  for (let dy = py - R; dy <= py + R; dy += 1) {
    for (let dx = px - R; dx <= px + R; dx += 1) {
      const score = overlapScore(a, b, dx, dy);
      if (score > best) [best, found] = [score, { dx, dy }];
    }
  }
  return { score: Math.round(best * 1000) / 1000, predicted, found };
}

/** Every pair of a press: the first predicted from the frames, each next one from the pair before it. */
function chain(p: PressPatches, patches = p.patches): Pair[] {
  const pairs: Pair[] = [];
  let predicted = { dx: p.velocity.dx * p.scale, dy: p.velocity.dy * p.scale };
  for (let i = 1; i < patches.length; i += 1) {
    const pair = pairScore(patches[i - 1]!, patches[i]!, predicted);
    pairs.push(pair);
    if ("found" in pair) predicted = pair.found;
  }
  return pairs;
}

function pressesOf(clip: Clip): PressPatches[] {
  const video = readClip(clip, Number(args.seconds));
  const frames: PageFrame[] = pageFramesOf(video);
  const out: PressPatches[] = [];
  for (let t = 1000; t <= frames.at(-1)!.t - 150; t += 500) {
    const seen = frames.filter((f) => f.t <= t);
    const onScreen = seen.at(-1);
    if (!onScreen || !burstAround(frames, t) || seen.length < 2) continue;
    const after = frames.filter((f) => f.t > t).slice(0, NOISE_PATCHES - 1);
    const [a, b] = [seen.at(-2)!, onScreen];
    const blocks = blockMotion(a, b, { dx: 0, dy: 0 }, 4);
    out.push({ clip, patches: [onScreen, ...after].map((f) => f.patch), scale: video.width / onScreen.width, velocity: blocks.length > 0 ? globalShift(blocks) : { dx: 0, dy: 0 } });
  }
  return out;
}

const clips = readManifest().filter((c) => (!args.split || c.split === args.split) && existsSync(cachePath(c)));
const all = clips.flatMap((clip) => pressesOf(clip));
const least = (pairs: Pair[]) => {
  const scores = pairs.flatMap((p) => ("score" in p ? [p.score] : []));
  return { min: scores.length > 0 ? Math.min(...scores) : null, tooFar: pairs.some((p) => "tooFar" in p) };
};
const summary = (label: string, rows: Array<{ min: number | null; tooFar: boolean }>) => {
  const mins = rows.flatMap((r) => (r.min === null ? [] : [r.min])).sort((x, y) => x - y);
  const at = (q: number) => mins[Math.min(mins.length - 1, Math.floor(q * mins.length))]?.toFixed(3);
  const below = (x: number) => mins.filter((m) => m < x).length;
  console.log(
    `${label}: presses ${rows.length}, measured ${mins.length}, a pair too far ${rows.filter((r) => r.tooFar).length}; least similar pair min ${at(0)} p1 ${at(0.01)} p5 ${at(0.05)} median ${at(0.5)} max ${at(1)}; below 0.5 ${below(0.5)}, 0.6 ${below(0.6)}, 0.7 ${below(0.7)}, 0.8 ${below(0.8)}`,
  );
};
console.log(`±${R} px around the predicted motion, over the overlap (shifts up to ${MAX_SHIFT} px), ${clips.length} clips${args.split ? ` (${args.split})` : ""}`);
for (const group of [
  ["genuine hand-held or mounted", (c: Clip) => c.category !== "display" && c.camera !== "static"],
  ["fixed cameras", (c: Clip) => c.category === "static"],
  ["displays", (c: Clip) => c.category === "display"],
] as const) {
  const own = all.filter((p) => group[1](p.clip));
  summary(`${group[0]}, own patches`, own.map((p) => least(chain(p))));
  // --detail X: every genuine press whose least similar pair is below X, pair by pair.
  if (args.detail) {
    for (const p of own) {
      const pairs = chain(p);
      const m = least(pairs).min;
      if (m !== null && m < Number(args.detail)) console.log(`  ${p.clip.name} (×${p.scale.toFixed(1)}, velocity ${p.velocity.dx.toFixed(2)},${p.velocity.dy.toFixed(2)}): ${pairs.map((q) => ("score" in q ? `${q.score} at ${q.found.dx},${q.found.dy} (predicted ${q.predicted.dx.toFixed(1)},${q.predicted.dy.toFixed(1)})` : "tooFar" in q ? "too far" : "plain")).join(" | ")}`);
    }
  }
  const others = all.filter((p) => p.clip.source !== own[0]?.clip.source);
  summary(
    `${group[0]}, first patch own, then another clip's`,
    own.map((p, i) => {
      const donors = others.filter((q) => q.clip.source !== p.clip.source);
      const donor = donors[(i * 7) % donors.length]!;
      return least(chain(p, [p.patches[0]!, ...donor.patches.slice(1)]));
    }),
  );
}
