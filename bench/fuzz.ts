/**
 * The decoder fuzz, measured inside workerd: every decoder and metadata reader of
 * test/helpers/fuzz.ts on thousands of seeded truncated, overwritten and header-lying inputs, each
 * posted to bench/worker.ts (`/fuzz?target=…`) in a fresh `wrangler dev` per target. Per input:
 * workerd's CPU (utime + stime of its processes, 10 ms ticks), the wall time of the request, and
 * the peak of workerd's resident set during it (VmHWM after a reset) over the resident set before
 * it. Then the expensive inputs the header check lets through (a 50 MP frame of one colour, as small
 * as its format allows, and the most scans or tiles a file may have): each in a fresh workerd,
 * through one whole offline analysis (`/analyze`), CPU and peak resident growth measured the same way.
 *
 *   npm run bench:fuzz                          # 2000 inputs a target, prints the report
 *   npm run bench:fuzz -- --inputs 300 jpeg png # fewer inputs, some targets (no expensive inputs)
 *   npm run bench:fuzz -- --inputs 0 --expensive # the expensive inputs only
 *   npm run bench:fuzz -- --inputs 2000 depth-map --expensive depth  # one target, and the expensive inputs named "…depth…"
 *   npm run bench:fuzz -- --write               # also writes the block in bench/PERF-RESULTS.md and docs/signals.md
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { createDeflate } from "node:zlib";
import { freePort } from "../scripts/local-worker.mjs";
import { FUZZ_TARGETS, fuzzInput, fuzzSeeds, mediaTypeOf, type FuzzTarget } from "../test/helpers/fuzz";
import { heifGrid } from "../scripts/lib/heif-grid";
import { cpuMs, resetPeak, ROOT, startWorkerd, status, stopWorkerd, type Workerd } from "./lib/workerd";

const RUN_SEED = 2611;
const MB = 1024 * 1024;
const CACHE = join(ROOT, ".cache/fuzz");

interface Measured {
  cpu: number;
  wall: number;
  peak: number;
  outcome: string;
}

async function measure(w: Workerd, path: string, body: Uint8Array): Promise<Measured> {
  resetPeak(w.pids);
  const idle = status(w.pids, "VmRSS");
  const cpu = cpuMs(w.pids);
  const start = performance.now();
  const res = await fetch(`http://127.0.0.1:${w.port}${path}`, { method: "POST", body });
  const answer = (await res.json()) as { outcome?: string; error?: string; reason?: string; decode_error?: string | null; dimensions?: { width: number; height: number } | null };
  const wall = performance.now() - start;
  const outcome = answer.outcome ?? (answer.error ? `error: ${answer.error}` : answer.dimensions ? `analysed ${answer.dimensions.width}×${answer.dimensions.height}` : `pixels not assessed: ${answer.decode_error}`);
  return { cpu: cpuMs(w.pids) - cpu, wall, peak: Math.max(0, status(w.pids, "VmHWM") - idle), outcome };
}

interface TargetRow {
  target: FuzzTarget;
  inputs: number;
  outcomes: Map<string, number>;
  worstCpu: { ms: number; index: number };
  worstWall: { ms: number; index: number };
  worstPeak: { bytes: number; index: number };
  /** The run's highest resident set over the warmed workerd's before the first input. */
  runPeak: number;
  totalCpu: number;
}

async function fuzzTarget(target: FuzzTarget, seeds: Uint8Array[], inputs: number): Promise<TargetRow> {
  const w = await startWorkerd(await freePort());
  try {
    // Warm: every seed once (codecs loaded and compiled), then the idle resident set.
    for (const seed of seeds) await measure(w, `/fuzz?target=${target}`, seed);
    await new Promise((r) => setTimeout(r, 300));
    const idle = status(w.pids, "VmRSS");
    let runPeak = 0;
    const row: TargetRow = { target, inputs, outcomes: new Map(), worstCpu: { ms: 0, index: -1 }, worstWall: { ms: 0, index: -1 }, worstPeak: { bytes: 0, index: -1 }, runPeak: 0, totalCpu: 0 };
    for (let index = 0; index < inputs; index += 1) {
      const { bytes } = fuzzInput(seeds, mediaTypeOf(target), RUN_SEED, index);
      const m = await measure(w, `/fuzz?target=${target}`, bytes);
      const outcome = m.outcome.startsWith("other") ? "other" : m.outcome;
      if (outcome === "other") console.error(`${target} input ${index}: ${m.outcome}`);
      row.outcomes.set(outcome, (row.outcomes.get(outcome) ?? 0) + 1);
      row.totalCpu += m.cpu;
      if (m.cpu > row.worstCpu.ms) row.worstCpu = { ms: m.cpu, index };
      if (m.wall > row.worstWall.ms) row.worstWall = { ms: m.wall, index };
      if (m.peak > row.worstPeak.bytes) row.worstPeak = { bytes: m.peak, index };
      runPeak = Math.max(runPeak, status(w.pids, "VmHWM") - idle);
    }
    row.runPeak = runPeak;
    return row;
  } finally {
    await stopWorkerd(w);
  }
}

/*
 * Expensive inputs the header check accepts: frames at the ceiling, of one colour, so each is as
 * small as its format allows, and the most scans (progressive JPEG) or tiles (HEIF) a file may have.
 * Made once into .cache/fuzz (Node's zlib, Debian's cwebp and heif-enc).
 */
const W = 8192;
const H = 6400;

function u32be(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k += 1) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function pngChunk(type: string, body: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, "latin1"), body]);
  return Buffer.concat([u32be(body.length), typed, u32be(crc32(typed))]);
}

/** A one-colour PNG of W×H (streamed through zlib: never the whole frame in Node's memory either). */
async function flatPng(depth: 8 | 16, colorType: 0 | 2 | 6): Promise<Buffer> {
  const channels = { 0: 1, 2: 3, 6: 4 }[colorType];
  const row = Buffer.alloc(1 + (W * channels * depth) / 8, 0x80);
  row[0] = 0;
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on("data", (c: Buffer) => parts.push(c));
  const done = new Promise((r) => deflate.on("end", r));
  for (let y = 0; y < H; y += 1) if (!deflate.write(row)) await new Promise((r) => deflate.once("drain", r));
  deflate.end();
  await done;
  const ihdr = Buffer.concat([u32be(W), u32be(H), Buffer.from([depth, colorType, 0, 0, 0])]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk("IHDR", ihdr), pngChunk("IDAT", Buffer.concat(parts)), pngChunk("IEND", Buffer.alloc(0))]);
}

function segment(marker: number, body: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}

/**
 * A grayscale Huffman JPEG of W×H, one colour: DC and AC tables of one 1-bit code each, so a block
 * is two zero bits (baseline) or one per scan (progressive: a DC scan, then `acScans` AC scans over
 * the whole band, each repeating it: the most scans the decoder takes is 200).
 */
function flatJpeg(progressive: boolean, acScans = 1): Buffer {
  const blocks = (W / 8) * (H / 8);
  const dqt = segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)]));
  const sof = segment(progressive ? 0xc2 : 0xc0, Buffer.from([8, H >> 8, H & 255, W >> 8, W & 255, 1, 1, 0x11, 0]));
  const oneCode = (tableClass: number) => Buffer.concat([Buffer.from([tableClass << 4, 1]), Buffer.alloc(15), Buffer.from([0])]);
  const dht = segment(0xc4, Buffer.concat([oneCode(0), oneCode(1)]));
  const scans: Buffer[] = [];
  if (!progressive) scans.push(segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])), Buffer.alloc((blocks * 2) / 8));
  else {
    scans.push(segment(0xda, Buffer.from([1, 1, 0x00, 0, 0, 0])), Buffer.alloc(blocks / 8));
    for (let i = 0; i < acScans; i += 1) scans.push(segment(0xda, Buffer.from([1, 1, 0x00, 1, 63, 0])), Buffer.alloc(blocks / 8));
  }
  return Buffer.concat([Buffer.from([0xff, 0xd8]), dqt, sof, dht, ...scans, Buffer.from([0xff, 0xd9])]);
}

function run(cmd: string, args: string[], cwd = CACHE): void {
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "ignore", "inherit"] });
}

/** A grid HEIC of width×height in tiles of one colour, encoded by heif-enc (libheif 1.15) and assembled as phones do. */
function flatHeic(width: number, height: number, tileWidth: number, tileHeight: number): Buffer {
  const columns = Math.ceil(width / tileWidth);
  const rows = Math.ceil(height / tileHeight);
  run("convert", ["-size", `${tileWidth}x${tileHeight}`, "xc:gray50", "tile.png"]);
  run("heif-enc", ["-q", "50", "-o", "multi.heic", ...Array.from({ length: columns * rows }, () => "tile.png")]);
  return Buffer.from(heifGrid(readFileSync(join(CACHE, "multi.heic")), columns, rows, { width: tileWidth, height: tileHeight }, { width, height }));
}

/** `path`: what the bench Worker does with it (default: one whole offline analysis of it as the photo). */
const EXPENSIVE: Array<{ name: string; type: string; make: () => Buffer | Promise<Buffer>; path?: string }> = [
  { name: "PNG 8192×6400 RGB, one colour", type: "image/png", make: () => flatPng(8, 2) },
  { name: "PNG 8192×6400 16-bit RGBA, one colour", type: "image/png", make: () => flatPng(16, 6) },
  { name: "JPEG 8192×6400 baseline, one colour", type: "image/jpeg", make: () => flatJpeg(false) },
  { name: "progressive JPEG 8192×6400, one colour, 2 scans", type: "image/jpeg", make: () => flatJpeg(true) },
  { name: "progressive JPEG 8192×6400, one colour, 200 scans", type: "image/jpeg", make: () => flatJpeg(true, 199) },
  {
    name: "WebP lossless 8192×6400, one colour",
    type: "image/webp",
    make: async () => {
      writeFileSync(join(CACHE, "flat.png"), await flatPng(8, 2));
      run("cwebp", ["-quiet", "-lossless", "flat.png", "-o", "flat-lossless.webp"]);
      return readFileSync(join(CACHE, "flat-lossless.webp"));
    },
  },
  {
    name: "WebP lossy 8192×6400, one colour",
    type: "image/webp",
    make: async () => {
      writeFileSync(join(CACHE, "flat.png"), await flatPng(8, 2));
      run("cwebp", ["-quiet", "-q", "80", "flat.png", "-o", "flat-lossy.webp"]);
      return readFileSync(join(CACHE, "flat-lossy.webp"));
    },
  },
  // 512×512 tiles overhang 6400 rows past the ceiling (every tile is decoded whole): 6144 rows.
  { name: "HEIC 8192×6144, 16×12 tiles of 512×512, one colour", type: "image/heic", make: () => flatHeic(W, 6144, 512, 512) },
  { name: "HEIC 8192×6144, 32×24 tiles of 256×256 (the most tiles), one colour", type: "image/heic", make: () => flatHeic(W, 6144, 256, 256) },
  // A capture's depth map (forensic buffer) at the ceiling: 100 MiB of samples, streamed twice at most.
  { name: "depth map 8192×6400 16-bit grey, one depth (the depth signal)", type: "image/png", make: () => flatPng(16, 0), path: "/depth" },
];

async function expensiveInput(name: string, make: () => Buffer | Promise<Buffer>): Promise<Buffer> {
  const path = join(CACHE, `${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.bin`);
  if (!existsSync(path)) writeFileSync(path, await make());
  return readFileSync(path);
}

interface ExpensiveRow {
  name: string;
  bytes: number;
  measured: Measured;
}

async function measureExpensive(match?: string): Promise<ExpensiveRow[]> {
  const rows: ExpensiveRow[] = [];
  for (const { name, type, make, path } of EXPENSIVE.filter((e) => !match || e.name.includes(match))) {
    console.error(`expensive: ${name}…`);
    const bytes = await expensiveInput(name, make);
    const w = await startWorkerd(await freePort());
    try {
      // Warm on a small sample of the format (codec loaded), as the decode bench does.
      const sample = { "image/png": "dune.png", "image/jpeg": "dune.jpg", "image/webp": "dune.webp", "image/heic": "dune.heic" }[type]!;
      await measure(w, `/analyze?type=${encodeURIComponent(type)}`, readFileSync(join(ROOT, "test/fixtures/photos", sample)));
      await new Promise((r) => setTimeout(r, 300));
      rows.push({ name, bytes: bytes.length, measured: await measure(w, path ?? `/analyze?type=${encodeURIComponent(type)}`, bytes) });
    } finally {
      await stopWorkerd(w);
    }
  }
  return rows;
}

function outcomes(row: TargetRow): string {
  return [...row.outcomes].sort((a, b) => b[1] - a[1]).map(([o, n]) => `${o} ${n}`).join(", ");
}

async function main() {
  const args = process.argv.slice(2);
  const inputsArg = args.indexOf("--inputs");
  const inputs = inputsArg >= 0 ? Number(args[inputsArg + 1]) : 2000;
  const expensiveArg = args.indexOf("--expensive");
  const expensiveMatch = expensiveArg >= 0 && args[expensiveArg + 1] && !args[expensiveArg + 1]!.startsWith("--") ? args[expensiveArg + 1] : undefined;
  const only = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--inputs" && args[i - 1] !== "--expensive") as FuzzTarget[];
  const targets = only.length > 0 ? FUZZ_TARGETS.filter((t) => only.includes(t)) : [...FUZZ_TARGETS];
  mkdirSync(CACHE, { recursive: true });
  // bench/worker.ts bundles the decode bench's held input: any file will do here.
  const held = join(ROOT, ".cache/bench-input.bin");
  if (!existsSync(held)) writeFileSync(held, new Uint8Array(1));
  const seeds = await fuzzSeeds(async (name) => new Uint8Array(readFileSync(join(ROOT, "test/fixtures/photos", name))));
  const started = new Date();
  const rows: TargetRow[] = [];
  for (const target of targets) {
    console.error(`fuzz: ${target} (${inputs} inputs)…`);
    rows.push(await fuzzTarget(target, seeds[target], inputs));
  }
  const expensive = only.length > 0 && !args.includes("--expensive") ? [] : await measureExpensive(expensiveMatch);
  const minutes = Math.round((Date.now() - started.getTime()) / 60_000);
  const machine = `${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; workerd under wrangler dev, Node ${process.version}`;
  const fuzzTable = [
    "| target | inputs | outcomes | worst CPU (input) | worst wall (input) | worst peak over the resident set before (input) | run's peak over the warmed workerd | mean CPU |",
    "|---|---:|---|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.target} | ${r.inputs} | ${outcomes(r)} | ${r.worstCpu.ms.toFixed(0)} ms (${r.worstCpu.index}) | ${r.worstWall.ms.toFixed(0)} ms (${r.worstWall.index}) | ${(r.worstPeak.bytes / MB).toFixed(1)} MB (${r.worstPeak.index}) | ${(r.runPeak / MB).toFixed(1)} MB | ${(r.totalCpu / r.inputs).toFixed(1)} ms |`,
    ),
  ];
  const expensiveTable = [
    "| input the header check accepts | bytes | analysis outcome | analysis CPU | wall | peak over the resident set before |",
    "|---|---:|---|---:|---:|---:|",
    ...expensive.map((e) => `| ${e.name} | ${(e.bytes / 1024).toFixed(0)} KB | ${e.measured.outcome} | ${e.measured.cpu.toFixed(0)} ms | ${e.measured.wall.toFixed(0)} ms | ${(e.measured.peak / MB).toFixed(1)} MB |`),
  ];
  const report = [
    `Run of ${started.toISOString().slice(0, 16).replace("T", " ")} UTC (${minutes} min) on ${machine}; \`npm run bench:fuzz\`, run seed ${RUN_SEED} (input i of a target is \`fuzzInput(seeds, type, ${RUN_SEED}, i)\`, test/helpers/fuzz.ts).`,
    "",
    "Fuzz: one fresh workerd per target, warmed on its seeds; per input, workerd's CPU (utime + stime, 10 ms ticks), the request's wall time, and the peak of workerd's resident set during it over the resident set before it (MB = 2^20 bytes). `other` counts outcomes outside the error model (a trap, an exception that is not a DecodeFailure): none may occur.",
    "",
    ...fuzzTable,
    ...(expensive.length > 0
      ? [
          "",
          "Expensive inputs the header check accepts (at the 50 MP ceiling, one colour, as few bytes as the format allows): each in a fresh workerd, one whole offline analysis (metadata, decode, every signal) of the input posted as the request body.",
          "",
          ...expensiveTable,
        ]
      : []),
  ].join("\n");
  console.log(report);
  if (args.includes("--write")) {
    for (const file of ["bench/PERF-RESULTS.md", "docs/signals.md"]) {
      const path = join(ROOT, file);
      const text = readFileSync(path, "utf8");
      const block = `<!-- fuzz-bench:start -->\n${report}\n<!-- fuzz-bench:end -->`;
      const replaced = text.replace(/<!-- fuzz-bench:start -->[\s\S]*<!-- fuzz-bench:end -->/, block);
      if (replaced === text && !text.includes(block)) throw new Error(`${file} has no fuzz-bench block`);
      writeFileSync(path, replaced);
    }
  }
}

await main();
