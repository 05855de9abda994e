import { createDb } from "../db/client";
import { queueFailures } from "../db/schema";
import type { QueueMessage } from "../events/messages";
import { deadLetterWebhook } from "./webhooks.consumer";
import { saveFailedAnalysis } from "../db/analyses";
import { failVerification } from "../domain/verification/fail";
import type { AnalysisJob } from "../events/analysis-jobs";

/**
 * Messages that exhausted their retries: kept in D1 for inspection and replay. Analysis that could
 * not run moves its verification to `failed` (contract: unreadable evidence after retries).
 */
export async function recordDeadLetter(message: QueueMessage, env: Env, queue: string, messageId: string): Promise<void> {
  // Idempotent step first: a retried dead letter must not be recorded twice.
  if (message.type === "deliver_webhook") await deadLetterWebhook(message.delivery_id, env);
  await createDb(env.DB).insert(queueFailures).values({ queue, messageId, body: JSON.stringify(message), createdAt: Date.now() });
  if (message.type === "analyze_capture" || message.type === "settle_verification" || message.type === "analyze_case") await analysisDeadLettered(message, env);
}

/**
 * Dead letter: capture analysis that could not run after its retries fails the verification. A case
 * analysis that never ran leaves the verdict alone (it is only recorded in queue_failures).
 */
export async function analysisDeadLettered(message: AnalysisJob, env: Env): Promise<void> {
  if (message.type === "analyze_case") return;
  if (message.type === "analyze_capture") {
    await saveFailedAnalysis(createDb(env.DB), message.capture_id, message.verification_id, "evidence could not be analysed after retries", Date.now());
  }
  await failVerification(env, message.verification_id, "analysis_failed: evidence could not be analysed after retries");
}
