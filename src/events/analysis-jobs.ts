import type { QueueMessage } from "./messages";

export type AnalysisJob = Extract<QueueMessage, { type: "analyze_capture" | "settle_verification" | "analyze_case" }>;

/** The one place that puts work on the analysis queue. */
export async function enqueueAnalysisJob(env: Env, job: AnalysisJob): Promise<void> {
  await env.ANALYSIS_QUEUE.send(job);
}
