/**
 * One capture's offline analysis in Node, as the analysis Worker runs it on ../shared/perf's P1 photo
 * (a 1.49 MB noise JPEG made the same way): the mean wall time over N analyses and each stage's share
 * (`timings_ms`). For finding work to remove; CPU inside workerd is bench/phase-cpu.mjs's.
 *
 *   npx tsx bench/analysis-cpu.ts        # N=20; N=40 node --cpu-prof --import tsx bench/analysis-cpu.ts for a profile
 */
import jpeg from "jpeg-js";
import { randomBytes } from "node:crypto";
import { analyzeImage } from "../src/analysis/analyze-image";
import { evidenceThumbnail } from "../src/analysis/thumbnail";
function noisyJpeg(targetBytes: number) {
  let w = 1200, h = 900;
  for (;;) {
    const data = Buffer.alloc(w * h * 4);
    const rnd = randomBytes(w * h);
    for (let i = 0; i < w * h; i++) { const v = rnd[i]!; data[i * 4] = v; data[i * 4 + 1] = (v * 3) & 255; data[i * 4 + 2] = (v * 7) & 255; data[i * 4 + 3] = 255; }
    const out = Buffer.from(jpeg.encode({ data, width: w, height: h }, 80).data);
    if (out.length >= targetBytes * 0.9) return out;
    w = Math.round(w * 1.2); h = Math.round(h * 1.2);
  }
}
const img = new Uint8Array(noisyJpeg(1024 * 1024));
console.log("bytes", img.length);
const N = Number(process.env.N ?? 20);
const timings: Record<string, number> = {};
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const r = await analyzeImage(
    { captureId: "cap_" + i, tenantId: "t", bytes: img, mediaType: "image/jpeg", uploaded: false, depthPng: null, channel: "hosted_page", captureIntegrity: null, location: null, clientCapturedAt: null, required: ["screen", "ai", "reuse", "depth"] as never },
    { searchHistory: async () => ({ matches: [], shared: false }) as never, vision: null, web: null, trustedSigners: [], thumbnail: async (d) => { await evidenceThumbnail(d, img); } },
  );
  for (const [k, v] of Object.entries(r.timings_ms)) timings[k] = (timings[k] ?? 0) + v / N;
}
console.log("per analysis ms", ((performance.now() - t0) / N).toFixed(1), timings);
