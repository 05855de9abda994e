/**
 * Evaluation of the offline signals; docs/signals.md's tables are this script's output.
 * - screen_detection: real photographs from Debian packages (scripts/eval/fetch-photos.sh, fetched
 *   into .eval-photos/ on first run), the same photographs under periodic textures, and simulated
 *   recaptures of them (scripts/eval/screen.ts); real recaptures and real scenes from public
 *   repositories, test sources only (scripts/eval/screen-real.ts, scripts/eval/screen-data/).
 * - reverse_search: copies of the real photographs, every unrelated pair, low-texture images
 *   (scripts/eval/reuse.ts).
 * - ai_detection and depth: generated inputs (metadata markers, depth maps).
 * - the verdict a fresh deployment gives with the default signals: the real photographs as live
 *   captures of one tenant, then each re-saved into a later verification (scripts/eval/verdicts.ts).
 * Every rate carries a 95 % Wilson interval. `--write` replaces the block between
 * `<!-- eval:start -->` and `<!-- eval:end -->` in docs/signals.md and nothing else.
 *
 *   npm run eval:signals            # print
 *   npm run eval:signals -- --write # update docs/signals.md
 */
import { readFileSync, writeFileSync } from "node:fs";
import { readMetadata } from "../src/analysis/metadata";
import { detectAiProvenance } from "../src/analysis/signals/ai-provenance";
import { analyzeDepthPng } from "../src/analysis/signals/depth-plane";
import { DigitalSourceType, makeTestSigner, signJpeg } from "../test/helpers/c2pa";
import { encodeDepthPng, encodeJpeg, encodePngRgb, exifTiff, insertSegment, naturalScene, rng, xmpSegment, xmpWithSourceType, type Rgb } from "../test/helpers/synth";
import { loadPhotos } from "./eval/photos";
import { evaluateReuse } from "./eval/reuse";
import { evaluateScreen } from "./eval/screen";
import { evaluateRealScreens } from "./eval/screen-real";
import { evaluateVerdicts } from "./eval/verdicts";
import { tables, type Row } from "./eval/stats";

const rows: Row[] = [];
const push = (row: Row) => rows.push(row);
async function record(signal: string, name: string, positive: boolean, pending: Array<boolean | Promise<boolean>>): Promise<void> {
  const outcomes = await Promise.all(pending);
  rows.push({ signal, case: name, positive, n: outcomes.length, flagged: outcomes.filter(Boolean).length });
}

const SEEDS = [11, 23, 37, 41, 53, 67];

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
      planar.push(analyzeDepthPng(png).anomaly);
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
      scenes.push(analyzeDepthPng(png).anomaly);
    }
  }
  await record("depth", "non-planar scenes (object, step, room corner; relief 40–300 mm at 0.9 m)", false, scenes);
}

async function main(): Promise<void> {
  const started = Date.now();
  const photos = loadPhotos();
  await evaluateScreen(photos, push);
  const realScreens = await evaluateRealScreens(push);
  await evaluateAi();
  await evaluateReuse(photos, push);
  await evaluateDepth();
  const { notVerified, reuseMissed } = await evaluateVerdicts(photos, push);
  const run = new Date().toISOString().slice(0, 10);
  const missed = [
    realScreens.missingRepos.length > 0 ? ` Real recaptures not measured (snapshots not fetched): ${realScreens.missingRepos.join(", ")}.` : "",
    notVerified.length > 0 ? ` Genuine photographs not verified: ${notVerified.join("; ")}.` : "",
    reuseMissed.length > 0 ? ` Reused photographs not caught: ${reuseMissed.join("; ")}.` : "",
  ].join("");
  const out = `${tables(rows)}\n\n_Generated by \`npm run eval:signals\` (scripts/evaluate-signals.ts), run of ${run}, in ${((Date.now() - started) / 1000).toFixed(0)} s on ${photos.length} real photographs.${missed}_`;
  console.log(out);
  if (process.argv.includes("--write")) {
    const path = new URL("../docs/signals.md", import.meta.url);
    const doc = readFileSync(path, "utf8");
    if (!/<!-- eval:start -->[\s\S]*<!-- eval:end -->/.test(doc)) throw new Error("docs/signals.md has no <!-- eval:start --> … <!-- eval:end --> block");
    writeFileSync(path, doc.replace(/<!-- eval:start -->[\s\S]*<!-- eval:end -->/, () => `<!-- eval:start -->\n${out}\n<!-- eval:end -->`));
  }
}

await main();
