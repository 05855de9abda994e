import { createDb } from "../db/client";
import { CERTIFIED_EVENT_NAMES } from "../domain/certificates/events";
import { armsAtCreation } from "../domain/verification/sweep";
import { currentCertificate } from "../domain/certificates/issue";
import { markDispatched } from "../db/verifications";
import { log } from "../lib/log";
import { verificationObject } from "../durable-objects/verification-client";
import { notifyByEmail, NOTIFY_EMAIL_EVENT_NAMES, sendTrialVerdict, TRIAL_VERDICT_EVENT_NAMES } from "../domain/notifications/subscribers";
import { createDeliveryForEvent } from "../domain/webhooks/deliveries";
import { WEBHOOK_EVENT_NAMES } from "../domain/webhooks/events";
import type { DomainEvent } from "../events/messages";
import type { EventHints } from "../events/publisher";
import { enqueueAnalysisJobs } from "../domain/fairness/analysis-lanes";
import { captureAnalysisJob, settlementJob, type AnalysisJob } from "../events/analysis-jobs";

/**
 * What a subscriber gets besides the event: the publisher's hints, and the analysis jobs it wants
 * sent, which the caller sends after the event's subscribers (the queue handler: one `sendBatch` for
 * a whole batch of events, before acking them).
 */
export interface EventContext {
  hints: EventHints;
  analysisJobs: AnalysisJob[];
}

type Subscriber = (event: DomainEvent, env: Env, ctx: EventContext) => Promise<unknown> | void;

/**
 * Who reacts to which domain event. Every subscriber must tolerate duplicates: the outbox re-drive
 * and the queue itself both deliver at least once.
 */
const subscribers: Record<string, Subscriber[]> = {
  // The Worker creates a verification without its Durable Object; this arms its expiry alarm when the
  // minutely sweep would come too late for it (domain/verification/sweep.ts `armsAtCreation`).
  "verification.created": [
    (event, env, ctx) => (armsAtCreation(ctx.hints.expiresAt, Date.now()) ? verificationObject(env, event.verification_id).arm(event.verification_id) : undefined),
  ],
  "verification.capture.persisted": [
    (event, _env, ctx) => {
      const job = captureAnalysisJob(event);
      if (job) ctx.analysisJobs.push(job);
    },
  ],
  "verification.ready": [(event, _env, ctx) => void ctx.analysisJobs.push(settlementJob(event))],
};

function on(names: readonly string[], subscriber: Subscriber): void {
  for (const name of names) (subscribers[name] ??= []).push(subscriber);
}

// Before the webhook subscriber: the delivery of the same event finds the certificate stored.
on(CERTIFIED_EVENT_NAMES, (event, env) => currentCertificate(env, createDb(env.DB), event.verification_id));
on(WEBHOOK_EVENT_NAMES, (event, env, ctx) => createDeliveryForEvent(env, createDb(env.DB), event, Date.now(), ctx.hints.webhook));
on(NOTIFY_EMAIL_EVENT_NAMES, (event, env) => notifyByEmail(env, createDb(env.DB), event));
on(TRIAL_VERDICT_EVENT_NAMES, (event, env) => sendTrialVerdict(env, createDb(env.DB), event));

/**
 * `hints`: what the publisher passed along with the event (publisher.ts); absent ones are read.
 * `analysisJobs`: where the event's analysis jobs go for the caller to send; without it they are sent here.
 */
export async function handleDomainEvent(event: DomainEvent, env: Env, hints: EventHints = {}, analysisJobs?: AnalysisJob[]): Promise<void> {
  const ctx: EventContext = { hints, analysisJobs: analysisJobs ?? [] };
  for (const subscriber of subscribers[event.name] ?? []) await subscriber(event, env, ctx);
  if (!analysisJobs && ctx.analysisJobs.length > 0) await enqueueAnalysisJobs(env, ctx.analysisJobs);
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
