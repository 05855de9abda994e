import { createDb } from "../db/client";
import { redactChunk, sweepTenant } from "../domain/retention/retention";
import type { MaintenanceJob } from "../events/maintenance-jobs";

/** Retention jobs (domain/retention/retention.ts): a sweep step, or a chunk of redactions. */
export async function handleMaintenanceJob(job: MaintenanceJob, env: Env): Promise<void> {
  if (job.type === "retention_sweep") {
    await sweepTenant(env, createDb(env.DB), job);
    return;
  }
  await redactChunk(env, createDb(env.DB), job.ids);
}
