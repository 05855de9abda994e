import { and, isNull, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { events, verifications } from "../../db/schema";
import { verificationObject } from "../../durable-objects/verification-client";
import { eachLimited } from "../../lib/concurrency";
import { log } from "../../lib/log";

/** How late an expiry alarm may be before the sweep steps in. */
export const OVERDUE_GRACE_MS = 60_000;
/**
 * How long a published `verification.created` may wait for the consumer to mark it before the sweep
 * publishes it again: well beyond the consumer's normal lag, so a backlog is not published twice.
 */
export const UNSENT_GRACE_MS = 10 * 60_000;
const PAGE = 100;

/**
 * The backstop for the Worker-side create (service.ts `createVerification`): the verification's
 * Durable Object is armed by the events consumer or the first capture-flow call, and this minutely
 * run arms any whose expiry is overdue (the consumer gave up, the queue lost the event) or whose
 * outbox still holds an event nobody published (the isolate died after the commit). Arming an
 * overdue verification sets its alarm in the past, so it still expires by its own alarm, through
 * its own object. Both reads walk a partial index that holds only open (or unsent) rows.
 */
export async function sweepUnarmed(env: Env, db: Db, now: number): Promise<{ overdue: number; unsent: number }> {
  const [overdue, unsent] = await db.batch([
    db
      .select({ id: verifications.id })
      .from(verifications)
      // The condition of verifications_open_expiry_idx, verbatim, so SQLite uses it.
      .where(and(sql`status NOT IN ('completed', 'expired', 'failed') AND ready_at IS NULL`, lte(verifications.expiresAt, now - OVERDUE_GRACE_MS)))
      .limit(PAGE),
    db
      .selectDistinct({ id: events.verificationId })
      .from(events)
      .where(and(isNull(events.dispatchedAt), lte(events.occurredAt, now - UNSENT_GRACE_MS)))
      .limit(PAGE),
  ]);
  const jobs = [...overdue.map((r) => ({ id: r.id, redrive: false })), ...unsent.map((r) => ({ id: r.id, redrive: true }))];
  const failures = await eachLimited(jobs, 8, (job) => verificationObject(env, job.id).arm(job.id, { redrive: job.redrive }));
  for (const { item, error } of failures) log.error({ msg: "sweep could not arm a verification", verification_id: item.id, error: String(error) });
  return { overdue: overdue.length, unsent: unsent.length };
}
