import type { QueueMessage } from "./messages";

export type MaintenanceJob = Extract<QueueMessage, { type: "retention_sweep" | "redact_verifications" }>;

/** The one place that puts work on the maintenance queue (retention sweeps and redaction chunks). */
export async function enqueueMaintenanceJobs(env: Env, jobs: MaintenanceJob[]): Promise<void> {
  // sendBatch takes at most 100 messages.
  for (let i = 0; i < jobs.length; i += 100) {
    await env.MAINTENANCE_QUEUE.sendBatch(jobs.slice(i, i + 100).map((body) => ({ body })));
  }
}
