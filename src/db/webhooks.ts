import { and, asc, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { webhookAttempts, webhookDeliveries } from "./schema";
import { mixedBatch } from "./statements";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/** Inserts unless a delivery for the same event exists; returns the delivery either way. */
export async function insertDeliveryOnce(db: Db, row: DeliveryRow): Promise<DeliveryRow> {
  await db.insert(webhookDeliveries).values(row).onConflictDoNothing({ target: webhookDeliveries.eventId }).run();
  const stored = await deliveryByEvent(db, row.eventId);
  if (!stored) throw new Error(`webhook delivery for ${row.eventId} vanished`);
  return stored;
}

export async function deliveryByEvent(db: Db, eventId: string): Promise<DeliveryRow | undefined> {
  return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId)).get();
}

export async function loadDelivery(db: Db, id: string): Promise<DeliveryRow | undefined> {
  return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();
}

/** Notes that the first queue message is out (a redelivered event then sends no second one). */
export async function markEnqueued(db: Db, id: string, now: number): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: now, updatedAt: now })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.attempts, 0), isNull(webhookDeliveries.nextAttemptAt)))
    .run();
}

/**
 * Claims the next attempt number (compare-and-swap on `attempts`) and leases the delivery until
 * `leaseUntil`, so a duplicate queue message cannot run a concurrent attempt. Null when lost.
 */
export async function claimAttempt(db: Db, delivery: DeliveryRow, leaseUntil: number, now: number): Promise<number | null> {
  const rows = await db
    .update(webhookDeliveries)
    .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, nextAttemptAt: leaseUntil, updatedAt: now })
    .where(
      and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.attempts, delivery.attempts)),
    )
    .returning({ attempts: webhookDeliveries.attempts });
  return rows[0]?.attempts ?? null;
}

export interface AttemptResult {
  deliveryId: string;
  attempt: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  attemptedAt: number;
  /** Null when no further attempt will be made (success, or a permanent refusal). */
  nextAttemptAt: number | null;
  status: DeliveryRow["status"];
}

/** The attempt log row and the delivery's summary, in one batch. */
export async function recordAttempt(db: Db, r: AttemptResult): Promise<void> {
  await db.batch([
    db.insert(webhookAttempts).values({
      deliveryId: r.deliveryId,
      attempt: r.attempt,
      statusCode: r.statusCode,
      latencyMs: r.latencyMs,
      error: r.error,
      attemptedAt: r.attemptedAt,
      nextAttemptAt: r.nextAttemptAt,
    }),
    db
      .update(webhookDeliveries)
      .set({
        status: r.status,
        lastStatusCode: r.statusCode,
        lastError: r.error,
        nextAttemptAt: r.nextAttemptAt,
        updatedAt: r.attemptedAt,
        ...(r.status === "succeeded" ? { deliveredAt: r.attemptedAt } : {}),
      })
      .where(eq(webhookDeliveries.id, r.deliveryId)),
  ]);
}

/** The queue gave up (dead-letter queue): the delivery failed and its last attempt has no successor. */
export async function markDeliveryFailed(db: Db, id: string, now: number): Promise<boolean> {
  const failed = await db
    .update(webhookDeliveries)
    .set({ status: "failed", nextAttemptAt: null, updatedAt: now })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, "pending")))
    .returning({ id: webhookDeliveries.id });
  if (failed.length === 0) return false;
  const last = await db
    .select({ id: webhookAttempts.id })
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, id))
    .orderBy(desc(webhookAttempts.attempt))
    .limit(1)
    .get();
  if (last) await db.update(webhookAttempts).set({ nextAttemptAt: null }).where(eq(webhookAttempts.id, last.id)).run();
  return true;
}

/**
 * Puts a finished (failed or succeeded) delivery back to pending for a manual retry. Returns the
 * delivery as it was before, or null when it is unknown to the tenant; a pending one is unchanged.
 */
export async function reopenDelivery(
  db: Db,
  id: string,
  tenantId: string,
  now: number,
  audit?: (before: DeliveryRow) => D1PreparedStatement,
): Promise<{ before: DeliveryRow; reopened: boolean } | null> {
  const before = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.tenantId, tenantId)))
    .get();
  if (!before) return null;
  const reopen = db
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: now, updatedAt: now })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, before.status), inArray(webhookDeliveries.status, ["failed", "succeeded"])));
  if (!audit) return { before, reopened: (await reopen.run()).meta.changes === 1 };
  // The audit entry (placed first, on the state this request saw) is in the reopen's batch.
  const [, result] = await mixedBatch(db.$client, [audit(before), reopen]);
  return { before, reopened: result?.meta.changes === 1 };
}

/** Undoes a reopen whose queue message could not be sent. */
export async function restoreDelivery(db: Db, before: DeliveryRow): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: before.status, nextAttemptAt: before.nextAttemptAt, updatedAt: before.updatedAt })
    .where(and(eq(webhookDeliveries.id, before.id), eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.attempts, before.attempts)))
    .run();
}

export type DeliveryWithAttempts = DeliveryRow & { attemptLog: AttemptRow[] };

export async function deliveriesOf(db: Db, verificationId: string): Promise<DeliveryWithAttempts[]> {
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.verificationId, verificationId))
    .orderBy(asc(webhookDeliveries.id));
  return withAttempts(db, deliveries);
}

/**
 * A tenant's deliveries across all its verifications, newest first: at most `limit` rows with an
 * id below `beforeId` (the keyset), optionally of one status (index webhook_deliveries_tenant_*).
 */
export async function recentDeliveries(
  db: Db,
  tenantId: string,
  options: { limit: number; beforeId?: string; status?: DeliveryRow["status"] },
): Promise<DeliveryWithAttempts[]> {
  const conditions = [eq(webhookDeliveries.tenantId, tenantId)];
  if (options.beforeId !== undefined) conditions.push(lt(webhookDeliveries.id, options.beforeId));
  if (options.status) conditions.push(eq(webhookDeliveries.status, options.status));
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.id))
    .limit(options.limit);
  return withAttempts(db, deliveries);
}

async function withAttempts(db: Db, deliveries: DeliveryRow[]): Promise<DeliveryWithAttempts[]> {
  const byId = new Map(deliveries.map((d) => [d.id, { ...d, attemptLog: [] as AttemptRow[] }]));
  const ids = [...byId.keys()];
  for (let i = 0; i < ids.length; i += 50) {
    const attempts = await db
      .select()
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, ids.slice(i, i + 50)))
      .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt));
    for (const a of attempts) byId.get(a.deliveryId)?.attemptLog.push(a);
  }
  return [...byId.values()];
}

export async function attemptsOf(db: Db, deliveryId: string): Promise<AttemptRow[]> {
  return db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId)).orderBy(asc(webhookAttempts.attempt));
}
