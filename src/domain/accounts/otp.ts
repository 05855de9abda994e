import { and, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { otpCodes } from "../../db/schema";
import { hmacSha256, timingSafeEqualStrings, toHex } from "../../lib/crypto";
import { signingKey } from "../../lib/signing-keys";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { isPhoneRegistered } from "./phones";

/** Messaging one-time codes (`walotp_`): six digits, hashed at rest, 10 minutes, 5 attempts. */
export const OTP_TTL_MS = 10 * 60 * 1000;
export const OTP_MAX_ATTEMPTS = 5;
export const PHONE_PROVIDER = "phone";
/** The role a phone's user gets in the tenant that registered the phone, on their first code (an admin may change it). */
export const PHONE_MEMBER_ROLE = "reviewer" as const;

/** A uniformly random six-digit code (rejection sampling, no modulo bias). */
export function randomCode(): string {
  const limit = Math.floor(0x1_0000_0000 / 1_000_000) * 1_000_000;
  for (;;) {
    const [n] = crypto.getRandomValues(new Uint32Array(1));
    if (n! < limit) return String(n! % 1_000_000).padStart(6, "0");
  }
}

/** Keyed with the deployment's key for code hashes: a leaked table does not give the codes away to brute force. */
async function codeHash(env: Env, otpId: string, code: string): Promise<string> {
  return toHex(await hmacSha256(await signingKey(env, "otp_codes"), `otp.${otpId}.${code}`));
}

/**
 * Issues a code for `phone` to sign in to `tenantId`; the bot delivers it. Only a phone an admin of
 * that tenant registered (`POST /v1/phones`) gets one. Its user may belong to other tenants too:
 * the code signs in to this one (joining it as `PHONE_MEMBER_ROLE` the first time).
 */
export async function issueOtp(env: Env, db: Db, input: { tenantId: string; phone: string }, now = Date.now()) {
  if (!(await isPhoneRegistered(db, input.tenantId, input.phone))) {
    throw new ApiError("forbidden", "This phone number is not registered for this tenant: an operator of the tenant registers it first (POST /v1/phones).");
  }
  const id = newId("otp", now);
  const code = randomCode();
  const expiresAt = now + OTP_TTL_MS;
  await db.insert(otpCodes).values({
    id,
    tenantId: input.tenantId,
    phone: input.phone,
    codeHash: await codeHash(env, id, code),
    attempts: 0,
    expiresAt,
    usedAt: null,
    createdAt: now,
  });
  return { id, code, expiresAt };
}

export type OtpOutcome =
  | { ok: true; tenantId: string; phone: string }
  | { ok: false; reason: "wrong_code" | "locked" | "expired" | "unknown" | "unregistered" };

/**
 * Checks a code. Every try first takes one of the 5 attempts in a single conditional UPDATE, so
 * concurrent guesses cannot exceed the budget; the right code then spends the record (single use).
 * The code signs in to the tenant it was issued for, and only while its phone is still registered there.
 */
export async function verifyOtp(env: Env, db: Db, input: { otpId: string; code: string }, now = Date.now()): Promise<OtpOutcome> {
  const row = await db
    .update(otpCodes)
    .set({ attempts: sql`${otpCodes.attempts} + 1` })
    .where(and(eq(otpCodes.id, input.otpId), isNull(otpCodes.usedAt), gt(otpCodes.expiresAt, now), lt(otpCodes.attempts, OTP_MAX_ATTEMPTS)))
    .returning()
    .get();
  if (!row) return { ok: false, reason: await whyUnusable(db, input.otpId, now) };
  if (!(await timingSafeEqualStrings(await codeHash(env, row.id, input.code), row.codeHash))) {
    return { ok: false, reason: row.attempts >= OTP_MAX_ATTEMPTS ? "locked" : "wrong_code" };
  }
  const spent = await db
    .update(otpCodes)
    .set({ usedAt: now })
    .where(and(eq(otpCodes.id, row.id), isNull(otpCodes.usedAt)))
    .returning({ id: otpCodes.id })
    .get();
  if (!spent) return { ok: false, reason: "expired" };
  if (!(await isPhoneRegistered(db, row.tenantId, row.phone))) return { ok: false, reason: "unregistered" };
  return { ok: true, tenantId: row.tenantId, phone: row.phone };
}

async function whyUnusable(db: Db, otpId: string, now: number): Promise<"locked" | "expired" | "unknown"> {
  const row = await db.select().from(otpCodes).where(eq(otpCodes.id, otpId)).get();
  if (!row) return "unknown";
  if (row.usedAt === null && row.expiresAt > now && row.attempts >= OTP_MAX_ATTEMPTS) return "locked";
  return "expired";
}
