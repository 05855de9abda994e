import { createDb } from "../db/client";
import { findUploadById } from "../db/uploads";
import type { UploadDesks } from "../model/verification/upload-slots";
import type { CaptureFlowResult, MutationResult } from "./verification/context";
import type { CaptureFlowRecord } from "../model/verification/present";
import type { VerificationRecord } from "../db/verifications";
import { toApiError } from "../lib/errors";

/** The Durable Object that owns (and alone writes) a verification. */
export function verificationObject(env: Env, verificationId: string) {
  return env.VERIFICATIONS.get(env.VERIFICATIONS.idFromName(verificationId));
}

/**
 * Unwraps a mutation result: the post-write record (the whole one, or the capture flow's view of it),
 * or the ApiError the decision refused with.
 */
export function unwrap(result: MutationResult): { record: VerificationRecord; replayed: boolean };
export function unwrap(result: CaptureFlowResult): { record: CaptureFlowRecord; replayed: boolean };
export function unwrap(result: MutationResult | CaptureFlowResult): { record: VerificationRecord | CaptureFlowRecord; replayed: boolean } {
  if (!result.ok) throw toApiError(result);
  return { record: result.record, replayed: result.replayed === true };
}

/**
 * The upload route's desks: a verification's object claims, finishes and releases its uploads; an
 * upload URL that does not name its verification (minted before they did) is located by its row.
 */
export function uploadDesks(env: Env): UploadDesks {
  return {
    at(verificationId) {
      const object = verificationObject(env, verificationId);
      return {
        claim: (claim) => object.claimUpload(verificationId, claim),
        finish: (done) => object.finishUpload(verificationId, done),
        release: (objectKey, claimedAt) => object.releaseClaim(verificationId, objectKey, claimedAt),
      };
    },
    locate: async (uploadId) => (await findUploadById(createDb(env.DB), uploadId))?.verificationId ?? null,
  };
}
