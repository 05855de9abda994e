import { createDb } from "../db/client";
import { markDeliveryFailed } from "../db/webhooks";
import { attemptDelivery, type AttemptOutcome } from "../domain/webhooks/deliveries";

/** `deliver_webhook`: one attempt; the outcome tells the queue to ack or to retry after a delay. */
export async function deliverWebhook(deliveryId: string, env: Env, messageAttempts: number): Promise<AttemptOutcome> {
  return attemptDelivery(env, createDb(env.DB), deliveryId, messageAttempts);
}

/** A `deliver_webhook` message that exhausted its retries: the delivery has failed for good. */
export async function deadLetterWebhook(deliveryId: string, env: Env): Promise<void> {
  await markDeliveryFailed(createDb(env.DB), deliveryId, Date.now());
}
