import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { webhookDeliveries } from "../../db/schema";
import { markDeliveryFailed } from "../../db/webhooks";
import { log } from "../../lib/log";
import { enqueueDelivery } from "./deliveries";

/*
 * The backstop for a webhook delivery whose queue message is gone (minutely, src/scheduled.ts): the
 * dead-letter consumer failed to mark it failed, or the message was lost (or never sent, and the
 * event that should have sent it was dead-lettered). A pending delivery always has a message due at
 * `next_attempt_at` (the first one: at creation), so one overdue by an hour has none.
 */

/** How long past its due time a pending delivery's message may be before it counts as lost. */
export const LOST_AFTER_MS = 60 * 60_000;
/** Older than the whole retry schedule (at most 86.5 h, schedule.ts): it would have been dead-lettered by now. */
export const GIVE_UP_AFTER_MS = 90 * 3_600_000;
const PAGE = 100;
const MAX_PAGES = 10;

export interface StuckDeliveriesResult {
  /** deliveries given a new queue message */
  requeued: number;
  /** deliveries past their retry schedule, marked failed as the dead-letter consumer would have */
  failed: number;
  errors: number;
}

export async function sweepStuckDeliveries(env: Env, db: Db, now: number): Promise<StuckDeliveriesResult> {
  const result: StuckDeliveriesResult = { requeued: 0, failed: 0, errors: 0 };
  const due = sql<number>`coalesce(${webhookDeliveries.nextAttemptAt}, ${webhookDeliveries.createdAt})`;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    // The expression and condition of webhook_deliveries_pending_due_idx, so SQLite uses it.
    const rows = await db
      .select({ id: webhookDeliveries.id, createdAt: webhookDeliveries.createdAt, nextAttemptAt: webhookDeliveries.nextAttemptAt })
      .from(webhookDeliveries)
      .where(and(sql`status = 'pending'`, sql`(coalesce(next_attempt_at, created_at)) <= ${now - LOST_AFTER_MS}`))
      .orderBy(asc(due))
      .limit(PAGE);
    const before = result.requeued + result.failed;
    for (const row of rows) {
      try {
        if (row.createdAt <= now - GIVE_UP_AFTER_MS) {
          if (await markDeliveryFailed(db, row.id, now)) result.failed += 1;
          continue;
        }
        // Due now, so the next run does not send it again; then its message.
        const claimed = await db
          .update(webhookDeliveries)
          .set({ nextAttemptAt: now, updatedAt: now })
          .where(
            and(
              eq(webhookDeliveries.id, row.id),
              eq(webhookDeliveries.status, "pending"),
              row.nextAttemptAt === null ? sql`next_attempt_at IS NULL` : eq(webhookDeliveries.nextAttemptAt, row.nextAttemptAt),
            ),
          )
          .returning({ id: webhookDeliveries.id });
        if (claimed.length === 0) continue;
        await enqueueDelivery(env, row.id);
        result.requeued += 1;
      } catch (err) {
        result.errors += 1;
        log.error({ msg: "could not re-drive a stuck webhook delivery; the next run tries again", delivery_id: row.id, error: String(err) });
      }
    }
    // A full page that moved nothing would come back as it is: leave it to the next run.
    if (rows.length < PAGE || result.requeued + result.failed === before) break;
  }
  return result;
}
