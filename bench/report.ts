/**
 * The evidence report's cost inside workerd (`npm run bench:report`): one fresh `wrangler dev` of
 * bench/worker.ts renders reports of a fully populated verification (every section, the map and the
 * QR code) with 20 photos, each a 480 × 360 evidence thumbnail (the size the analysis stores).
 * The thumbnail is encoded from a noisy gradient at the analysis's quality, larger than a real
 * photo's at that size (an upper bound on the PDF's bytes). After warming, it reads the workerd
 * processes' CPU per report (/proc, 10 ms ticks, over many reports), the isolate's heap after a full
 * garbage collection (V8 inspector) and the processes' peak resident set during the run.
 *
 *   npm run bench:report                    # 20 photos, 30 reports
 *   npm run bench:report -- --photos 3 --reports 50
 *   npm run bench:report -- --worst --concurrent 3   # the limits' worst case, the per-tenant bound in flight
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import jpeg from "jpeg-js";
import { freePort } from "../scripts/local-worker.mjs";
import { connectInspector } from "./lib/inspector";
import { load, machine, median } from "./lib/measure";
import { cpuMs, resetPeak, ROOT, startWorkerd, status, stopWorkerd } from "./lib/workerd";

const { values: args } = parseArgs({
  options: { photos: { type: "string", default: "20" }, reports: { type: "string", default: "30" }, worst: { type: "boolean", default: false }, concurrent: { type: "string", default: "1" } },
});
const PHOTOS = Number(args.photos);
const REPORTS = Number(args.reports);
/** Renders in flight at once in the isolate (the per-tenant bound is 3: REPORT_RENDERS). */
const CONCURRENT = Number(args.concurrent);
const MB = 1024 * 1024;

/** A noisy gradient; `--worst`: noise over the whole range, the largest JPEG a thumbnail of this size can be at the analysis's quality. */
function thumbnail(width = 480, height = 360): Uint8Array {
  const data = Buffer.alloc(width * height * 4);
  let seed = 2611;
  const spread = args.worst ? 256 : 48;
  const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % spread) - spread / 2;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = Math.max(0, Math.min(255, (x * 255) / width + noise()));
      data[i + 1] = Math.max(0, Math.min(255, (y * 255) / height + noise()));
      data[i + 2] = Math.max(0, Math.min(255, 128 + noise()));
      data[i + 3] = 255;
    }
  }
  return new Uint8Array(jpeg.encode({ data, width, height }, 80).data);
}

// bench/worker.ts bundles a Data module the decode benchmark fills; any bytes do for this one.
const held = join(ROOT, ".cache/bench-input.bin");
if (!existsSync(held)) {
  mkdirSync(join(ROOT, ".cache"), { recursive: true });
  writeFileSync(held, new Uint8Array(1));
}

const image = thumbnail();
const port = await freePort();
const inspectorPort = await freePort();
const workerd = await startWorkerd(port, { inspectorPort });
const render = async () => {
  const res = await fetch(`http://127.0.0.1:${port}/report?photos=${PHOTOS}${args.worst ? "&worst=1" : ""}`, { method: "POST", body: image });
  const body = (await res.json()) as { bytes?: number; error?: string };
  if (!res.ok || body.bytes === undefined) throw new Error(`report failed: ${res.status} ${JSON.stringify(body)}`);
  return body.bytes;
};
try {
  for (let i = 0; i < 3; i++) await render();
  const inspector = await connectInspector(inspectorPort);
  const before = await inspector.heapAfterGc();
  resetPeak(workerd.pids);
  const rssBefore = status(workerd.pids, "VmRSS");
  const cpu0 = cpuMs(workerd.pids);
  const walls: number[] = [];
  let bytes = 0;
  // The heap sampled while the renders run, answered whenever the isolate yields: as it is (garbage
  // included), and live (after the full collection a heap snapshot forces; fewer samples, each a
  // lower bound of the live peak, which is what a Worker's 128 MB limits).
  let sampling = true;
  let heapPeak = 0;
  let livePeak = 0;
  let liveSamples = 0;
  const sampler = (async () => {
    for (let i = 0; sampling; i++) {
      const now = i % 4 === 3 ? await inspector.heapAfterGc() : await inspector.heapNow();
      const size = now.usedSize + now.backingStorageSize;
      heapPeak = Math.max(heapPeak, size);
      if (i % 4 === 3) {
        livePeak = Math.max(livePeak, size);
        liveSamples += 1;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  let started = 0;
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      while (started < REPORTS) {
        started += 1;
        const t0 = performance.now();
        bytes = await render();
        walls.push(performance.now() - t0);
      }
    }),
  );
  sampling = false;
  await sampler;
  const cpu = (cpuMs(workerd.pids) - cpu0) / REPORTS;
  const peak = status(workerd.pids, "VmHWM");
  const after = await inspector.heapAfterGc();
  inspector.close();
  console.log(`Evidence report${args.worst ? " at the worst case the input limits allow (50 steps, every text at its longest)" : ""}, ${PHOTOS} photos (${(image.length / 1024).toFixed(0)} KB thumbnail each), ${REPORTS} reports in one isolate, ${CONCURRENT} at once — ${machine()}, load ${load()}`);
  console.log(`  PDF                          ${(bytes / 1024).toFixed(0)} KB`);
  console.log(`  workerd CPU per report       ${cpu.toFixed(0)} ms`);
  console.log(`  wall per report (median)     ${median(walls).toFixed(0)} ms`);
  console.log(`  heap after GC, before/after  ${(before.usedSize / MB).toFixed(1)} / ${(after.usedSize / MB).toFixed(1)} MB (+ backing stores ${(before.backingStorageSize / MB).toFixed(1)} / ${(after.backingStorageSize / MB).toFixed(1)} MB)`);
  console.log(`  heap while rendering, peak    ${(heapPeak / MB).toFixed(1)} MB sampled (JS + backing stores, garbage included)`);
  console.log(`  live heap while rendering     ${(livePeak / MB).toFixed(1)} MB, the largest of ${liveSamples} samples after a full collection`);
  console.log(`  resident set, start → peak   ${(rssBefore / MB).toFixed(0)} → ${(peak / MB).toFixed(0)} MB (every workerd process)`);
} finally {
  await stopWorkerd(workerd);
}
