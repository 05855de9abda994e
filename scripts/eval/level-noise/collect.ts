/**
 * Does the native patches' temporal noise depend on the light level, and does that tell a camera
 * from a picture with noise added (docs/signals.md, "Signal-dependent noise tried"; issue 41, ladder
 * rung 3)? Per shutter press, the residual noise of the aligned patch pairs by level bin
 * (measure.ts), with the decision the service takes today:
 *
 * - footage nobody here filmed (capture-footage/manifest.tsv, both splits; read as evaluate.ts reads it);
 * - Debian's genuine videos and the rung-3 attacks made from Debian's photos (as capture-burst.ts makes them).
 *
 *   npx tsx scripts/eval/level-noise/collect.ts --part footage|debian --out FILE.jsonl
 *
 * One JSON line per press; report.ts reads them back and chooses thresholds on the
 * training split.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { noiseByLevel } from "./measure";
import { movingScreen } from "../../capture-fixtures/attacks";
import { pageFrames, PHONE_CAMERA, pressAt, type Press } from "../../capture-fixtures/page-frames";
import { GENUINE, SCREEN_PHOTOS } from "../../capture-fixtures/sources";
import { debianFile, HEIGHT, readGrey, readPhotoGrey, WIDTH, type GreyVideo } from "../../capture-fixtures/video";
import { codesOf, decidePress, isAnomaly, isUnassessed } from "../burst-press";
import { pageFramesOf, readClip } from "../capture-footage/frames";
import { cachePath, readManifest, sequence } from "../capture-footage/sources";

const { values: args } = parseArgs({ options: { part: { type: "string", default: "footage" }, out: { type: "string" }, seconds: { type: "string", default: "8" } } });
const lines: string[] = [];
/** The measure's variants: as the noise rules read the pairs (exposure taken out), sub-pixel motion taken out too, and the flat pixels chosen on 3 × 3 means (noise no edge). */
const VARIANTS: Array<[string, { subpixel?: boolean; smoothFlat?: boolean }]> = [
  ["bins", {}],
  ["bins_subpixel", { subpixel: true }],
  ["bins_subpixel_smooth", { subpixel: true, smoothFlat: true }],
];

async function record(press: Press, about: Record<string, unknown>): Promise<void> {
  const { decision, measures } = await decidePress(press);
  lines.push(
    JSON.stringify({
      ...about,
      anomaly: isAnomaly(decision),
      unassessed: isUnassessed(decision),
      codes: codesOf(decision),
      noise: measures.temporal_noise,
      aligned_pairs: measures.aligned_pairs,
      ...Object.fromEntries(VARIANTS.map(([name, options]) => [name, noiseByLevel(press.patches, undefined, options).map((b) => ({ level: Math.round(b.level * 10) / 10, n: b.n, sigma: Math.round(b.sigma * 1000) / 1000 }))])),
    }),
  );
}

function pressesOf(frames: ReturnType<typeof pageFrames>, native: { width: number; height: number }, fromMs: number, stepMs: number): Press[] {
  const out: Press[] = [];
  for (let t = fromMs; t <= frames.at(-1)!.t - 150; t += stepMs) {
    const p = pressAt(frames, t, PHONE_CAMERA, native);
    if (p) out.push(p);
  }
  return out;
}

if (args.part === "footage") {
  for (const clip of readManifest()) {
    const file = cachePath(clip);
    if (!existsSync(file) || (sequence(clip) && readdirSync(file).length === 0)) continue;
    const video = readClip(clip, Number(args.seconds));
    for (const press of pressesOf(pageFramesOf(video), video, 1000, 500)) await record(press, { part: "footage", clip: clip.name, source: clip.source, split: clip.split, category: clip.category, camera: clip.camera });
    console.error(`${clip.split} ${clip.name}`);
  }
} else {
  for (const source of GENUINE) {
    const video = readGrey(debianFile(source.source), 20);
    for (const press of pressesOf(pageFrames(video), { width: WIDTH, height: HEIGHT }, 1000, 250)) await record(press, { part: "debian", group: `genuine ${source.name}`, camera: source.camera });
    console.error(source.name);
  }
  const photos = SCREEN_PHOTOS.map((p) => readPhotoGrey(debianFile(p), 640, 480));
  const attacks: Array<[string, (p: Uint8Array, seed: number) => GreyVideo]> = [
    ["warps, camera-shaped noise σ 1.5", (p, seed) => movingScreen(p, 640, 480, 30, 5, seed, 1.5, "camera-shaped")],
    ["warps, camera-shaped noise σ 3", (p, seed) => movingScreen(p, 640, 480, 30, 5, seed, 3, "camera-shaped")],
    ["warps, white noise σ 1.5", (p, seed) => movingScreen(p, 640, 480, 30, 5, seed)],
    ["warps, no noise", (p, seed) => movingScreen(p, 640, 480, 30, 5, seed, 0)],
  ];
  for (const [group, make] of attacks) {
    for (const [i, photo] of photos.entries()) {
      for (const seed of [1, 2, 3]) {
        const video = make(photo, 100 * i + seed);
        for (const press of pressesOf(pageFrames(video), { width: WIDTH, height: HEIGHT }, 1000, 500)) await record(press, { part: "attack", group, photo: i, seed });
      }
    }
    console.error(group);
  }
}
if (args.out) writeFileSync(args.out, `${lines.join("\n")}\n`);
