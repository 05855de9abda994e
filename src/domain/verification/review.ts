import type { Db } from "../../db/client";
import { loadTenantRecord, type VerificationRecord } from "../../db/verifications";
import { unwrap, verificationObject } from "../../durable-objects/verification-client";
import { ApiError } from "../../lib/errors";
import { isId } from "../../lib/ids";
import type { ReviewCommand } from "../../model/verification/transitions";
import type { AuditEntry } from "../audit/log";

/**
 * Records an operator's review of a tenant's verification (404 for another tenant's); `audit`
 * (`verification.reviewed`) goes in the review's own batch, written by the verification's object.
 */
export async function reviewVerification(env: Env, db: Db, input: { tenantId: string; id: string; audit?: AuditEntry } & ReviewCommand): Promise<VerificationRecord> {
  const existing = isId("verification", input.id) ? await loadTenantRecord(db, input.tenantId, input.id) : null;
  if (!existing) throw ApiError.notFound("verification");
  const { decision, note, by, replaces } = input;
  return unwrap(await verificationObject(env, input.id).review(input.id, { decision, note, by, ...(replaces !== undefined ? { replaces } : {}) }, input.audit)).record;
}
