import type { Db } from "../../db/client";
import { decodeRows } from "../../db/statements";
import { verifications } from "../../db/schema";
import type { VerificationRow } from "../../db/verifications";
import { unwrap, verificationObject } from "../../durable-objects/verification-client";
import type { CaptureInput } from "../../model/verification/capture";
import { sha256Hex } from "../../lib/crypto";
import { ApiError, toApiError } from "../../lib/errors";
import { isId, newId } from "../../lib/ids";
import type { AttestationVerifier } from "../../providers/attestation";
import type { CaptureRequest } from "../../schemas/capture-flow";
import type { MediaType } from "../../schemas/steps";
import { belongsTo, deleteEvidence, objectKeyFor, putEvidence } from "../../storage/evidence";
import type { CaptureFlowRecord } from "../../model/verification/present";
import { checkUploadMint, evidenceStepNamed, guardLive } from "../../model/verification/transitions";
import { base64LengthLimit, decodeBase64Image, INLINE_MAX_BYTES } from "./media";
import { sniffMediaType } from "../../model/evidence/media-type";
import { readUpload, resolveUpload } from "./uploads";
import { receiveBurst, storeBurst, type ReceivedBurst } from "./burst";
import type { UploadSlot } from "../../model/verification/upload-slots";

/** The verification row behind a capture token, or 404 for malformed and unknown ids alike. */
export async function findByToken(db: Db, token: string): Promise<VerificationRow> {
  if (!isId("verification", token)) throw ApiError.notFound("verification");
  // A prepared statement, not a drizzle query: every capture-flow write but a key-reference capture starts here (db/statements.ts).
  const row = decodeRows(verifications, await db.$client.prepare("SELECT * FROM verifications WHERE id = ?").bind(token).all())[0];
  if (!row) throw ApiError.notFound("verification");
  return row;
}

/**
 * The upload a key-reference capture names, and whether a capture already holds it (a retry), asked
 * of the verification's Durable Object, which keeps what it minted (`VerificationObject#uploadFor`):
 * 404 for malformed and unknown ids alike.
 */
export interface FoundUpload {
  slot: UploadSlot;
  /** A capture already holds this image_key: the retry is answered whenever it comes. */
  retryOf?: { forensicBufferKey: string | null };
}

export async function findUploadFor(env: Env, token: string, imageKey: string): Promise<FoundUpload> {
  if (!isId("verification", token)) throw ApiError.notFound("verification");
  const found = await verificationObject(env, token).uploadFor(token, imageKey);
  if (!found.ok) throw toApiError(found);
  return { slot: found.upload, ...(found.retryOf ? { retryOf: found.retryOf } : {}) };
}

/**
 * What the row alone decides about a capture before its body is looked at: a dead link (410
 * `redacted` or `expired`, before the body's size, type or checksum), then a `step_key` that names
 * no evidence step (400 `unknown_step`, whatever the capacity).
 */
function assertLiveStep(row: VerificationRow, stepKey: string | undefined, now: number): void {
  const refused = guardLive(row, now) ?? (stepKey !== undefined ? evidenceStepNamed(row.config, stepKey) : null);
  if (refused && "ok" in refused) throw toApiError(refused);
}

/**
 * Refuses an inline capture before its bytes are stored when every slot is used (409 `step_full`).
 * Anything else (which step, a finished or submitted verification with room left) the Durable
 * Object decides.
 */
function assertCapturable(row: VerificationRow, now: number): void {
  const refused = row.capturesCount >= row.config.max_captures ? checkUploadMint(row, now) : null;
  if (refused) throw toApiError(refused);
}

/** What a capture answers: the end user's view of the verification after it. */
type CaptureFlowAnswer = { record: CaptureFlowRecord; replayed?: boolean };

export interface CaptureContext {
  env: Env;
  db: Db;
  verifier: AttestationVerifier;
  remoteIp: string | undefined;
  now: number;
}

/**
 * A key-reference capture: the bytes were stored by an upload (`found`, checked by `findUploadFor`),
 * and are only read (once, if the Worker has not seen them) and checked here: digest, sniffed type.
 * The Durable Object decides the step, capacity and status.
 */
export async function captureUpload(ctx: CaptureContext, verificationId: string, body: CaptureRequest, found: FoundUpload): Promise<CaptureFlowAnswer> {
  const { slot, retryOf } = found;
  // A retry naming the forensic buffer its capture holds takes it as it takes the image, whenever it comes.
  const heldBuffer = retryOf?.forensicBufferKey ?? undefined;
  const { fields: common, burst } = await commonFields(ctx, verificationId, body, heldBuffer);
  const upload = await readUpload(ctx.env.EVIDENCE, slot, { verificationId, kind: "image", field: "image_key", now: ctx.now });
  if (upload.sha256 !== body.image_sha256!.toLowerCase()) {
    throw new ApiError("checksum_mismatch", "The stored bytes do not match image_sha256 (the digest sent with the capture).");
  }
  if (upload.sniffedType === null || upload.sniffedType !== slot.contentType) {
    // No capture can ever take these bytes: their upload URL goes back to the cap, and they go.
    if (!retryOf && (await verificationObject(ctx.env, verificationId).releaseUpload(verificationId, slot.objectKey))) {
      await deleteEvidence(ctx.env.EVIDENCE, [slot.objectKey]);
    }
    const mediaType = mediaTypeOf(upload.sniffedType);
    throw new ApiError("unsupported_media_type", `The uploaded bytes are ${mediaType}, not the declared ${slot.contentType}.`);
  }
  const mediaType = mediaTypeOf(upload.sniffedType);
  const inspected = [...(common.uploads ?? []), ...(upload.inspected ? [upload.inspected] : [])];
  // Keyed by the slot's capture id and their digests: a retry of a capture already held writes the
  // same objects again. Strips of a refused capture are not deleted here (they may be the held
  // capture's): unreferenced, they are orphans the sweep the upload booked removes.
  if (burst) await storeBurst(ctx.env.EVIDENCE, verificationId, slot.id, burst);
  const result = await verificationObject(ctx.env, verificationId).addCapture(verificationId, {
    ...common,
    captureId: slot.id,
    imageKey: slot.objectKey,
    mediaType,
    sizeBytes: upload.sizeBytes,
    sha256: upload.sha256,
    ...(inspected.length > 0 ? { uploads: inspected } : {}),
  });
  return unwrap(result);
}

/**
 * An inline capture: the bytes are stored first and deleted again if the Durable Object refuses the
 * capture.
 */
export async function captureInline(ctx: CaptureContext, row: VerificationRow, body: CaptureRequest): Promise<CaptureFlowAnswer> {
  const verificationId = row.id;
  const bucket = ctx.env.EVIDENCE;
  assertLiveStep(row, body.step_key, ctx.now);
  const { fields: common, burst } = await commonFields(ctx, verificationId, body);
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
  assertCapturable(row, ctx.now);
  const captureId = newId("capture", ctx.now);
  const imageKey = objectKeyFor(verificationId, captureId, "image");
  const sha256 = await sha256Hex(bytes);
  await putEvidence(bucket, imageKey, bytes, mediaType, sha256);
  const stored = [imageKey];
  try {
    if (burst) stored.push(...(await storeBurst(bucket, verificationId, captureId, burst)));
    const result = await verificationObject(ctx.env, verificationId).addCapture(verificationId, {
      ...common,
      captureId,
      imageKey,
      mediaType,
      sizeBytes: bytes.length,
      sha256,
    });
    if (!result.ok) await deleteEvidence(bucket, stored);
    return unwrap(result);
  } catch (err) {
    await deleteEvidence(bucket, stored);
    throw err;
  }
}

function mediaTypeOf(sniffed: string | null): MediaType {
  if (!sniffed) throw new ApiError("unsupported_media_type", "The bytes are not a JPEG, PNG, WebP, HEIC or HEIF image.");
  return sniffed as MediaType;
}

type CommonFields = Omit<CaptureInput, "captureId" | "imageKey" | "mediaType" | "sizeBytes" | "sha256">;

/** What a capture carries besides its image, checked; a burst's strips come back to be stored once the capture's id is known. */
async function commonFields(
  ctx: CaptureContext,
  verificationId: string,
  body: CaptureRequest,
  heldBuffer?: string,
): Promise<{ fields: CommonFields; burst: ReceivedBurst | null }> {
  const out: CommonFields = {};
  let burst: ReceivedBurst | null = null;
  if (body.step_key !== undefined) out.stepKey = body.step_key;
  if (body.surface !== undefined) out.surface = body.surface;
  if (body.client_captured_at !== undefined) {
    out.clientCapturedAt = typeof body.client_captured_at === "number" ? body.client_captured_at : Date.parse(body.client_captured_at);
  }
  if (body.location !== undefined) out.location = body.location;
  if (body.capture_integrity?.schema_version === 2) {
    burst = await receiveBurst(body.capture_integrity);
    out.captureIntegrity = burst.record;
  } else if (body.capture_integrity !== undefined) {
    out.captureIntegrity = body.capture_integrity;
  }
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
      persisted: heldBuffer !== undefined && body.forensic_buffer_key === heldBuffer,
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
  return { fields: out, burst };
}
