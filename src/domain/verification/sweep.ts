import { and, asc, gt, isNull, lte, sql } from "drizzle-orm";
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
/** Rows per read; a run reads on until a short page or MAX_PAGES (2 000 arms a minute per kind). */
export const SWEEP_PAGE = 100;
const MAX_PAGES = 20;

export interface SweepResult {
  overdue: number;
  unsent: number;
  failed: number;
}

/**
 * The backstop for the Worker-side create (service.ts `createVerification`): the verification's
 * Durable Object is armed by the events consumer or the first capture-flow call, and this minutely
 * run arms any whose expiry is overdue (the consumer gave up, the queue lost the event) or whose
 * outbox still holds an event nobody published (the isolate died after the commit). Arming an
 * overdue verification sets its alarm in the past, so it still expires by its own alarm, through
 * its own object. Both reads walk a partial index that holds only open (or unsent) rows.
 *
 * Each run pages on past the rows it has tried (keyset, not offset): a verification whose object
 * keeps failing to arm stays overdue and would otherwise fill the first page every minute and hide
 * every row behind it.
 */
export async function sweepUnarmed(env: Env, db: Db, now: number): Promise<SweepResult> {
  const result: SweepResult = { overdue: 0, unsent: 0, failed: 0 };
  const arm = async (ids: string[], redrive: boolean) => {
    const failures = await eachLimited(ids, 8, (id) => verificationObject(env, id).arm(id, { redrive }));
    for (const { item, error } of failures) log.error({ msg: "sweep could not arm a verification", verification_id: item, redrive, error: String(error) });
    result.failed += failures.length;
  };

  let after: { expiresAt: number; id: string } | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const rows: Array<{ id: string; expiresAt: number }> = await db
      .select({ id: verifications.id, expiresAt: verifications.expiresAt })
      .from(verifications)
      .where(
        and(
          // The condition of verifications_open_expiry_idx, verbatim, so SQLite uses it.
          sql`status NOT IN ('completed', 'expired', 'failed') AND ready_at IS NULL`,
          lte(verifications.expiresAt, now - OVERDUE_GRACE_MS),
          after ? sql`(${verifications.expiresAt}, ${verifications.id}) > (${after.expiresAt}, ${after.id})` : undefined,
        ),
      )
      .orderBy(asc(verifications.expiresAt), asc(verifications.id))
      .limit(SWEEP_PAGE);
    await arm(rows.map((r) => r.id), false);
    result.overdue += rows.length;
    if (rows.length < SWEEP_PAGE) break;
    after = rows[rows.length - 1]!;
  }

  let afterId: string | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const rows: Array<{ id: string }> = await db
      .selectDistinct({ id: events.verificationId })
      .from(events)
      .where(and(isNull(events.dispatchedAt), lte(events.occurredAt, now - UNSENT_GRACE_MS), afterId ? gt(events.verificationId, afterId) : undefined))
      .orderBy(asc(events.verificationId))
      .limit(SWEEP_PAGE);
    await arm(rows.map((r) => r.id), true);
    result.unsent += rows.length;
    if (rows.length < SWEEP_PAGE) break;
    afterId = rows[rows.length - 1]!.id;
  }
  return result;
}
