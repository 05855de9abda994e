import { verificationObject } from "../../durable-objects/verification-client";
import type { Db } from "../../db/client";
import { findUpload, type UploadDigest } from "../../db/uploads";
import { digestStream, signToken, verifyToken, type StreamDigest } from "../../lib/crypto";
import { ApiError, toApiError } from "../../lib/errors";
import { isId, newId } from "../../lib/ids";
import { MEDIA_TYPES } from "../../schemas/steps";
import { deleteEvidence, digestEvidence, objectKeyFor, putEvidenceStream } from "../../storage/evidence";
import { presignPut, r2Credentials } from "../../storage/presign";
import { normalizeContentType } from "./media";
import { sniffMediaType } from "../../model/evidence/media-type";
import { checkSlot, type UploadDesks, type UploadKind, type UploadSlot, type UploadUse } from "../../model/verification/upload-slots";

const TOKEN_PURPOSE = "upload";

export interface MintedUpload {
  upload_url: string;
  image_key: string;
  capture_id: string;
  expires_at: string;
}

/** Checks the declared media type against what a `kind` of upload may carry (415 otherwise). */
export function acceptedContentType(kind: UploadKind, declared: string): string {
  const type = normalizeContentType(declared);
  const allowed: readonly string[] = kind === "forensic_buffer" ? ["image/png"] : MEDIA_TYPES;
  if (!allowed.includes(type)) {
    throw new ApiError("unsupported_media_type", `content_type ${JSON.stringify(type || "(empty)")} is not accepted: a ${kind} upload must be one of ${allowed.join(", ")}.`);
  }
  return type;
}

/**
 * Mints an upload URL, unless the verification already holds its cap of open ones for that kind:
 * uploads no capture references whose URL is still valid or whose bytes are stored and still
 * capturable (`CAPTURE_WINDOW_MS`). In direct mode the Worker does not see the PUT, so every
 * uncaptured upload within its window counts. The verification's Durable Object checks the request
 * against the verification (404, 410, 409: `planUpload`) and inserts the row (`insertUpload`): it
 * counts the verification's writes first (429 beyond its limit, nothing minted), keeps the slot for
 * the capture, and arms the sweep for bytes never captured, even while the verification stays open.
 * `contentType` is already accepted for `kind` (`acceptedContentType`).
 */
export async function mintUpload(
  env: Env,
  options: { verificationId: string; kind: UploadKind; contentType: string; baseUrl: string; secret: string; now: number },
): Promise<MintedUpload> {
  const { verificationId, kind, contentType, now } = options;
  if (!isId("verification", verificationId)) throw ApiError.notFound("verification");
  const creds = r2Credentials(env);
  const id = newId("capture", now);
  const request = { id, kind, objectKey: objectKeyFor(verificationId, id, kind), contentType, direct: creds !== null, now };
  const minted = await verificationObject(env, verificationId).mintUpload(verificationId, request);
  if (!minted.ok) throw toApiError(minted);
  const { slot } = minted;
  const uploadUrl = creds
    ? await presignPut(creds, slot.objectKey, contentType, new Date(now), (slot.expiresAt - now) / 1000)
    : `${options.baseUrl}/v1/uploads/${await signToken(options.secret, TOKEN_PURPOSE, { id: slot.id, v: verificationId, exp: slot.expiresAt })}`;
  return { upload_url: uploadUrl, image_key: slot.objectKey, capture_id: slot.id, expires_at: new Date(slot.expiresAt).toISOString() };
}

/**
 * The Worker upload route: verifies the signed URL, claims the upload at its verification's object
 * (single use), reads at most `max_bytes`, and stores the bytes with their SHA-256 and sniffed type.
 * A failed attempt releases the claim so the client can retry the same URL within its five minutes;
 * a claim left behind by an attempt that never finished (the isolate died) can be retaken after 60 s.
 * A URL minted before URLs named their verification (`v`) finds it from the upload's row.
 */
export async function receiveUpload(
  bucket: R2Bucket,
  desks: UploadDesks,
  options: {
    token: string;
    secret: string;
    contentType: string | undefined;
    contentLength: string | undefined;
    body: ReadableStream<Uint8Array> | null;
    now: number;
  },
): Promise<{ image_key: string; size_bytes: number; sha256: string }> {
  const claims = (await verifyToken(options.secret, TOKEN_PURPOSE, options.token)) as { id?: unknown; v?: unknown; exp?: unknown } | null;
  if (!claims || typeof claims.id !== "string" || typeof claims.exp !== "number" || (claims.v !== undefined && typeof claims.v !== "string")) {
    throw ApiError.notFound("upload URL");
  }
  if (claims.exp <= options.now) throw new ApiError("expired", "This upload URL has expired; request a new one.");
  const verificationId = claims.v ?? (await desks.locate(claims.id));
  if (!verificationId || !isId("verification", verificationId)) throw ApiError.notFound("upload URL");
  const desk = desks.at(verificationId);
  const contentType = normalizeContentType(options.contentType ?? "");
  const declared = options.contentLength === undefined ? NaN : Number(options.contentLength);
  const sendable = Number.isSafeInteger(declared) && declared > 0 && options.body !== null;
  const claimedAt = options.now;
  // The claim takes only a slot the body fits (its type, its size), and only while the link lives
  // (a dead one is 410 before the body is looked at).
  const found = await desk.claim({ uploadId: claims.id, fits: sendable ? { contentType, sizeBytes: declared } : null, now: claimedAt });
  if (!found.ok) throw toApiError(found);
  const { slot, claimed } = found;
  if (slot.status === "uploaded") throw new ApiError("invalid_state", "This upload URL was already used.");
  if (contentType !== slot.contentType) {
    throw new ApiError("unsupported_media_type", `This upload URL only accepts Content-Type ${slot.contentType}.`);
  }
  if (!Number.isSafeInteger(declared) || declared < 0) {
    throw ApiError.invalid({ "content-length": "A Content-Length header is required." });
  }
  if (declared > slot.maxBytes) throw new ApiError("payload_too_large", `This upload accepts at most ${slot.maxBytes} bytes.`);
  if (!sendable || !options.body) throw ApiError.invalid({ body: "The upload is empty." });
  if (!claimed) throw new ApiError("invalid_state", "This upload URL is in use or was already used.");
  // Only the holder of the current claim may finish or release it (a stale attempt may still wake up).
  try {
    const stored = await storeStreaming(bucket, slot.objectKey, slot.contentType, options.body, declared);
    const digest = { sizeBytes: stored.size, sha256: stored.sha256, sniffedType: sniffMediaType(stored.head) };
    const finished = await desk.finish({ objectKey: slot.objectKey, claimedAt, digest, now: options.now });
    if (!finished.ok) throw toApiError(finished);
    return { image_key: slot.objectKey, size_bytes: stored.size, sha256: stored.sha256 };
  } catch (err) {
    // A release that fails too leaves the claim to go stale (STALE_CLAIM_MS): the first error is the one to answer.
    await desk.release(slot.objectKey, claimedAt).catch(() => undefined);
    throw err;
  }
}

/** The body ended before, or ran past, the Content-Length it declared. */
class LengthMismatch extends Error {}

/**
 * Streams the request body into R2 while hashing it: one pass, never buffered whole, in chunks of
 * `READ_CHUNK_BYTES` (`digestStream` with a forward). R2 reads a stream of exactly the declared
 * Content-Length (already checked against the slot); a body that ends before it or runs past it is
 * refused (400) and whatever R2 stored of it deleted. R2 failing stops the forwarding at once (it
 * reads nothing more) and is ours (500).
 */
async function storeStreaming(bucket: R2Bucket, key: string, contentType: string, body: ReadableStream<Uint8Array>, length: number): Promise<StreamDigest> {
  const fixed = new FixedLengthStream(length);
  const toStore = fixed.writable.getWriter();
  toStore.closed.catch(() => undefined); // rejects when aborted below: handled there
  const storage: { failure: { reason: unknown } | null } = { failure: null };
  const storing = putEvidenceStream(bucket, key, fixed.readable, contentType).then(
    () => true,
    (reason: unknown) => {
      storage.failure = { reason };
      return false;
    },
  );
  const storageFailed = storing.then((stored) => (stored ? new Promise<never>(() => undefined) : Promise.reject(storage.failure!.reason)));
  storageFailed.catch(() => undefined);
  let forwarded = 0;
  try {
    const hashed = await digestStream(body, async (chunk) => {
      forwarded += chunk.byteLength;
      if (forwarded > length) throw new LengthMismatch();
      await Promise.race([toStore.write(chunk), storageFailed]);
    });
    if (hashed.size !== length) throw new LengthMismatch();
    await Promise.race([toStore.close(), storageFailed]);
    if (!(await storing)) throw storage.failure!.reason;
    return hashed;
  } catch (error) {
    // Whose failure it is, decided before the abort below makes R2's read fail too.
    const failedStorage = storage.failure;
    await toStore.abort(error).catch(() => undefined);
    if (await storing) await deleteEvidence(bucket, [key]);
    if (failedStorage) throw failedStorage.reason;
    // The body broke or did not match its length: the client's (400), never a half-stored object.
    throw ApiError.invalid({ body: "The body does not match its Content-Length." });
  }
}

/** A stored upload as a capture sees it: its digest, size and sniffed type. */
export interface StoredUpload {
  sizeBytes: number;
  sha256: string;
  sniffedType: string | null;
  /** Inspected just now (a direct upload on first use): to be recorded with the capture. */
  inspected: UploadDigest | null;
}

/**
 * Finds the upload behind an `image_key` (or `forensic_buffer_key`) of this verification in D1,
 * checks it (`checkSlot`) and reads it (`readUpload`).
 */
export async function resolveUpload(bucket: R2Bucket, db: Db, use: UploadUse & { objectKey: string }): Promise<StoredUpload> {
  const slot = await findUpload(db, use.objectKey);
  const refused = checkSlot(slot, use);
  if (refused) throw toApiError(refused);
  return readUpload(bucket, slot!, use);
}

/**
 * The bytes of a checked upload. Uploads that went straight to R2 (presigned mode) are read once on
 * first use, hashed as they stream, their size checked against the slot from the object's metadata
 * before a byte is read; the caller records what was learnt with the capture (`inspected`). Bytes
 * the Worker already read (its upload route, or an earlier capture of them) are not read again.
 */
export async function readUpload(bucket: R2Bucket, slot: UploadSlot, use: UploadUse): Promise<StoredUpload> {
  if (slot.status === "uploaded" && slot.sha256 && slot.sizeBytes !== null) {
    return { sizeBytes: slot.sizeBytes, sha256: slot.sha256, sniffedType: slot.sniffedType, inspected: null };
  }
  const read = await digestEvidence(bucket, slot.objectKey, slot.maxBytes);
  if (read.kind === "missing") throw ApiError.invalid({ [use.field]: "Nothing was uploaded to this key yet." });
  if (read.kind === "too_large") {
    await deleteEvidence(bucket, [slot.objectKey]);
    throw new ApiError("payload_too_large", `This upload accepts at most ${slot.maxBytes} bytes.`);
  }
  const sniffedType = sniffMediaType(read.head);
  return {
    sizeBytes: read.size,
    sha256: read.sha256,
    sniffedType,
    inspected: { id: slot.id, sizeBytes: read.size, sha256: read.sha256, sniffedType, uploadedAt: use.now },
  };
}
