/**
 * Writes the documented staging test inputs (docs/signals.md, "Test inputs") into a folder, so an
 * integrator with a `pk_test_` key can drive every verdict path:
 *
 *   npm run test-inputs -- ./test-inputs
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeDepthPng, encodeJpeg, encodePngRgb, exifTiff, insertSegment, naturalScene, recapture } from "../test/helpers/synth";

const dir = process.argv[2] ?? "test-inputs";
mkdirSync(dir, { recursive: true });

const camera = exifTiff({ make: "Google", model: "Pixel 8", dateTimeOriginal: "2026:05:01 10:00:00" });
const scene = (seed: number) => naturalScene(1024, 768, seed);
const marker = (text: string, seed: number) => insertSegment(encodeJpeg(scene(seed), 90, camera), 0xfe, new TextEncoder().encode(`vfy-test: ${text}`));

const files: Record<string, Uint8Array> = {
  // Clean capture: verified (submit it twice, in two verifications, for reverse_search_match).
  "clean.jpg": encodeJpeg(scene(1), 90, camera),
  // Photo of a screen: a pixel-grid moiré → screen_detected.
  "screen.jpg": encodeJpeg(recapture(scene(2), 4, 3), 90),
  // Generator output with its Stable Diffusion parameters → ai_generated.
  "ai-generated.png": encodePngRgb(naturalScene(512, 384, 3), { parameters: "a parked car\nSteps: 25, Sampler: Euler a, CFG scale: 7, Seed: 1" }),
  // Vision judgements by marker (test environments only; needs signals_required "context" + a context).
  "context-mismatch.jpg": marker("context=mismatch", 4),
  "context-match.jpg": marker("context=match; object=match; condition=8", 5),
  "object-mismatch.jpg": marker("object=mismatch; condition=3", 6),
  // Depth maps to upload as `forensic_buffer`: flat → depth_anomaly, scene → 3-D.
  "depth-flat.png": encodeDepthPng(256, 192, (x, y) => 450 + x * 0.8 + y * 0.4),
  "depth-scene.png": encodeDepthPng(256, 192, (x, y) => 900 + y - Math.max(0, 250 - Math.hypot(x - 128, y - 96) * 4)),
};
for (const [name, bytes] of Object.entries(files)) {
  writeFileSync(join(dir, name), bytes);
  console.log(`${join(dir, name)}  ${bytes.length} bytes`);
}
