/**
 * Create against its floors, interleaved in one run (`npm run bench:create`): `POST /v1/verifications`
 * with a full API key (bench/lib/create-jobs.ts) against a Hono hello-world route answering the same
 * request in the same workerd process (bench/floor/hello.ts; the goal is throughput at 32 clients
 * against it), and against a bare Worker doing only the key lookup and the one D1 write a create
 * cannot avoid (bench/floor/create-io.ts), which shows what the local storage itself allows.
 *
 * Work a create defers (the events consumer arming the verification's Durable Object, the webhook
 * subscriber) runs in the same processes after the response, so every phase is followed by a drain:
 * the run waits until process A (Worker, Durable Objects, queue consumers) and S (D1, R2, queues)
 * are idle again and counts that time and CPU against the side. "sustained" is requests / (phase +
 * drain): what the side can keep up indefinitely, deferred work included.
 *
 *   npm run bench:create -- [--clients 32] [--rounds 6] [--phase-ms 2500]
 */
import { parseArgs } from "node:util";
import { createJobs } from "./lib/create-jobs";
import { closedLoop, cpuMs, errorDigest, fmt, load, machine, summarize, type PhaseResult } from "./lib/measure";
import { startRuntime, type Runtime } from "./lib/runtime";

const { values: args } = parseArgs({
  options: {
    clients: { type: "string", default: "32" },
    rounds: { type: "string", default: "6" },
    "phase-ms": { type: "string", default: "2500" },
  },
});
const CLIENTS = Number(args.clients);
const ROUNDS = Number(args.rounds);
const PHASE_MS = Number(args["phase-ms"]);

interface Side {
  phases: PhaseResult[];
  /** CPU of process A and S during the phases, and during the drains after them */
  apiCpuMs: number;
  storageCpuMs: number;
  drainMs: number;
  drainCpuMs: number;
}
const newSide = (): Side => ({ phases: [], apiCpuMs: 0, storageCpuMs: 0, drainMs: 0, drainCpuMs: 0 });

/** Waits until A and S together use under 5 % of a core over 300 ms (at most 60 s): the deferred work is done. */
async function drain(rt: Runtime): Promise<{ ms: number; cpuMs: number }> {
  const started = performance.now();
  const cpu = () => cpuMs(rt.pids.api) + cpuMs(rt.pids.storage);
  const c0 = cpu();
  let last = c0;
  let idleSince = performance.now();
  while (performance.now() - started < 60_000) {
    await new Promise((r) => setTimeout(r, 100));
    const now = cpu();
    if (now - last > 5) idleSince = performance.now(); // more than 5 ms of CPU in 100 ms: still busy
    last = now;
    if (performance.now() - idleSince >= 300) break;
  }
  // The idle tail itself is not work left over.
  return { ms: Math.max(0, idleSince - started), cpuMs: cpu() - c0 };
}

const rt = await startRuntime({
  floors: [{ config: "bench/floor/hello.wrangler.toml" }, { config: "bench/floor/create-io.wrangler.toml" }],
  analysis: false,
  quiet: !process.env.BENCH_VERBOSE,
});
type Which = "floor" | "io" | "project";
try {
  const jobs = { floor: createJobs(rt, rt.urls["bench-hello"]), io: createJobs(rt, rt.urls["bench-create-io"]), project: createJobs(rt) };
  const sides = { floor: newSide(), io: newSide(), project: newSide() };
  const phase = async (which: Which, record: boolean) => {
    const a0 = cpuMs(rt.pids.api);
    const s0 = cpuMs(rt.pids.storage);
    const result = await closedLoop(CLIENTS, PHASE_MS, jobs[which]);
    const a1 = cpuMs(rt.pids.api);
    const s1 = cpuMs(rt.pids.storage);
    const drained = await drain(rt);
    if (!record) return;
    const side = sides[which];
    side.phases.push(result);
    side.apiCpuMs += a1 - a0;
    side.storageCpuMs += s1 - s0;
    side.drainMs += drained.ms;
    side.drainCpuMs += drained.cpuMs;
  };

  const loadBefore = load();
  await phase("project", false);
  await phase("io", false);
  await phase("floor", false);
  // Each round a different side goes first, and the order reverses every other round.
  const base: Which[] = ["floor", "io", "project"];
  for (let r = 0; r < ROUNDS; r += 1) {
    const rotated = [...base.slice(r % 3), ...base.slice(0, r % 3)];
    for (const which of r % 2 === 0 ? rotated : rotated.reverse()) await phase(which, true);
  }
  const report = (side: Side) => {
    const s = summarize(side.phases);
    const elapsed = side.phases.reduce((sum, p) => sum + p.elapsedMs, 0);
    return {
      ...s,
      sustainedRps: (s.n / (elapsed + side.drainMs)) * 1000,
      drainMsPerPhase: side.drainMs / side.phases.length,
      apiCpuMsPerRequest: side.apiCpuMs / Math.max(1, s.n),
      storageCpuMsPerRequest: side.storageCpuMs / Math.max(1, s.n),
      deferredCpuMsPerRequest: side.drainCpuMs / Math.max(1, s.n),
    };
  };
  const f = report(sides.floor);
  const io = report(sides.io);
  const p = report(sides.project);
  const out = {
    date: new Date().toISOString(),
    machine: machine(),
    load: { before: loadBefore, after: load() },
    clients: CLIENTS,
    floor: f,
    io,
    project: p,
    ratio: { throughput: p.rps / f.rps, sustained: p.sustainedRps / f.sustainedRps, p50: p.p50 / f.p50, ioThroughput: p.rps / io.rps, ioSustained: p.sustainedRps / io.sustainedRps },
  };
  console.log(`\n${out.date}  ${out.machine}  load ${out.load.before} → ${out.load.after}`);
  console.log("| load | hello-world p50 / p99 / rps | create p50 / p99 / rps | throughput ratio | drain after a create phase | sustained ratio | CPU per create in phase, A + S | deferred CPU per create |");
  console.log("|---|---|---|---|---|---|---|---|");
  console.log(
    `| ${CLIENTS} clients | ${fmt(f.p50)} / ${fmt(f.p99)} ms / ${f.rps.toFixed(0)} | ${fmt(p.p50)} / ${fmt(p.p99)} ms / ${p.rps.toFixed(0)} | ${out.ratio.throughput.toFixed(2)}× | ${fmt(p.drainMsPerPhase)} ms | ${out.ratio.sustained.toFixed(2)}× | ${fmt(p.apiCpuMsPerRequest)} + ${fmt(p.storageCpuMsPerRequest)} ms | ${fmt(p.deferredCpuMsPerRequest)} ms |`,
  );
  console.log(`  hello-world CPU per request in phase, A + S: ${fmt(f.apiCpuMsPerRequest)} + ${fmt(f.storageCpuMsPerRequest)} ms; drain ${fmt(f.drainMsPerPhase)} ms`);
  console.log(
    `  I/O floor (key lookup + one D1 write): ${fmt(io.p50)} / ${fmt(io.p99)} ms / ${io.rps.toFixed(0)} rps, CPU A + S ${fmt(io.apiCpuMsPerRequest)} + ${fmt(io.storageCpuMsPerRequest)} ms; ` +
      `create against it: throughput ${out.ratio.ioThroughput.toFixed(2)}×, sustained ${out.ratio.ioSustained.toFixed(2)}×`,
  );
  for (const [name, side] of Object.entries(sides)) for (const e of errorDigest(side.phases).slice(0, 5)) console.log(`  ${name} error: ${e}`);
  console.log(`JSON ${JSON.stringify(out)}`);
} finally {
  await rt.dispose();
}
