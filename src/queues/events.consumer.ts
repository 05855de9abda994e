import { createDb } from "../db/client";
import { notifyByEmail, NOTIFY_EMAIL_EVENT_NAMES, sendTrialVerdict, TRIAL_VERDICT_EVENT_NAMES } from "../domain/notifications/subscribers";
import { createDeliveryForEvent } from "../domain/webhooks/deliveries";
import { WEBHOOK_EVENT_NAMES } from "../domain/webhooks/events";
import type { DomainEvent } from "../events/messages";
import { enqueueCaptureAnalysis, enqueueSettlement } from "./analysis.consumer";

type Subscriber = (event: DomainEvent, env: Env) => Promise<unknown>;

/**
 * Who reacts to which domain event. Every subscriber must tolerate duplicates: the outbox re-drive
 * and the queue itself both deliver at least once.
 */
const subscribers: Record<string, Subscriber[]> = {
  "verification.capture.persisted": [enqueueCaptureAnalysis],
  "verification.ready": [enqueueSettlement],
};

function on(names: readonly string[], subscriber: Subscriber): void {
  for (const name of names) (subscribers[name] ??= []).push(subscriber);
}

on(WEBHOOK_EVENT_NAMES, (event, env) => createDeliveryForEvent(env, createDb(env.DB), event));
on(NOTIFY_EMAIL_EVENT_NAMES, (event, env) => notifyByEmail(env, createDb(env.DB), event));
on(TRIAL_VERDICT_EVENT_NAMES, (event, env) => sendTrialVerdict(env, createDb(env.DB), event));

export async function handleDomainEvent(event: DomainEvent, env: Env): Promise<void> {
  for (const subscriber of subscribers[event.name] ?? []) await subscriber(event, env);
}
