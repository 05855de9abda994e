import type { Db } from "../../db/client";
import { decodeRows } from "../../db/statements";
import { uploads, verifications } from "../../db/schema";
import type { VerificationRow } from "../../db/verifications";
import { unwrap, verificationObject } from "../../durable-objects/verification-client";
import type { CaptureInput } from "../../durable-objects/verification-object";
import { sha256Hex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { isId, newId } from "../../lib/ids";
import type { AttestationVerifier } from "../../providers/attestation";
import type { CaptureRequest } from "../../schemas/capture-flow";
import type { MediaType } from "../../schemas/steps";
import { belongsTo, deleteEvidence, objectKeyFor, putEvidence } from "../../storage/evidence";
import type { CaptureFlowRecord } from "../verification/present";
import { guardOpen } from "../verification/transitions";
import { base64LengthLimit, decodeBase64Image, INLINE_MAX_BYTES, sniffMediaType } from "./media";
import { resolveUpload, type UploadRow } from "./uploads";

/** The verification row behind a capture token, or 404 for malformed and unknown ids alike. */
export async function findByToken(db: Db, token: string) {
  return (await findForCapture(db, token)).row;
}

/**
 * The verification row behind a capture token and, in the same D1 round trip, the upload row an
 * `image_key` names (null when there is none; undefined when no key was given).
 */
export async function findForCapture(db: Db, token: string, objectKey?: string): Promise<{ row: VerificationRow; upload: UploadRow | null | undefined }> {
  if (!isId("verification", token)) throw ApiError.notFound("verification");
  // Prepared statements, not drizzle queries: every capture-flow write starts here (db/statements.ts).
  const d1 = db.$client;
  const byId = d1.prepare("SELECT * FROM verifications WHERE id = ?").bind(token);
  let row: VerificationRow | undefined;
  let upload: UploadRow | null | undefined;
  if (objectKey === undefined) row = decodeRows(verifications, await byId.all())[0];
  else {
    const [rows, found] = await d1.batch([byId, d1.prepare("SELECT * FROM uploads WHERE object_key = ?").bind(objectKey)]);
    row = decodeRows(verifications, rows!)[0];
    upload = decodeRows(uploads, found!)[0] ?? null;
  }
  if (!row) throw ApiError.notFound("verification");
  return { row, upload };
}

/** Refuses capture-flow writes to a verification that is over, before any bytes are stored. */
export function assertOpen(row: Awaited<ReturnType<typeof findByToken>>, now: number): void {
  const closed = guardOpen(row, now);
  if (closed) throw new ApiError(closed.error.code, closed.error.message);
  if (row.submittedAt !== null) throw new ApiError("invalid_state", "The end user already submitted this verification.");
}

export interface CaptureContext {
  env: Env;
  db: Db;
  verifier: AttestationVerifier;
  remoteIp: string | undefined;
  now: number;
}

/**
 * Submits a capture in either body shape. Inline bytes are stored first and deleted again if the
 * Durable Object refuses the capture; key-reference bytes were stored by the upload and are only
 * checked (digest, sniffed type) here. The Durable Object decides the step, capacity and status.
 */
export async function submitCapture(
  ctx: CaptureContext,
  row: Awaited<ReturnType<typeof findByToken>>,
  body: CaptureRequest,
  /** the upload row `body.image_key` names, when the caller read it with the verification */
  uploadRow?: UploadRow | null,
): Promise<{ record: CaptureFlowRecord; replayed: boolean }> {
  const verificationId = row.id;
  const bucket = ctx.env.EVIDENCE;
  const common = await commonFields(ctx, verificationId, body);

  if (body.image_key !== undefined) {
    if (!belongsTo(body.image_key, verificationId)) {
      throw ApiError.invalid({ image_key: "Unknown image_key for this verification; mint one with captures/upload-url." });
    }
    const upload = await resolveUpload(bucket, ctx.db, {
      verificationId,
      objectKey: body.image_key,
      kind: "image",
      field: "image_key",
      now: ctx.now,
      ...(uploadRow !== undefined ? { row: uploadRow } : {}),
    });
    if (upload.sha256 !== body.image_sha256!.toLowerCase()) {
      throw new ApiError("checksum_mismatch", "The stored bytes do not match image_sha256.", { fields: { image_sha256: "Does not match the uploaded bytes." } });
    }
    const mediaType = mediaTypeOf(upload.sniffedType);
    if (mediaType !== upload.row.contentType) {
      throw new ApiError("unsupported_media_type", `The uploaded bytes are ${mediaType}, not the declared ${upload.row.contentType}.`);
    }
    const inspected = [...(common.uploads ?? []), ...(upload.inspected ? [upload.inspected] : [])];
    const result = await verificationObject(ctx.env, verificationId).addCapture(verificationId, {
      ...common,
      captureId: upload.row.id,
      imageKey: body.image_key,
      mediaType,
      sizeBytes: upload.sizeBytes,
      sha256: upload.sha256,
      ...(inspected.length > 0 ? { uploads: inspected } : {}),
    });
    return unwrap(result);
  }

  const text = body.image_base64!;
  if (text.length > base64LengthLimit(INLINE_MAX_BYTES)) {
    throw new ApiError("payload_too_large", `Inline images are limited to ${INLINE_MAX_BYTES} bytes; use captures/upload-url.`);
  }
  const bytes = decodeBase64Image(text);
  if (!bytes) throw ApiError.invalid({ image_base64: "Not valid base64." });
  if (bytes.length > INLINE_MAX_BYTES) {
    throw new ApiError("payload_too_large", `Inline images are limited to ${INLINE_MAX_BYTES} bytes; use captures/upload-url.`);
  }
  const mediaType = mediaTypeOf(sniffMediaType(bytes));
  assertOpen(row, ctx.now);
  const captureId = newId("capture", ctx.now);
  const imageKey = objectKeyFor(verificationId, captureId, "image");
  const sha256 = await sha256Hex(bytes);
  await putEvidence(bucket, imageKey, bytes, mediaType, sha256);
  try {
    const result = await verificationObject(ctx.env, verificationId).addCapture(verificationId, {
      ...common,
      captureId,
      imageKey,
      mediaType,
      sizeBytes: bytes.length,
      sha256,
    });
    if (!result.ok) await deleteEvidence(bucket, [imageKey]);
    return unwrap(result);
  } catch (err) {
    await deleteEvidence(bucket, [imageKey]);
    throw err;
  }
}

function mediaTypeOf(sniffed: string | null): MediaType {
  if (!sniffed) throw new ApiError("unsupported_media_type", "The bytes are not a JPEG, PNG, WebP, HEIC or HEIF image.");
  return sniffed as MediaType;
}

async function commonFields(ctx: CaptureContext, verificationId: string, body: CaptureRequest): Promise<Omit<CaptureInput, "captureId" | "imageKey" | "mediaType" | "sizeBytes" | "sha256">> {
  const out: Omit<CaptureInput, "captureId" | "imageKey" | "mediaType" | "sizeBytes" | "sha256"> = {};
  if (body.step_key !== undefined) out.stepKey = body.step_key;
  if (body.surface !== undefined) out.surface = body.surface;
  if (body.client_captured_at !== undefined) {
    out.clientCapturedAt = typeof body.client_captured_at === "number" ? body.client_captured_at : Date.parse(body.client_captured_at);
  }
  if (body.location !== undefined) out.location = body.location;
  if (body.forensic_buffer_key !== undefined) {
    if (!belongsTo(body.forensic_buffer_key, verificationId)) {
      throw ApiError.invalid({ forensic_buffer_key: "Unknown forensic_buffer_key for this verification." });
    }
    const buffer = await resolveUpload(ctx.env.EVIDENCE, ctx.db, {
      verificationId,
      objectKey: body.forensic_buffer_key,
      kind: "forensic_buffer",
      field: "forensic_buffer_key",
      now: ctx.now,
    });
    if (buffer.sniffedType !== "image/png") {
      throw new ApiError("unsupported_media_type", "A forensic buffer must be a 16-bit grayscale PNG depth map.");
    }
    out.forensicBufferKey = body.forensic_buffer_key;
    if (buffer.inspected) out.uploads = [buffer.inspected];
  }
  if (body.attestation_token !== undefined) {
    out.attestation = await ctx.verifier.verify(body.attestation_token, ctx.remoteIp, ctx.now);
  }
  return out;
}
