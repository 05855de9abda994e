/**
 * Evaluation of the offline signals over a labelled set this script generates (no fixtures):
 * recaptures through simulated pixel grids at several pitches, angles and JPEG qualities; marked and
 * unmarked generator outputs; resized, recompressed, cropped and mirrored reuse; planar and
 * non-planar depth maps. Prints a markdown table; `--write` replaces the table in docs/signals.md.
 *
 *   npm run eval:signals            # print
 *   npm run eval:signals -- --write # update docs/signals.md
 */
import { readFileSync, writeFileSync } from "node:fs";
import { readMetadata } from "../src/analysis/metadata";
import { decodeImage } from "../src/analysis/pixels";
import { detectAiProvenance } from "../src/analysis/signals/ai-provenance";
import { analyzeDepth, parseDepthPng } from "../src/analysis/signals/depth-plane";
import { dhash64, hammingDistance, NEAR_DUPLICATE_MAX_DISTANCE } from "../src/analysis/signals/perceptual-hash";
import { detectScreen, screenTileRects } from "../src/analysis/signals/screen-moire";
import { DigitalSourceType, makeTestSigner, signJpeg } from "../test/helpers/c2pa";
import {
  crop,
  encodeDepthPng,
  encodeJpeg,
  encodePngRgb,
  exifTiff,
  insertSegment,
  mirror,
  naturalScene,
  recapture,
  resize,
  rng,
  stripes,
  xmpSegment,
  xmpWithSourceType,
  type Rgb,
} from "../test/helpers/synth";

interface Row {
  signal: string;
  case: string;
  /** true: the signal should flag these; false: it should not. */
  positive: boolean;
  n: number;
  flagged: number;
}

const rows: Row[] = [];
async function record(signal: string, name: string, positive: boolean, pending: Array<boolean | Promise<boolean>>): Promise<void> {
  const outcomes = await Promise.all(pending);
  rows.push({ signal, case: name, positive, n: outcomes.length, flagged: outcomes.filter(Boolean).length });
}

const W = 512;
const H = 384;
const SEEDS = [11, 23, 37, 41, 53, 67];

async function screenFlag(image: Rgb, quality: number): Promise<boolean> {
  const px = await decodeImage(encodeJpeg(image, quality), "image/jpeg", { tiles: screenTileRects });
  return detectScreen(px, null).screen_detected;
}

async function evaluateScreen(): Promise<void> {
  const scenes = SEEDS.map((s) => naturalScene(W, H, s));
  for (const q of [95, 85, 70]) await record("screen_detection", `natural scene, JPEG q${q}`, false, scenes.map((s) => screenFlag(s, q)));
  await record("screen_detection", "stripes (period 5 and 8 px), q85", false, scenes.flatMap((s) => [screenFlag(stripes(s, 5), 85), screenFlag(stripes(s, 8), 85)]));
  for (const pitch of [3, 4, 5, 6, 8]) {
    const outcomes: Array<Promise<boolean>> = [];
    for (const angle of [0, 2, 7, 15]) for (const s of scenes.slice(0, 3)) outcomes.push(screenFlag(recapture(s, pitch, angle, s.data[0]!), 85));
    await record("screen_detection", `recapture, pitch ${pitch} px, angles 0/2/7/15°, q85`, true, outcomes);
  }
  for (const q of [95, 70, 50]) {
    const outcomes = scenes.slice(0, 4).flatMap((s) => [4, 6].map((p) => screenFlag(recapture(s, p, 5), q)));
    await record("screen_detection", `recapture, pitch 4/6 px at 5°, JPEG q${q}`, true, outcomes);
  }
  for (const factor of [2, 4]) {
    const outcomes = scenes.slice(0, 4).flatMap((s) => [3, 5].map((p) => screenFlag(resize(recapture(s, p, 5), Math.round(W / factor), Math.round(H / factor)), 85)));
    await record("screen_detection", `recapture downscaled ${factor}× (pitch 3/5 px)`, true, outcomes);
  }
}

async function aiFlag(bytes: Uint8Array, mediaType: string): Promise<boolean> {
  return detectAiProvenance(await readMetadata(bytes, mediaType, [])).label === "likely_ai";
}

async function evaluateAi(): Promise<void> {
  const scenes = SEEDS.map((s) => naturalScene(160, 120, s));
  const signer = await makeTestSigner("Eval Generator");
  const marked = async (s: Rgb, i: number): Promise<[Uint8Array, string]> => {
    switch (i % 5) {
      case 0:
        return [encodePngRgb(s, { parameters: `prompt ${i}\nSteps: ${20 + i}, Sampler: Euler a, CFG scale: 7, Seed: ${i}` }), "image/png"];
      case 1:
        return [encodePngRgb(s, { prompt: "{}", workflow: "{}" }), "image/png"];
      case 2:
        return [insertSegment(encodeJpeg(s), 0xe1, xmpSegment(xmpWithSourceType("http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"))), "image/jpeg"];
      case 3:
        return [encodeJpeg(s, 90, exifTiff({ userComment: `x\nSteps: 30, Sampler: DPM++ 2M, Seed: ${i}` })), "image/jpeg"];
      default:
        return [await signJpeg(encodeJpeg(s), signer, DigitalSourceType.TrainedAlgorithmicMedia), "image/jpeg"];
    }
  };
  const markedOutcomes: boolean[] = [];
  for (let i = 0; i < 15; i += 1) {
    const [bytes, type] = await marked(scenes[i % scenes.length]!, i);
    markedOutcomes.push(await aiFlag(bytes, type));
  }
  await record("ai_detection", "generator output with provenance (SD, ComfyUI, XMP, UserComment, C2PA)", true, markedOutcomes);
  // The same outputs after a re-save that strips metadata: provenance cannot see them (by design).
  await record("ai_detection", "generator output re-saved without metadata", true, await Promise.all(scenes.map((s) => aiFlag(encodeJpeg(s, 85), "image/jpeg"))));
  const cameras = await Promise.all(scenes.map((s, i) => aiFlag(encodeJpeg(s, 90, exifTiff({ make: "Google", model: `Pixel ${i}`, software: "HDR+ 1.0", dateTimeOriginal: "2026:05:01 10:00:00" })), "image/jpeg")));
  await record("ai_detection", "camera photos (EXIF, no generator marker)", false, cameras);
}

async function evaluateReverse(): Promise<void> {
  const originals = Array.from({ length: 12 }, (_, i) => naturalScene(400, 300, 100 + i));
  const hash = async (bytes: Uint8Array, type = "image/jpeg") => dhash64((await decodeImage(bytes, type))!.overview);
  const base = await Promise.all(originals.map((o) => hash(encodeJpeg(o, 92))));
  const matches = (variant: (o: Rgb) => Uint8Array) => originals.map(async (o, i) => hammingDistance(base[i]!, await hash(variant(o))) <= NEAR_DUPLICATE_MAX_DISTANCE);
  await record("reverse_search", "same image recompressed (q60)", true, matches((o) => encodeJpeg(o, 60)));
  await record("reverse_search", "resized to 50% (q80)", true, matches((o) => encodeJpeg(resize(o, 200, 150), 80)));
  await record("reverse_search", "resized to 25% (q80)", true, matches((o) => encodeJpeg(resize(o, 100, 75), 80)));
  await record("reverse_search", "cropped 5% per side", true, matches((o) => encodeJpeg(crop(o, 20, 15, 360, 270), 85)));
  await record("reverse_search", "cropped 20% per side", true, matches((o) => encodeJpeg(crop(o, 80, 60, 240, 180), 85)));
  await record("reverse_search", "mirrored", true, matches((o) => encodeJpeg(mirror(o), 85)));
  const unrelated: boolean[] = [];
  for (let i = 0; i < base.length; i += 1) for (let j = i + 1; j < base.length; j += 1) unrelated.push(hammingDistance(base[i]!, base[j]!) <= NEAR_DUPLICATE_MAX_DISTANCE);
  await record("reverse_search", "unrelated image pairs", false, unrelated);
}

async function evaluateDepth(): Promise<void> {
  const planar: boolean[] = [];
  const scenes: boolean[] = [];
  for (const [i, noise] of [0.002, 0.005, 0.01, 0.015].entries()) {
    for (const tilt of [0, 0.8, 2]) {
      const r = rng(i * 10 + tilt);
      const png = encodeDepthPng(128, 96, (x, y) => {
        const z = 450 + x * tilt + y * tilt * 0.5;
        return z * (1 + (r() - 0.5) * 2 * noise * 1.7);
      });
      planar.push(analyzeDepth(parseDepthPng(png)).anomaly);
    }
  }
  await record("depth", "planar maps (tilts 0–2 mm/px, noise 0.2–1.5%)", true, planar);
  for (const [i, height] of [40, 80, 150, 300].entries()) {
    for (const kind of ["bump", "step", "room"]) {
      const r = rng(100 + i);
      const png = encodeDepthPng(128, 96, (x, y) => {
        const noise = 1 + (r() - 0.5) * 0.01;
        if (kind === "bump") return (900 - Math.max(0, height - Math.hypot(x - 64, y - 48) * (height / 30))) * noise;
        if (kind === "step") return (x > 64 ? 900 : 900 - height) * noise;
        return (600 + Math.abs(x - 64) * (height / 20) + y * 2) * noise;
      });
      scenes.push(analyzeDepth(parseDepthPng(png)).anomaly);
    }
  }
  await record("depth", "non-planar scenes (object, step, room corner; relief 40–300 mm at 0.9 m)", false, scenes);
}

function table(): string {
  const lines = [
    "| signal | case | should flag | n | flagged | rate |",
    "|---|---|---|---:|---:|---:|",
    ...rows.map((r) => `| ${r.signal} | ${r.case} | ${r.positive ? "yes" : "no"} | ${r.n} | ${r.flagged} | ${((100 * r.flagged) / r.n).toFixed(0)}% |`),
    "",
    "| signal | detection rate (positives flagged) | false-positive rate (negatives flagged) |",
    "|---|---:|---:|",
  ];
  for (const signal of [...new Set(rows.map((r) => r.signal))]) {
    const pos = rows.filter((r) => r.signal === signal && r.positive);
    const neg = rows.filter((r) => r.signal === signal && !r.positive);
    const rate = (rs: Row[]) => {
      const n = rs.reduce((a, r) => a + r.n, 0);
      return n ? `${((100 * rs.reduce((a, r) => a + r.flagged, 0)) / n).toFixed(0)}% (n=${n})` : "–";
    };
    lines.push(`| ${signal} | ${rate(pos)} | ${rate(neg)} |`);
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const started = Date.now();
  await evaluateScreen();
  await evaluateAi();
  await evaluateReverse();
  await evaluateDepth();
  const out = `${table()}\n\n_Generated by \`npm run eval:signals\` (scripts/evaluate-signals.ts) in ${((Date.now() - started) / 1000).toFixed(0)} s._`;
  console.log(out);
  if (process.argv.includes("--write")) {
    const path = new URL("../docs/signals.md", import.meta.url);
    const doc = readFileSync(path, "utf8");
    const next = doc.replace(/<!-- eval:start -->[\s\S]*<!-- eval:end -->/, `<!-- eval:start -->\n${out}\n<!-- eval:end -->`);
    if (next === doc && !doc.includes(out)) throw new Error("docs/signals.md has no <!-- eval:start --> … <!-- eval:end --> block");
    writeFileSync(path, next);
  }
}

await main();
