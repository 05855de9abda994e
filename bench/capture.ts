/**
 * Key-reference capture against its floor, interleaved in one run (`npm run bench:capture`).
 *
 * Each capture is `POST /v1/verifications/{id}/captures {image_key, image_sha256}` of a 1.5 MB JPEG
 * uploaded beforehand (bench/lib/capture-jobs.ts: each client is one person capturing into their own
 * verification), on both upload paths, each in a runtime of its own: `direct` (the bytes go straight
 * to R2 with a presigned URL, so the capture is the first time the Worker sees them) and `proxied`
 * (PUT to the Worker's upload URL, as on a deployment without R2 credentials and on `npm start`). The floor (bench/floor/capture.ts) answers the same request with one R2 read
 * hashed as it streams and one guarded D1 batch with its read back, in the same workerd process.
 * The analysis Worker (its own process, see bench/lib/runtime.ts) analyses the project's captures
 * throughout: it starts on the warm-up's backlog and keeps working through every phase.
 *
 *   npm run bench:capture -- [--upload direct|proxied|both] [--clients 32] [--rounds 6] [--phase-ms 2500] [--no-analysis]
 *   (BENCH_PHASES=1 prints the processes' pids, then each phase's start and end, epoch ms, and its
 *   captures on stderr)
 */
import { parseArgs } from "node:util";
import { captureJobs, UPLOAD_VARS, type UploadPath } from "./lib/capture-jobs";
import { closedLoop, cpuMs, errorDigest, fmt, load, machine, summarize, type PhaseResult } from "./lib/measure";
import { startRuntime } from "./lib/runtime";

const { values: args } = parseArgs({
  options: {
    clients: { type: "string", default: "32" },
    rounds: { type: "string", default: "6" },
    "phase-ms": { type: "string", default: "2500" },
    "no-analysis": { type: "boolean", default: false },
    upload: { type: "string", default: "both" },
  },
});
const UPLOADS: UploadPath[] = args.upload === "both" ? ["direct", "proxied"] : [args.upload as UploadPath];
if (!UPLOADS.every((u) => u in UPLOAD_VARS)) throw new Error(`--upload: direct, proxied or both, not ${args.upload}`);
const CLIENTS = Number(args.clients);
const ROUNDS = Number(args.rounds);
const PHASE_MS = Number(args["phase-ms"]);

interface Side {
  phases: PhaseResult[];
  /** CPU of process A (the Worker) and S (D1 and R2) during the side's phases */
  cpuMs: number;
  storageCpuMs: number;
  rps: number;
}

/** One interleaved run of floor and project phases with the bytes arriving by `upload`. */
async function run(upload: UploadPath): Promise<void> {
  const rt = await startRuntime({
    floors: [{ config: "bench/floor/wrangler.toml" }],
    analysis: !args["no-analysis"],
    quiet: !process.env.BENCH_VERBOSE,
    apiVars: UPLOAD_VARS[upload],
  });
  const jobs = await captureJobs(rt, upload);
  if (process.env.BENCH_PHASES) console.error(`pids ${JSON.stringify(rt.pids)}`);

  const sides: Record<"floor" | "project", Side> = {
    floor: { phases: [], cpuMs: 0, storageCpuMs: 0, rps: 120 },
    project: { phases: [], cpuMs: 0, storageCpuMs: 0, rps: 120 },
  };
  let analysisCpuMs = 0;
  let measuredMs = 0;

  async function phase(which: "floor" | "project", record: boolean): Promise<void> {
    const side = sides[which];
    // Enough captures per person for the phase at the side's last throughput, and some to spare.
    const perClient = Math.ceil(((side.rps / CLIENTS) * PHASE_MS * 1.5) / 1000) + 2;
    const next = await jobs.prepare(which, CLIENTS, perClient);
    const cpu0 = cpuMs(rt.pids.api);
    const s0 = cpuMs(rt.pids.storage);
    const b0 = rt.pids.analysis ? cpuMs(rt.pids.analysis) : 0;
    const started = Date.now();
    const result = await closedLoop(CLIENTS, PHASE_MS, next);
    // For tracing a run from outside (e.g. counting a process's syscalls per side): when each phase ran.
    if (process.env.BENCH_PHASES) console.error(`phase ${which} ${started} ${Date.now()} ${result.latencies.length}`);
    const cpu = cpuMs(rt.pids.api) - cpu0;
    const storageCpu = cpuMs(rt.pids.storage) - s0;
    side.rps = (result.latencies.length / result.elapsedMs) * 1000 || side.rps;
    if (!record) return;
    side.phases.push(result);
    side.cpuMs += cpu;
    side.storageCpuMs += storageCpu;
    if (rt.pids.analysis) analysisCpuMs += cpuMs(rt.pids.analysis) - b0;
    measuredMs += result.elapsedMs;
  }

  try {
    const loadBefore = load();
    // Warm-up (JIT, storage, the analysis backlog), not recorded.
    await phase("project", false);
    await phase("floor", false);
    for (let r = 0; r < ROUNDS; r += 1) {
      const order: ("floor" | "project")[] = r % 2 === 0 ? ["floor", "project"] : ["project", "floor"];
      for (const which of order) await phase(which, true);
    }
    const f = summarize(sides.floor.phases);
    const p = summarize(sides.project.phases);
    const cpuPer = (s: Side, n: number) => s.cpuMs / Math.max(1, n);
    const storagePer = (s: Side, n: number) => s.storageCpuMs / Math.max(1, n);
    const out = {
      date: new Date().toISOString(),
      machine: machine(),
      load: { before: loadBefore, after: load() },
      upload,
      clients: CLIENTS,
      analysis: rt.pids.analysis ? `${((analysisCpuMs / measuredMs) * 100).toFixed(0)}% of a core in the analysis process during the phases` : "off",
      floor: { ...f, apiCpuMsPerRequest: cpuPer(sides.floor, f.n), storageCpuMsPerRequest: storagePer(sides.floor, f.n) },
      project: { ...p, apiCpuMsPerRequest: cpuPer(sides.project, p.n), storageCpuMsPerRequest: storagePer(sides.project, p.n) },
      ratio: { p50: p.p50 / f.p50, p99: p.p99 / f.p99, throughput: p.rps / f.rps },
    };
    console.log(`\n${out.date}  ${out.machine}  load ${out.load.before} → ${out.load.after}`);
    console.log(`upload path: ${upload}; ${CLIENTS} clients, ${ROUNDS} rounds of ${PHASE_MS} ms per side; analysis: ${out.analysis}`);
    console.log("| upload, load | floor p50 / p99 / rps | project p50 / p99 / rps | ratio p50, p99, throughput | CPU per capture, Worker + storage (floor / project) |");
    console.log("|---|---|---|---|---|");
    console.log(
      `| ${upload}, ${CLIENTS} client${CLIENTS === 1 ? "" : "s"} | ${fmt(f.p50)} / ${fmt(f.p99)} ms / ${f.rps.toFixed(1)} | ${fmt(p.p50)} / ${fmt(p.p99)} ms / ${p.rps.toFixed(1)} | ${out.ratio.p50.toFixed(2)}×, ${out.ratio.p99.toFixed(2)}×, ${out.ratio.throughput.toFixed(2)}× | ${fmt(out.floor.apiCpuMsPerRequest)} + ${fmt(out.floor.storageCpuMsPerRequest)} / ${fmt(out.project.apiCpuMsPerRequest)} + ${fmt(out.project.storageCpuMsPerRequest)} ms |`,
    );
    for (const [name, side] of Object.entries(sides)) for (const e of errorDigest(side.phases).slice(0, 5)) console.log(`  ${name} error: ${e}`);
    console.log(`JSON ${JSON.stringify(out)}`);
  } finally {
    await rt.dispose();
  }
}

for (const upload of UPLOADS) await run(upload);
