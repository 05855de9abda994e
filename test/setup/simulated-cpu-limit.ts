import type { AnalysisJob } from "../../src/events/analysis-jobs";
import { InvocationEnded } from "../../src/queues";

/** What Cloudflare ends an invocation with when it exceeds `limits.cpu_ms` (its logs' wording). */
export class CpuLimitExceeded extends InvocationEnded {
  override name = "CpuLimitExceeded";
  constructor() {
    super("Worker exceeded CPU time limit.");
  }
}

/**
 * The verification metadata that asks for the simulation, and where each simulated end is recorded
 * (an empty object in the evidence bucket, one per delivery, for the tests to count).
 */
export const SIMULATED_CPU_LIMIT = { key: "simulate_fault", value: "cpu_limit_exceeded", recordPrefix: "test-faults/cpu-limit/" } as const;

/**
 * Test code only (issue 33: it used to ship in the analysis Worker, switched on by a binding and set
 * off by metadata a tenant writes). workerd, the local runtime, enforces no CPU limit (Cloudflare
 * does, per wrangler.analysis.toml's `limits.cpu_ms`), so the tests simulate what the limit does to
 * a capture analysis: the invocation ends with the runtime's error, out of the whole batch (past the
 * queue handler's per-message catch, as a terminated isolate runs nothing more). Only the analysis
 * Worker the Workers suite builds (./analysis-worker-entry.ts) runs it, for a verification whose
 * metadata carries SIMULATED_CPU_LIMIT's key and value; no module under src/ names it
 * (test/unit/config-wiring.test.ts) and `npm run build:check` refuses a deployable bundle that does.
 */
export async function simulateCpuLimit(env: Env, job: AnalysisJob): Promise<void> {
  if (job.type !== "analyze_capture") return;
  const row = await env.DB.prepare(`SELECT json_extract(config, '$.metadata.${SIMULATED_CPU_LIMIT.key}') AS fault FROM verifications WHERE id = ?`)
    .bind(job.verification_id)
    .first<{ fault: string | null }>();
  if (row?.fault !== SIMULATED_CPU_LIMIT.value) return;
  await env.EVIDENCE.put(`${SIMULATED_CPU_LIMIT.recordPrefix}${job.capture_id}/${crypto.randomUUID()}`, new Uint8Array(0));
  throw new CpuLimitExceeded();
}
