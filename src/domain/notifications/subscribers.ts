import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenants } from "../../db/schema";
import { loadRecord } from "../../db/verifications";
import { settings } from "../../env";
import type { DomainEvent } from "../../events/messages";
import { emailTransport } from "../../providers/email";
import { messagingTransport } from "../../providers/messaging";
import { sendOnce } from "../../providers/outbound";
import { TRIAL_ORIGIN_CHANNEL } from "../trial/trial";
import { trialVerdictMessage, verificationEmail, type EmailKind } from "./texts";
import { log } from "../../lib/log";

/*
 * Events-queue subscribers that notify people. Each message is at-most-once per event
 * (`sendOnce` with the event id in the dedupe key), so a redelivered event sends nothing twice.
 */

const EMAIL_KINDS: Record<string, EmailKind> = {
  "verification.completed": "completed",
  "verification.expired": "expired",
  "verification.failed": "failed",
};
export const NOTIFY_EMAIL_EVENT_NAMES = Object.keys(EMAIL_KINDS);

/** `notify_email`: a plain email when the verification completes, expires or fails. */
export async function notifyByEmail(env: Env, db: Db, event: DomainEvent): Promise<boolean> {
  const kind = EMAIL_KINDS[event.name];
  if (!kind) return false;
  const record = await loadRecord(db, event.verification_id);
  const recipient = record?.row.config.notify_email;
  if (!record || !recipient) return false;
  const tenant = await db.select({ domain: tenants.verifiedDomain }).from(tenants).where(eq(tenants.id, record.row.tenantId)).get();
  const { subject, body } = verificationEmail(record, kind, settings(env).baseUrl, { tenantId: record.row.tenantId, verifiedDomain: tenant?.domain ?? null });
  return sendOnce(db, emailTransport(env), {
    dedupeKey: `email:${event.id}`,
    channel: "email",
    recipient,
    subject,
    body,
    verificationId: record.row.id,
  });
}

export const TRIAL_VERDICT_EVENT_NAMES = ["verification.completed", "verification.failed"];

/**
 * Trial verifications send their verdict (or that there is none: `failed`) to the configured trial number. Only the server-set
 * origin counts (the `origin_channel` column, written by the trial start alone): `metadata` is the
 * tenant's, and would let any tenant message the operator's trial number.
 */
export async function sendTrialVerdict(env: Env, db: Db, event: DomainEvent): Promise<boolean> {
  // A failed one (its photo unreadable, its analysis lost) says so: the trial user waits for an answer.
  if (!TRIAL_VERDICT_EVENT_NAMES.includes(event.name)) return false;
  const record = await loadRecord(db, event.verification_id);
  if (!record || record.row.originChannel !== TRIAL_ORIGIN_CHANNEL) return false;
  const recipient = env.TRIAL_WHATSAPP_NUMBER;
  if (!recipient) {
    log.warn({ msg: "trial verdict not sent: TRIAL_WHATSAPP_NUMBER is not set", verification_id: record.row.id });
    return false;
  }
  return sendOnce(db, messagingTransport(env), {
    dedupeKey: `whatsapp:${event.id}`,
    channel: "whatsapp",
    recipient,
    body: trialVerdictMessage(record),
    verificationId: record.row.id,
  });
}
