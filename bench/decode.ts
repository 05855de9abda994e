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
 *   signals): bytes + analysis is what the analysis consumer holds, the figure the budget is for.
 * - Speed: CPU time of workerd (utime + stime) for one offline analysis of a 12 MP JPEG, median of 5,
 *   beside the decode-only time.
 *
 *   npm run bench             # prints a markdown report
 *   npm run bench -- --write  # also writes bench/RESULTS.md and the docs/signals.md block
 */
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { prepared } from "../scripts/real-photos";

const ROOT = resolve(import.meta.dirname, "..");
const PORT = 8797;
const MB = 1024 * 1024;

interface Workerd {
  proc: ChildProcess;
  pids: number[];
}

function children(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

/** Every workerd process under wrangler dev (it runs more than one: the proxy and the Worker). */
function findWorkerd(root: number): number[] {
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    try {
      if (pid !== root && readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd") found.push(pid);
    } catch {
      // gone
    }
    queue.push(...children(pid));
  }
  return found;
}

async function startWorkerd(): Promise<Workerd> {
  const proc = spawn(join(ROOT, "node_modules/.bin/wrangler"), ["dev", "-c", "bench/wrangler.toml", "--port", String(PORT), "--ip", "127.0.0.1", "--log-level", "error"], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/decode?type=image/gif`, { method: "POST", body: new Uint8Array(1) });
      await res.text();
      const pids = findWorkerd(proc.pid!);
      if (pids.length > 0) return { proc, pids };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("wrangler dev did not start");
}

async function stopWorkerd(w: Workerd): Promise<void> {
  process.kill(-w.proc.pid!, "SIGTERM");
  await new Promise((r) => setTimeout(r, 500));
}

function status(pids: number[], field: string): number {
  return pids.reduce((sum, pid) => {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith(`${field}:`))!;
    return sum + Number(line.split(/\s+/)[1]) * 1024;
  }, 0);
}

function cpuMs(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return sum + ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, clock ticks of 10 ms
  }, 0);
}

async function post(path: string, type: string, body: Uint8Array): Promise<{ error?: string; reason?: string; width?: number; height?: number; overview?: [number, number]; tiles?: number }> {
  const res = await fetch(`http://127.0.0.1:${PORT}${path}?type=${encodeURIComponent(type)}`, { method: "POST", body });
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
  outcome: string;
}

/** Where bench/worker.ts imports its input from (a Data module bundled at start). */
const HELD_INPUT = join(ROOT, ".cache/bench-input.bin");

/** Peak resident growth and CPU of one request on the held bytes, in a fresh workerd warmed on the format's sample. */
async function measurePeak(path: "/decode" | "/analyze", type: string): Promise<{ peak: number; cpu: number; result: Awaited<ReturnType<typeof post>> }> {
  const w = await startWorkerd();
  try {
    await post(path, type, readFileSync(join(ROOT, "test/fixtures/photos", SAMPLES[type]!)));
    await new Promise((r) => setTimeout(r, 300));
    for (const pid of w.pids) writeFileSync(`/proc/${pid}/clear_refs`, "5");
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
  const result = decode.result;
  const outcome = result.error ? `not decoded: ${result.reason} (${String(result.error).replace(/^DecodeFailure: /, "")})` : `${result.width}×${result.height}, ${result.tiles} tiles, overview ${result.overview?.join("×")}`;
  return { format: type, input, bytes: statSync(path).size, decode: decode.peak, cpu: decode.cpu, analysis: analysis.peak, analysisCpu: analysis.cpu, outcome };
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
  const plan: Array<[string, string]> = [
    ["image/jpeg", "jpeg-12mp.jpg"],
    ["image/jpeg", "jpeg-50mp.jpg"],
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
        `${r.input}: ${r.outcome}; bytes ${(r.bytes / MB).toFixed(1)} MB + decode ${(r.decode / MB).toFixed(1)} MB = ${((r.bytes + r.decode) / MB).toFixed(1)} MB, ${r.cpu.toFixed(0)} ms CPU; + analysis ${(r.analysis / MB).toFixed(1)} MB = ${((r.bytes + r.analysis) / MB).toFixed(1)} MB, ${r.analysisCpu.toFixed(0)} ms CPU`,
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
    "| format | input (from a Debian package's photo) | bytes | decoded | decode's CPU | decode's peak | bytes + decode | analysis's CPU | bytes + analysis |",
    "|---|---|---:|---|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.format} | ${r.input} | ${(r.bytes / MB).toFixed(1)} MB | ${r.outcome} | ${r.cpu.toFixed(0)} ms | ${(r.decode / MB).toFixed(1)} MB | ${((r.bytes + r.decode) / MB).toFixed(1)} MB | ${r.analysisCpu.toFixed(0)} ms | **${((r.bytes + r.analysis) / MB).toFixed(1)} MB** |`,
    ),
    "",
    `Offline analysis of a 12 MP JPEG (4000×3000, q92): **${speed.analysis.toFixed(0)} ms CPU** (median of ${speed.runs}); decode alone ${speed.decode.toFixed(0)} ms; ratio ${(speed.analysis / Math.max(1, speed.decode)).toFixed(2)}×.`,
  ].join("\n");
  const report = [`Measured ${date} on ${machine}.`, "", "Memory (MB = 2^20 bytes): the input's bytes are held in the isolate first (a Data module, as the analysis consumer holds a capture read from R2); the decode's peak is the rise of workerd's resident set (every workerd process of wrangler dev) during one decode of them, after a warm-up with the format's small sample, a fresh workerd per row; bytes + decode is what the Worker holds at that peak. The decode asks for the moiré tiles of screenTileRects and a 1024 px thumbnail, as analysis with a vision provider does. Analysis: the same measure, in another fresh workerd, for one capture's whole offline analysis of the held bytes (metadata, decode, every signal; what the analysis consumer runs); bytes + analysis is held against a budget of 100 MB of the Worker's 128 MB. CPU: workerd's utime + stime across the request (for a row, that one request, the first of its size in that workerd).", "", table].join("\n");
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
