/**
 * Decode memory and analysis speed measured inside workerd (not Node): bench/worker.ts runs under
 * `wrangler dev`, and the workerd process is read from /proc (Linux).
 *
 * - Memory: per format at 12 MP and 50 MP, a fresh workerd each time with the real-photo input
 *   bundled as a Data module (its bytes resident before anything is measured, as the analysis
 *   consumer holds a capture's bytes from R2; a request body would also count wrangler's proxy and
 *   the runtime's read buffers, about twice its size), warmed with the format's tiny sample (codec
 *   loaded), then the peak resident set of every workerd process during one decode of the held
 *   bytes (VmHWM after resetting it with /proc/PID/clear_refs) minus the resident set before it.
 *   Reported beside the bytes: bytes + decode is what the Worker holds at the peak. The same again,
 *   in another fresh workerd, for one whole offline analysis of the bytes (metadata, decode,
 *   signals, the evidence thumbnail encoded): bytes + analysis is what the analysis consumer holds,
 *   the figure the budget is for.
 *   And once more with every provider configured (the web search and the vision judge, answered by
 *   the loopback fakes of test/fakes, started here in Node) and a verification asking for every
 *   signal and check: what the providers' requests (the image each is sent, base64 in JSON) add.
 * - Speed: CPU time of workerd (utime + stime) for one offline analysis of a 12 MP JPEG, median of 5,
 *   beside the decode-only time.
 *
 *   npm run bench             # prints a markdown report
 *   npm run bench -- --write  # also writes bench/RESULTS.md and the docs/signals.md block
 */
import { copyFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { prepared } from "../scripts/real-photos";
import { cpuMs, resetPeak, ROOT, startWorkerd as startBenchWorkerd, status, stopWorkerd } from "./lib/workerd";
import { startFakes } from "../test/fakes/server";
import { freePort } from "../scripts/local-worker.mjs";

/** The bench Worker's port: a free one, chosen in main (a fixed one could answer from another engineer's run). */
let PORT = 0;
const MB = 1024 * 1024;

const startWorkerd = () => startBenchWorkerd(PORT);

/** Where the loopback fakes listen (set in main); the analysis with providers calls them. */
let fakesUrl = "";

type Path = "/decode" | "/analyze" | "/analyze-providers";

async function post(path: Path, type: string, body: Uint8Array): Promise<{ error?: string; reason?: string; width?: number; height?: number; overview?: [number, number]; tiles?: number; reverse?: unknown; vision?: string }> {
  const query = path === "/analyze-providers" ? `&fakes=${encodeURIComponent(fakesUrl)}` : "";
  const res = await fetch(`http://127.0.0.1:${PORT}${path === "/analyze-providers" ? "/analyze" : path}?type=${encodeURIComponent(type)}${query}`, { method: "POST", body });
  return res.json();
}

const SAMPLES: Record<string, string> = { "image/jpeg": "dune.jpg", "image/png": "dune.png", "image/webp": "dune.webp", "image/heic": "dune.heic" };

interface MemoryRow {
  format: string;
  input: string;
  bytes: number;
  /** Peak resident growth of workerd while it decodes the held bytes. */
  decode: number;
  /** workerd's CPU time for that one decode (ms). */
  cpu: number;
  /** The same for one whole offline analysis of the held bytes (metadata, decode, every signal). */
  analysis: number;
  analysisCpu: number;
  /** The same with every provider configured (web search and vision through the loopback fakes). */
  providers: number;
  providersCpu: number;
  /** What the web search answered, or why it was not asked. */
  webSearch: string;
  outcome: string;
}

/** Where bench/worker.ts imports its input from (a Data module bundled at start). */
const HELD_INPUT = join(ROOT, ".cache/bench-input.bin");

/** Peak resident growth and CPU of one request on the held bytes, in a fresh workerd warmed on the format's sample. */
async function measurePeak(path: Path, type: string): Promise<{ peak: number; cpu: number; result: Awaited<ReturnType<typeof post>> }> {
  const w = await startWorkerd();
  try {
    await post(path, type, readFileSync(join(ROOT, "test/fixtures/photos", SAMPLES[type]!)));
    await new Promise((r) => setTimeout(r, 300));
    resetPeak(w.pids);
    const idle = status(w.pids, "VmRSS");
    const start = cpuMs(w.pids);
    const result = await post(path, type, new Uint8Array(0));
    const peak = status(w.pids, "VmHWM");
    return { peak: Math.max(0, peak - idle), cpu: cpuMs(w.pids) - start, result };
  } finally {
    await stopWorkerd(w);
  }
}

async function measureMemory(type: string, input: string): Promise<MemoryRow> {
  const path = prepared(input);
  copyFileSync(path, HELD_INPUT);
  const decode = await measurePeak("/decode", type);
  const analysis = await measurePeak("/analyze", type);
  const providers = await measurePeak("/analyze-providers", type);
  const result = decode.result;
  const outcome = result.error ? `not decoded: ${result.reason} (${String(result.error).replace(/^DecodeFailure: /, "")})` : `${result.width}×${result.height}, ${result.tiles} tiles, overview ${result.overview?.join("×")}`;
  const reverse = providers.result.reverse as { status?: string; reason?: string; provider?: string } | undefined;
  const webSearch = reverse?.status === "not_assessed" ? `not assessed: ${reverse.reason}` : (reverse?.provider ?? "?");
  return {
    format: type,
    input,
    bytes: statSync(path).size,
    decode: decode.peak,
    cpu: decode.cpu,
    analysis: analysis.peak,
    analysisCpu: analysis.cpu,
    providers: providers.peak,
    providersCpu: providers.cpu,
    webSearch,
    outcome,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measureSpeed(): Promise<{ analysis: number; decode: number; runs: number }> {
  const bytes = readFileSync(prepared("jpeg-12mp.jpg"));
  copyFileSync(prepared("jpeg-12mp.jpg"), HELD_INPUT);
  const w = await startWorkerd();
  const runs = 5;
  try {
    await post("/analyze", "image/jpeg", bytes); // warm: codec compiled, code paths optimised once
    const decode: number[] = [];
    const analysis: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      let start = cpuMs(w.pids);
      await post("/decode", "image/jpeg", bytes);
      decode.push(cpuMs(w.pids) - start);
      start = cpuMs(w.pids);
      await post("/analyze", "image/jpeg", bytes);
      analysis.push(cpuMs(w.pids) - start);
    }
    return { analysis: median(analysis), decode: median(decode), runs };
  } finally {
    await stopWorkerd(w);
  }
}

async function main() {
  PORT = await freePort();
  const fakesPort = await freePort();
  const fakes = await startFakes(fakesPort);
  fakesUrl = `http://127.0.0.1:${fakesPort}`;
  try {
    await run();
  } finally {
    fakes.close();
  }
}

async function run() {
  const plan: Array<[string, string]> = [
    ["image/jpeg", "jpeg-12mp.jpg"],
    ["image/jpeg", "jpeg-50mp.jpg"],
    ["image/jpeg", "jpeg-50mp-10mb.jpg"],
    ["image/jpeg", "jpeg-50mp-25mb.jpg"],
    ["image/jpeg", "jpeg-12mp-progressive.jpg"],
    ["image/jpeg", "jpeg-12mp-progressive-444.jpg"],
    ["image/jpeg", "jpeg-12mp-progressive-444-q97.jpg"],
    ["image/jpeg", "jpeg-50mp-progressive.jpg"],
    ["image/jpeg", "jpeg-50mp-progressive-444.jpg"],
    ["image/heic", "heic-12mp.heic"],
    ["image/heic", "heic-50mp.heic"],
    ["image/png", "png-12mp.png"],
    ["image/png", "png-50mp.png"],
    ["image/webp", "webp-8mp.webp"],
    ["image/webp", "webp-12mp.webp"],
    ["image/webp", "webp-7mp-lossless.webp"],
    ["image/webp", "webp-12mp-lossless.webp"],
    ["image/webp", "webp-23mp-lossless.webp"],
    ["image/webp", "webp-50mp.webp"],
  ];
  // `npm run bench -- name.ext …` measures only those inputs (no speed, nothing written).
  const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  if (only.length > 0) {
    for (const [type, input] of plan.filter(([, input]) => only.includes(input))) {
      const r = await measureMemory(type, input);
      console.log(
        `${r.input}: ${r.outcome}; bytes ${(r.bytes / MB).toFixed(1)} MB + decode ${(r.decode / MB).toFixed(1)} MB = ${((r.bytes + r.decode) / MB).toFixed(1)} MB, ${r.cpu.toFixed(0)} ms CPU; + analysis ${(r.analysis / MB).toFixed(1)} MB = ${((r.bytes + r.analysis) / MB).toFixed(1)} MB, ${r.analysisCpu.toFixed(0)} ms CPU; + analysis with providers ${(r.providers / MB).toFixed(1)} MB = ${((r.bytes + r.providers) / MB).toFixed(1)} MB, ${r.providersCpu.toFixed(0)} ms CPU (web search: ${r.webSearch})`,
      );
    }
    return;
  }
  const rows: MemoryRow[] = [];
  for (const [type, input] of plan) {
    console.error(`memory: ${input}…`);
    rows.push(await measureMemory(type, input));
  }
  console.error("speed: 12 MP JPEG…");
  const speed = await measureSpeed();
  const date = new Date().toISOString().slice(0, 10);
  const machine = `${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; workerd under wrangler dev, Node ${process.version}`;
  const table = [
    "| format | input (from a Debian package's photo) | bytes | decoded | decode's CPU | decode's peak | bytes + decode | analysis's CPU | bytes + analysis | with providers: CPU | with providers: bytes + analysis |",
    "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.format} | ${r.input} | ${(r.bytes / MB).toFixed(1)} MB | ${r.outcome} | ${r.cpu.toFixed(0)} ms | ${(r.decode / MB).toFixed(1)} MB | ${((r.bytes + r.decode) / MB).toFixed(1)} MB | ${r.analysisCpu.toFixed(0)} ms | **${((r.bytes + r.analysis) / MB).toFixed(1)} MB** | ${r.providersCpu.toFixed(0)} ms | **${((r.bytes + r.providers) / MB).toFixed(1)} MB**${r.webSearch.startsWith("not") ? ` (web search ${r.webSearch})` : ""} |`,
    ),
    "",
    `Offline analysis of a 12 MP JPEG (4000×3000, q92): **${speed.analysis.toFixed(0)} ms CPU** (median of ${speed.runs} warm runs in one workerd, after a warm-up: the table's CPU is each row's first, cold request in a fresh workerd, hence higher); decode alone ${speed.decode.toFixed(0)} ms; ratio ${(speed.analysis / Math.max(1, speed.decode)).toFixed(2)}×.`,
  ].join("\n");
  const report = [`Measured ${date} on ${machine}.`, "", "Memory (MB = 2^20 bytes): the input's bytes are held in the isolate first (a Data module, as the analysis consumer holds a capture read from R2); the decode's peak is the rise of workerd's resident set (every workerd process of wrangler dev) during one decode of them, after a warm-up with the format's small sample, a fresh workerd per row; bytes + decode is what the Worker holds at that peak. The decode asks for the moiré tiles of screenTileRects and a 1024 px thumbnail, as analysis with a vision provider does. Analysis: the same measure, in another fresh workerd, for one capture's whole offline analysis of the held bytes (metadata, decode, every signal, the evidence thumbnail encoded; what the analysis consumer runs, less the R2 and D1 calls); bytes + analysis is held against a budget of 100 MB of the Worker's 128 MB. With providers: the same with the web search and the vision judge configured (answered by the loopback fakes of test/fakes) and a verification asking for every signal and check. CPU: workerd's utime + stime across the request (for a row, that one request, the first of its size in that workerd).", "", table].join("\n");
  console.log(report);
  if (process.argv.includes("--write")) {
    writeFileSync(join(ROOT, "bench/RESULTS.md"), `# Decode benchmark (inside workerd)\n\n\`npm run bench -- --write\` regenerates this file and the block in docs/signals.md.\n\n${report}\n`);
    const docs = join(ROOT, "docs/signals.md");
    const text = readFileSync(docs, "utf8");
    const block = `<!-- decode-bench:start -->\n${report}\n<!-- decode-bench:end -->`;
    const replaced = text.replace(/<!-- decode-bench:start -->[\s\S]*<!-- decode-bench:end -->/, block);
    if (replaced === text && !text.includes(block)) throw new Error("docs/signals.md has no decode-bench block");
    writeFileSync(docs, replaced);
  }
}

await main();
