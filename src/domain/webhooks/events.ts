import type { VerificationRecord } from "../../db/verifications";
import { iso } from "../../lib/time";
import { presentVerification } from "../../model/verification/present";

/**
 * Domain event → contract webhook type. Only these nine are public; everything else (abandoned,
 * answer.recorded, submitted, ready) stays internal and sends nothing. `case.analyzed` is sent
 * because finalize may answer before the case analysis lands: without it a tenant relying on
 * webhooks would never learn the analysis arrived.
 */
const WEBHOOK_TYPES = {
  "verification.created": "verification.created",
  "verification.capture.persisted": "verification.capture.persisted",
  "verification.completed": "verification.completed",
  "verification.expired": "verification.expired",
  "verification.failed": "verification.failed",
  "verification.case.completed": "verification.case.completed",
  "verification.case.analyzed": "verification.case.analyzed",
  "verification.reviewed": "verification.reviewed",
  "verification.redacted": "verification.redacted",
} as const;

export type WebhookType = (typeof WEBHOOK_TYPES)[keyof typeof WEBHOOK_TYPES];
export const WEBHOOK_EVENT_NAMES = Object.keys(WEBHOOK_TYPES);

export function webhookTypeFor(eventName: string): WebhookType | null {
  return Object.hasOwn(WEBHOOK_TYPES, eventName) ? WEBHOOK_TYPES[eventName as keyof typeof WEBHOOK_TYPES] : null;
}

/**
 * The webhook body: `{id, type, created_at, data: {object: Verification, certificate?}}`. `id` is
 * the domain event's `evt_` id (also the `webhook-id`), `created_at` when the event occurred, and the
 * object the tenant's view of the verification (answers included) when the delivery is created;
 * from completion on, `certificate` is the signed certificate of that state.
 */
export function webhookBody(
  event: { id: string; occurredAt: number },
  type: WebhookType,
  record: VerificationRecord,
  options: { baseUrl: string; now: number; certificate?: Record<string, unknown> },
): string {
  return JSON.stringify({
    id: event.id,
    type,
    created_at: iso(event.occurredAt),
    data: {
      object: presentVerification(record, { baseUrl: options.baseUrl, audience: "tenant", now: options.now }),
      ...(options.certificate ? { certificate: options.certificate } : {}),
    },
  });
}
