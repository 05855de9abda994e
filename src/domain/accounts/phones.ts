import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { tenantPhones } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { isUniqueViolation } from "../tenants/tenants";

/*
 * The phones an operator registered for their tenant. The messaging bot may issue a dashboard
 * sign-in code only for one of these (accounts/otp.ts), so holding the bot's HMAC secret is not
 * enough to add a user to a tenant: someone already inside it must have vouched for the number.
 */

export type PhoneRow = typeof tenantPhones.$inferSelect;

export async function registerPhone(
  db: Db,
  input: { tenantId: string; phone: string; label?: string; registeredBy: string },
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
  try {
    await db.insert(tenantPhones).values(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw ApiError.invalid({ phone: "This number is already registered for this tenant." });
    throw err;
  }
  return row;
}

export async function listPhones(db: Db, tenantId: string): Promise<PhoneRow[]> {
  return db.select().from(tenantPhones).where(eq(tenantPhones.tenantId, tenantId)).orderBy(desc(tenantPhones.createdAt), desc(tenantPhones.id));
}

/** Removes a registration of this tenant; the removed row, or undefined when there was none. */
export async function removePhone(db: Db, tenantId: string, id: string): Promise<PhoneRow | undefined> {
  return db.delete(tenantPhones).where(and(eq(tenantPhones.id, id), eq(tenantPhones.tenantId, tenantId))).returning().get();
}

export async function isPhoneRegistered(db: Db, tenantId: string, phone: string): Promise<boolean> {
  const row = await db
    .select({ id: tenantPhones.id })
    .from(tenantPhones)
    .where(and(eq(tenantPhones.tenantId, tenantId), eq(tenantPhones.phone, phone)))
    .get();
  return row !== undefined;
}
