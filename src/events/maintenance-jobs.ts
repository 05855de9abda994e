import type { QueueMessage } from "./messages";
import { sendAll } from "./send-all";

export type MaintenanceJob = Extract<QueueMessage, { type: "retention_sweep" | "redact_verifications" }>;

/** The one place that puts work on the maintenance queue (retention sweeps and redaction chunks). */
export async function enqueueMaintenanceJobs(env: Env, jobs: MaintenanceJob[]): Promise<void> {
  await sendAll<QueueMessage>(env.MAINTENANCE_QUEUE, jobs);
}
