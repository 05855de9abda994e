import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenantPhones } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { insertRowWhere, mixedBatch } from "../../db/statements";
import { auditInsertWhile, type AuditEntry } from "../audit/log";
import { isUniqueViolation } from "../tenants/tenants";

/*
 * The phones an operator registered for their tenant. The messaging bot may issue a dashboard
 * sign-in code only for one of these (accounts/otp.ts), so holding the bot's HMAC secret is not
 * enough to add a user to a tenant: someone already inside it must have vouched for the number.
 */

export type PhoneRow = typeof tenantPhones.$inferSelect;

/**
 * Registrations a tenant may hold. Each one lets a person join the tenant by a bot code, so the set is
 * a short list an admin can read whole (`GET /v1/phones` is one page), not an open-ended one.
 */
export const MAX_PHONES_PER_TENANT = 100;

export async function registerPhone(
  db: Db,
  input: { tenantId: string; phone: string; label?: string; registeredBy: string; audit?: (row: PhoneRow) => AuditEntry },
  now = Date.now(),
): Promise<PhoneRow> {
  const row: PhoneRow = {
    id: newId("phone", now),
    tenantId: input.tenantId,
    phone: input.phone,
    label: input.label ?? null,
    registeredBy: input.registeredBy,
    createdAt: now,
  };
  // Checked in the statement that inserts: two registrations racing for the last place cannot both take it.
  const room = { sql: "(SELECT COUNT(*) FROM tenant_phones WHERE tenant_id = ?) < ?", params: [input.tenantId, MAX_PHONES_PER_TENANT] };
  let inserted: boolean;
  try {
    const insert = insertRowWhere(db.$client, tenantPhones, row, room);
    // The audit entry first, under the same condition: both see the count before this insert.
    const results = await mixedBatch(db.$client, input.audit ? [auditInsertWhile(db, input.audit(row), now, room), insert] : [insert]);
    inserted = results.at(-1)?.meta.changes === 1;
  } catch (err) {
    if (isUniqueViolation(err)) throw ApiError.invalid({ phone: "This number is already registered for this tenant." });
    throw err;
  }
  if (!inserted) throw new ApiError("invalid_state", `A tenant registers at most ${MAX_PHONES_PER_TENANT} phones; remove one before adding another.`);
  return row;
}

export async function listPhones(db: Db, tenantId: string): Promise<PhoneRow[]> {
  return db.select().from(tenantPhones).where(eq(tenantPhones.tenantId, tenantId)).orderBy(desc(tenantPhones.createdAt), desc(tenantPhones.id));
}

/**
 * Removes a registration of this tenant (recording `audit(row)` only if this call removed it); the
 * removed row, or undefined when there was none.
 */
export async function removePhone(db: Db, tenantId: string, id: string, audit?: (row: PhoneRow) => AuditEntry, now = Date.now()): Promise<PhoneRow | undefined> {
  const row = await db.select().from(tenantPhones).where(and(eq(tenantPhones.id, id), eq(tenantPhones.tenantId, tenantId))).get();
  if (!row) return undefined;
  const remove = db.delete(tenantPhones).where(and(eq(tenantPhones.id, id), eq(tenantPhones.tenantId, tenantId)));
  if (!audit) return (await remove.run()).meta.changes === 1 ? row : undefined;
  const registered = { sql: "EXISTS (SELECT 1 FROM tenant_phones WHERE id = ? AND tenant_id = ?)", params: [id, tenantId] };
  const [, removed] = await mixedBatch(db.$client, [auditInsertWhile(db, audit(row), now, registered), remove]);
  return removed?.meta.changes === 1 ? row : undefined;
}

export async function findPhone(db: Db, tenantId: string, phone: string): Promise<PhoneRow | undefined> {
  return db.select().from(tenantPhones).where(and(eq(tenantPhones.tenantId, tenantId), eq(tenantPhones.phone, phone))).get();
}

export async function isPhoneRegistered(db: Db, tenantId: string, phone: string): Promise<boolean> {
  return (await findPhone(db, tenantId, phone)) !== undefined;
}
