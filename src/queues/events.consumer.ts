import { createDb } from "../db/client";
import { markDispatched } from "../db/verifications";
import { log } from "../lib/log";
import { verificationObject } from "../durable-objects/verification-client";
import { notifyByEmail, NOTIFY_EMAIL_EVENT_NAMES, sendTrialVerdict, TRIAL_VERDICT_EVENT_NAMES } from "../domain/notifications/subscribers";
import { createDeliveryForEvent } from "../domain/webhooks/deliveries";
import { WEBHOOK_EVENT_NAMES } from "../domain/webhooks/events";
import type { DomainEvent } from "../events/messages";
import type { EventHints } from "../events/publisher";
import { enqueueCaptureAnalysis, enqueueSettlement } from "../events/analysis-jobs";

type Subscriber = (event: DomainEvent, env: Env, hints: EventHints) => Promise<unknown>;

/**
 * Who reacts to which domain event. Every subscriber must tolerate duplicates: the outbox re-drive
 * and the queue itself both deliver at least once.
 */
const subscribers: Record<string, Subscriber[]> = {
  // The Worker creates a verification without its Durable Object; this arms the expiry alarm.
  "verification.created": [(event, env) => verificationObject(env, event.verification_id).arm(event.verification_id)],
  "verification.capture.persisted": [enqueueCaptureAnalysis],
  "verification.ready": [enqueueSettlement],
};

function on(names: readonly string[], subscriber: Subscriber): void {
  for (const name of names) (subscribers[name] ??= []).push(subscriber);
}

on(WEBHOOK_EVENT_NAMES, (event, env, hints) => createDeliveryForEvent(env, createDb(env.DB), event, Date.now(), hints.webhook));
on(NOTIFY_EMAIL_EVENT_NAMES, (event, env) => notifyByEmail(env, createDb(env.DB), event));
on(TRIAL_VERDICT_EVENT_NAMES, (event, env) => sendTrialVerdict(env, createDb(env.DB), event));

/** `hints`: what the publisher passed along with the event (publisher.ts); absent ones are read. */
export async function handleDomainEvent(event: DomainEvent, env: Env, hints: EventHints = {}): Promise<void> {
  for (const subscriber of subscribers[event.name] ?? []) await subscriber(event, env, hints);
}

/**
 * The Worker publishes `verification.created` without marking it (service.ts `createVerification`):
 * the consumer marks what it received, one write per batch. A lost mark only means the minutely
 * sweep publishes the event once more, which every subscriber tolerates.
 */
export async function markCreatedDispatched(env: Env, events: DomainEvent[]): Promise<void> {
  const ids = events.filter((e) => e.name === "verification.created").map((e) => e.id);
  if (ids.length === 0) return;
  try {
    await markDispatched(createDb(env.DB), ids, Date.now());
  } catch (err) {
    log.error({ msg: "could not mark consumed events dispatched; the sweep will publish them again", count: ids.length, error: String(err) });
  }
}
