/**
 * One isolate's memory across many analyses (`npm run bench:memory`), measured inside the isolate:
 * the decoder fuzz's table (bench/fuzz.ts) shows workerd's resident set growing 170-231 MB over a
 * run; this says whether the isolate keeps what it allocated (a leak) or the process only keeps
 * pages its allocators reserved (no leak). One fresh `wrangler dev` of bench/worker.ts with its V8
 * inspector; after warming it, every `--every` requests the heap is read after a full garbage
 * collection (bench/lib/inspector.ts: live JavaScript objects, the V8 heap reserved, ArrayBuffer
 * backing stores) beside workerd's resident set (each of its processes) and its peak. A reading
 * takes a heap snapshot, which costs the process memory of its own: compare runs with the same
 * `--every`.
 *
 *   npm run bench:memory                                   # 1000 whole analyses of the committed samples
 *   npm run bench:memory -- --fuzz progressive-jpeg         # the fuzz run's inputs of one target instead
 *   npm run bench:memory -- --samples dune.heic             # one sample only (which codec keeps what)
 *   npm run bench:memory -- --control                       # requests refused at once (no decode): the runtime's own share
 *   npm run bench:memory -- --analyses 2000 --every 200
 *
 * Counts of bytes, not times: a loaded machine changes how long it takes, not what the isolate holds.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "../scripts/local-worker.mjs";
import { FUZZ_TARGETS, fuzzInput, fuzzSeeds, mediaTypeOf, type FuzzTarget } from "../test/helpers/fuzz";
import { connectInspector, type HeapUsage } from "./lib/inspector";
import { load, machine } from "./lib/measure";
import { resetPeak, ROOT, startWorkerd, status, stopWorkerd } from "./lib/workerd";

const { values: args } = parseArgs({
  options: {
    analyses: { type: "string", default: "1000" },
    every: { type: "string", default: "100" },
    fuzz: { type: "string" },
    samples: { type: "string" },
    control: { type: "boolean", default: false },
  },
});
const TOTAL = Number(args.analyses);
const EVERY = Number(args.every);
const RUN_SEED = 2611;
const MB = 1024 * 1024;

/** The committed samples, each format the decoders take, whole analyses of them in turn. */
const ALL_SAMPLES: Array<[string, string]> = [
  ["dune.jpg", "image/jpeg"],
  ["dune-progressive.jpg", "image/jpeg"],
  ["dune.png", "image/png"],
  ["dune-interlaced.png", "image/png"],
  ["dune.webp", "image/webp"],
  ["dune-lossless.webp", "image/webp"],
  ["dune.heic", "image/heic"],
];

const SAMPLES = args.samples ? ALL_SAMPLES.filter(([name]) => args.samples!.split(",").includes(name)) : ALL_SAMPLES;

interface Checkpoint {
  requests: number;
  heap: HeapUsage;
  /** workerd's resident set now (all its processes, and each), and its peak since the warm-up */
  rss: number;
  rssByProcess: number[];
  peak: number;
}

async function main(): Promise<void> {
  const target = args.fuzz as FuzzTarget | undefined;
  if (target !== undefined && !FUZZ_TARGETS.includes(target)) throw new Error(`--fuzz: one of ${FUZZ_TARGETS.join(", ")}`);
  const held = join(ROOT, ".cache/bench-input.bin");
  if (!existsSync(held)) writeFileSync(held, new Uint8Array(1));
  const photo = (name: string) => new Uint8Array(readFileSync(join(ROOT, "test/fixtures/photos", name)));
  const seeds = target ? (await fuzzSeeds(async (name) => photo(name)))[target] : [];
  const request = (i: number): { path: string; body: Uint8Array } => {
    // Refused from the media type before anything is read: a request that does no work of ours.
    if (args.control) return { path: "/decode?type=image/gif", body: new Uint8Array(1) };
    if (target) return { path: `/fuzz?target=${target}`, body: fuzzInput(seeds, mediaTypeOf(target), RUN_SEED, i).bytes };
    const [name, type] = SAMPLES[i % SAMPLES.length]!;
    return { path: `/analyze?type=${encodeURIComponent(type)}`, body: photo(name) };
  };

  const loadBefore = load();
  const inspectorPort = await freePort();
  const w = await startWorkerd(await freePort(), { inspectorPort });
  const inspector = await connectInspector(inspectorPort);
  const checkpoints: Checkpoint[] = [];
  try {
    const post = async (i: number) => {
      const { path, body } = request(i);
      const res = await fetch(`http://127.0.0.1:${w.port}${path}`, { method: "POST", body });
      await res.text();
    };
    // Warm: every sample (or seed) once, so each codec is loaded and compiled before the first reading.
    for (let i = 0; i < (target ? seeds.length : SAMPLES.length); i += 1) {
      if (target) await fetch(`http://127.0.0.1:${w.port}/fuzz?target=${target}`, { method: "POST", body: seeds[i] }).then((r) => r.text());
      else await post(i);
    }
    resetPeak(w.pids);
    const mark = async (requests: number) => {
      const heap = await inspector.heapAfterGc();
      checkpoints.push({ requests, heap, rss: status(w.pids, "VmRSS"), rssByProcess: w.pids.map((pid) => status([pid], "VmRSS")), peak: status(w.pids, "VmHWM") });
      console.error(`${requests}: used ${(heap.usedSize / MB).toFixed(2)} MB, backing ${(heap.backingStorageSize / MB).toFixed(2)} MB, rss ${(status(w.pids, "VmRSS") / MB).toFixed(1)} MB`);
    };
    await mark(0);
    for (let i = 0; i < TOTAL; i += 1) {
      await post(i);
      if ((i + 1) % EVERY === 0) await mark(i + 1);
    }
  } finally {
    inspector.close();
    await stopWorkerd(w);
  }

  const first = checkpoints[1] ?? checkpoints[0]!;
  const last = checkpoints[checkpoints.length - 1]!;
  const held_ = (c: Checkpoint) => c.heap.usedSize + c.heap.backingStorageSize;
  const what = args.control
    ? `${TOTAL} requests refused at once (no decode, no analysis: the runtime's own share)`
    : target
      ? `${TOTAL} fuzz inputs of ${target} (run seed ${RUN_SEED})`
      : `${TOTAL} whole offline analyses of the committed samples (${SAMPLES.map(([n]) => n).join(", ")}, in turn)`;
  console.log(`\n${new Date().toISOString()}  ${machine()}  load ${loadBefore} → ${load()}`);
  console.log(`One isolate, ${what}; heap after a full garbage collection every ${EVERY} (MB = 2^20 bytes):`);
  console.log("| requests | JS objects (used) | V8 heap reserved | ArrayBuffers | runtime objects | workerd resident (each process) | workerd peak since the warm-up |");
  console.log("|---:|---:|---:|---:|---:|---:|---:|");
  for (const c of checkpoints) {
    const mb = (n: number) => (n / MB).toFixed(2);
    console.log(
      `| ${c.requests} | ${mb(c.heap.usedSize)} | ${mb(c.heap.totalSize)} | ${mb(c.heap.backingStorageSize)} | ${mb(c.heap.embedderHeapUsedSize)} | ${(c.rss / MB).toFixed(1)} (${c.rssByProcess.map((r) => (r / MB).toFixed(1)).join(" + ")}) | ${(c.peak / MB).toFixed(1)} |`,
    );
  }
  console.log(
    `What the isolate holds (objects and buffers) from request ${first.requests} to ${last.requests}: ${((held_(last) - held_(first)) / MB).toFixed(2)} MB; workerd's resident set: ${((last.rss - first.rss) / MB).toFixed(1)} MB.`,
  );
  console.log(`JSON ${JSON.stringify({ date: new Date().toISOString(), machine: machine(), what, every: EVERY, checkpoints })}`);
}

await main();
