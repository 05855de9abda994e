/**
 * Create against its floor, interleaved in one run (`npm run bench:create`): `POST /v1/verifications`
 * with a full API key (bench/lib/create-jobs.ts) against a Hono hello-world route answering the same
 * request in the same workerd process (bench/floor/hello.ts). The goal is throughput at 32 clients.
 *
 *   npm run bench:create -- [--clients 32] [--rounds 6] [--phase-ms 2500]
 */
import { parseArgs } from "node:util";
import { createJobs } from "./lib/create-jobs";
import { errorDigest, fmt, interleaved, load, machine, summarize } from "./lib/measure";
import { startRuntime } from "./lib/runtime";

const { values: args } = parseArgs({
  options: {
    clients: { type: "string", default: "32" },
    rounds: { type: "string", default: "6" },
    "phase-ms": { type: "string", default: "2500" },
  },
});
const CLIENTS = Number(args.clients);

const rt = await startRuntime({ floors: [{ config: "bench/floor/hello.wrangler.toml" }], analysis: false, quiet: !process.env.BENCH_VERBOSE });
try {
  const loadBefore = load();
  const phases = await interleaved(
    { floor: createJobs(rt, rt.urls["bench-hello"]), project: createJobs(rt) },
    { clients: CLIENTS, rounds: Number(args.rounds), phaseMs: Number(args["phase-ms"]) },
  );
  const f = summarize(phases.floor);
  const p = summarize(phases.project);
  const out = {
    date: new Date().toISOString(),
    machine: machine(),
    load: { before: loadBefore, after: load() },
    clients: CLIENTS,
    floor: f,
    project: p,
    ratio: { throughput: p.rps / f.rps, p50: p.p50 / f.p50 },
  };
  console.log(`\n${out.date}  ${out.machine}  load ${out.load.before} → ${out.load.after}`);
  console.log("| load | hello-world p50 / p99 / rps | create p50 / p99 / rps | throughput ratio |");
  console.log("|---|---|---|---|");
  console.log(
    `| ${CLIENTS} clients | ${fmt(f.p50)} / ${fmt(f.p99)} ms / ${f.rps.toFixed(0)} | ${fmt(p.p50)} / ${fmt(p.p99)} ms / ${p.rps.toFixed(0)} | ${out.ratio.throughput.toFixed(2)}× |`,
  );
  for (const [name, side] of Object.entries(phases)) for (const e of errorDigest(side).slice(0, 5)) console.log(`  ${name} error: ${e}`);
  console.log(`JSON ${JSON.stringify(out)}`);
} finally {
  await rt.dispose();
}
