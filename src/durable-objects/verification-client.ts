import type { MutationResult } from "./verification-object";
import type { VerificationRecord } from "../db/verifications";
import { toApiError } from "../lib/errors";

/** The Durable Object that owns (and alone writes) a verification. */
export function verificationObject(env: Env, verificationId: string) {
  return env.VERIFICATIONS.get(env.VERIFICATIONS.idFromName(verificationId));
}

/** Unwraps a mutation result: the post-write record, or the ApiError the decision refused with. */
export function unwrap(result: MutationResult): { record: VerificationRecord; replayed: boolean } {
  if (!result.ok) throw toApiError(result);
  return { record: result.record as VerificationRecord, replayed: result.replayed === true };
}
