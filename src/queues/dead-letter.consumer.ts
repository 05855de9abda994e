import { createDb } from "../db/client";
import { queueFailures } from "../db/schema";
import type { DomainEvent, QueueMessage } from "../events/messages";
import { returnToOutbox } from "../db/verifications";
import { log } from "../lib/log";
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
  if (message.type === "domain_event") await eventDeadLettered(message.event, env);
}

/** How many times one event may be dead-lettered and still go back to its outbox. */
export const EVENT_DEAD_LETTERS_REPLAYED = 3;

/**
 * Dead letter: a domain event whose consumer failed on every retry (D1 down for a while, a bug since
 * fixed) goes back to its verification's outbox, so the minutely sweep (`sweepUnarmed`) re-drives it
 * through the object and its webhooks, emails and jobs are made then (every subscriber is idempotent
 * by event id). After EVENT_DEAD_LETTERS_REPLAYED dead letters it stays in `queue_failures` for a person.
 */
async function eventDeadLettered(event: DomainEvent, env: Env): Promise<void> {
  const returned = await returnToOutbox(createDb(env.DB), event.id, EVENT_DEAD_LETTERS_REPLAYED);
  log.warn({ msg: returned ? "dead-lettered event returned to its outbox" : "dead-lettered event left for replay by hand", event_id: event.id, verification_id: event.verification_id });
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
