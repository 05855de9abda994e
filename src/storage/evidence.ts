import { digestStream, type StreamDigest } from "../lib/crypto";
import { FILE_EXTENSIONS, type MediaType } from "../schemas/steps";

/**
 * The evidence bucket (R2): the one module that knows how image bytes are keyed and stored.
 * Every object of a verification lives under `verifications/<id>/`, which is what the orphan sweep lists.
 */

export function verificationPrefix(verificationId: string): string {
  return `verifications/${verificationId}/`;
}

export function objectKeyFor(verificationId: string, uploadId: string, kind: "image" | "forensic_buffer"): string {
  return `${verificationPrefix(verificationId)}${uploadId}${kind === "forensic_buffer" ? ".depth.png" : ""}`;
}

/** The capture's evidence thumbnail (written by its analysis). */
export function thumbnailKeyFor(verificationId: string, captureId: string): string {
  return `${verificationPrefix(verificationId)}${captureId}.thumb.jpg`;
}

/**
 * A capture's signed copy (Content Credentials, domain/credentials/serve.ts), named by a digest of
 * the signer and of what the manifest states: a cache, signed again when either changes.
 */
export function credentialsKeyFor(verificationId: string, captureId: string, mediaType: MediaType, digest: string): string {
  return `${credentialsPrefixFor(verificationId, captureId)}${digest.slice(0, 32)}.${FILE_EXTENSIONS[mediaType]}`;
}

/** Every signed copy of a capture starts with this (the orphan sweep keeps them while the capture exists). */
export function credentialsPrefixFor(verificationId: string, captureId: string): string {
  return `${verificationPrefix(verificationId)}${captureId}.c2pa.`;
}

/**
 * A live capture's burst strips (the reduced frames, the native patches), keyed by their digests, so
 * a retry carrying other bytes never replaces what the capture recorded (the extra objects are
 * orphans, which the sweep removes).
 */
export function burstKeysFor(verificationId: string, captureId: string, digests: { frames: string; patches: string }): { frames: string; patches: string } {
  const base = `${verificationPrefix(verificationId)}${captureId}`;
  return { frames: `${base}.frames.${digests.frames.slice(0, 16)}.png`, patches: `${base}.patches.${digests.patches.slice(0, 16)}.png` };
}

/** The burst strips a capture recorded (its capture-integrity record of version 2), if any. */
export function burstKeysOf(verificationId: string, capture: { id: string; captureIntegrity: unknown }): string[] {
  const r = capture.captureIntegrity as { schema_version?: unknown; frames?: { sha256?: unknown }; patches?: { sha256?: unknown } } | null;
  if (r?.schema_version !== 2 || typeof r.frames?.sha256 !== "string" || typeof r.patches?.sha256 !== "string") return [];
  const keys = burstKeysFor(verificationId, capture.id, { frames: r.frames.sha256, patches: r.patches.sha256 });
  return [keys.frames, keys.patches];
}

/** Whether an `image_key` is shaped like one this service mints for that verification. */
export function belongsTo(objectKey: string, verificationId: string): boolean {
  return objectKey.startsWith(verificationPrefix(verificationId));
}

export async function putEvidence(bucket: R2Bucket, key: string, bytes: Uint8Array, contentType: string, sha256: string): Promise<void> {
  await bucket.put(key, bytes, { httpMetadata: { contentType }, sha256 });
}

export async function readEvidence(bucket: R2Bucket, key: string): Promise<Uint8Array | null> {
  const object = await bucket.get(key);
  return object ? new Uint8Array(await object.arrayBuffer()) : null;
}

/** The stored object as a stream (the signed evidence URLs serve it), or null when it is gone. */
export async function openEvidence(bucket: R2Bucket, key: string): Promise<R2ObjectBody | null> {
  return bucket.get(key);
}

export async function deleteEvidence(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}

export type EvidenceDigest = ({ kind: "stored" } & StreamDigest) | { kind: "missing" } | { kind: "too_large" };

/**
 * Reads a stored object once, hashing it as it streams (never buffered whole): its size, SHA-256
 * and first bytes. An object larger than `maxBytes` is refused from its metadata before a byte of
 * its body is read (a get returns the metadata and the body of one version of the object).
 */
export async function digestEvidence(bucket: R2Bucket, key: string, maxBytes: number): Promise<EvidenceDigest> {
  const object = await bucket.get(key);
  if (!object) return { kind: "missing" };
  if (object.size > maxBytes) {
    await object.body.cancel();
    return { kind: "too_large" };
  }
  return { kind: "stored", ...(await digestStream(object.body)) };
}

/** Stores a stream of known length (a request body or a FixedLengthStream). */
export async function putEvidenceStream(bucket: R2Bucket, key: string, body: ReadableStream<Uint8Array>, contentType: string): Promise<void> {
  await bucket.put(key, body, { httpMetadata: { contentType } });
}

export interface StoredObject {
  key: string;
  uploadedAt: number;
}

/** Every object under the verification's prefix, with when it was stored (for the orphan sweep). */
export async function listEvidence(bucket: R2Bucket, verificationId: string): Promise<StoredObject[]> {
  const out: StoredObject[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: verificationPrefix(verificationId), ...(cursor ? { cursor } : {}) });
    for (const object of page.objects) out.push({ key: object.key, uploadedAt: object.uploaded.getTime() });
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

/**
 * Deletes every object under the verification's prefix (captures, depth maps, thumbnails, orphans),
 * a page of up to 1000 keys at a time. Idempotent: an empty prefix is a no-op. Returns how many went.
 */
export async function purgeVerification(bucket: R2Bucket, verificationId: string): Promise<number> {
  let deleted = 0;
  // Listing again after each delete (not following a cursor) leaves nothing behind that a page
  // boundary could skip. A verification holds a few dozen objects; the bound only stops a runaway.
  for (let round = 0; round < 100; round += 1) {
    const page = await bucket.list({ prefix: verificationPrefix(verificationId), limit: 1000 });
    if (page.objects.length === 0) return deleted;
    await bucket.delete(page.objects.map((o) => o.key));
    deleted += page.objects.length;
  }
  throw new Error(`purge of ${verificationId} did not empty its prefix`);
}
