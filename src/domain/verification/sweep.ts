import { and, asc, gt, isNull, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { events } from "../../db/schema";
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
/**
 * How far ahead of its expiry the sweep arms a verification nothing armed yet. The cron runs every
 * minute, and each run arms the verifications expiring in the minute (now + 1 min, now + 2 min], so
 * consecutive runs cover every expiry once and the object's alarm is set before `expires_at` comes.
 */
export const ARM_AHEAD_MS = 2 * 60_000;
const SWEEP_INTERVAL_MS = 60_000;
/** Rows per read of the unsent pass; it reads on until a short page or MAX_PAGES (2 000 arms a minute). */
export const SWEEP_PAGE = 100;
const MAX_PAGES = 20;

export interface SweepResult {
  /** armed ahead of an expiry in the coming minute's window */
  ahead: number;
  overdue: number;
  unsent: number;
  failed: number;
}

/**
 * Whether the events consumer arms a new verification's object at once: only when its expiry comes
 * before the sweep's window would reach it (or the publisher did not say when it expires). Any other
 * verification's object is made by its first capture-flow call, or by the sweep a minute or two before
 * its expiry: a link nobody opens costs no object until then (creating one is the costliest part of a
 * create's deferred work; bench/PERF-RESULTS.md).
 */
export function armsAtCreation(expiresAt: number | undefined, now: number): boolean {
  return expiresAt === undefined || expiresAt - now <= ARM_AHEAD_MS;
}

/**
 * The backstop and the scheduler for the Worker-side create (service.ts `createVerification`): a
 * verification's Durable Object is armed by its first capture-flow call, by the events consumer when
 * it expires within ARM_AHEAD_MS of its creation, and otherwise by this minutely run shortly before it
 * expires. The same run arms any whose expiry is overdue (a missed run, an object that failed to arm)
 * or whose outbox still holds an event nobody published (the isolate died after the commit). Arming
 * an overdue verification sets its alarm in the past, so it still expires by its own alarm, through
 * its own object. Every read walks a partial index that holds only open (or unsent) rows.
 *
 * Each expiry pass takes every tenant's earliest in turn (`eachOpenExpiring`): one tenant's flood,
 * or its objects that keep failing to arm, hold back only its own rows. The unsent pass pages on past
 * the rows it has tried (keyset, not offset), so a failing page does not hide the rows behind it.
 */
export async function sweepUnarmed(env: Env, db: Db, now: number): Promise<SweepResult> {
  const result: SweepResult = { ahead: 0, overdue: 0, unsent: 0, failed: 0 };
  const arm = async (ids: string[], redrive: boolean) => {
    const failures = await eachLimited(ids, 8, (id) => verificationObject(env, id).arm(id, { redrive }));
    for (const { item, error } of failures) log.error({ msg: "sweep could not arm a verification", verification_id: item, redrive, error: String(error) });
    result.failed += failures.length;
  };

  result.ahead = await eachOpenExpiring(db, { after: now + ARM_AHEAD_MS - SWEEP_INTERVAL_MS, until: now + ARM_AHEAD_MS }, (ids) => arm(ids, false));
  result.overdue = await eachOpenExpiring(db, { after: null, until: now - OVERDUE_GRACE_MS }, (ids) => arm(ids, false));

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

/** Most verifications one pass of a run arms (each pass is a minute's work; a run has three). */
export const ARMS_PER_PASS = 2_000;
/** Most of a pass one tenant takes, so a tenant's flood of expiries cannot hold back another's. */
export const ARMS_PER_TENANT = 500;
/** How far into the window a pass reads, earliest first: bounds the scan whatever lies behind it. */
const SCAN_LIMIT = 20_000;

/**
 * Open verifications (not completed, expired or failed, evidence not complete) whose expiry is in
 * (after, until], earliest first: at most ARMS_PER_TENANT of each tenant's, ARMS_PER_PASS in all,
 * handed to `visit`; how many it saw. A tenant past its share (or whose objects keep failing to arm)
 * waits for the next run; nobody else does.
 */
export async function eachOpenExpiring(db: Db, window: { after: number | null; until: number }, visit: (ids: string[]) => Promise<void>): Promise<number> {
  const rows: Array<{ id: string }> = await db.all(sql`
    SELECT id FROM (
      SELECT id, expires_at, ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY expires_at, id) AS turn
      FROM (
        SELECT id, tenant_id, expires_at FROM verifications
        -- The condition of verifications_open_expiry_idx, verbatim, so SQLite uses it.
        WHERE status NOT IN ('completed', 'expired', 'failed') AND ready_at IS NULL
          AND expires_at <= ${window.until} ${window.after !== null ? sql`AND expires_at > ${window.after}` : sql``}
        ORDER BY expires_at, id LIMIT ${SCAN_LIMIT}
      )
    )
    WHERE turn <= ${ARMS_PER_TENANT} ORDER BY expires_at, id LIMIT ${ARMS_PER_PASS}`);
  await visit(rows.map((r) => r.id));
  return rows.length;
}
