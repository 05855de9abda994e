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

/** Size of a stored object without reading it (null when there is none). */
export async function evidenceSize(bucket: R2Bucket, key: string): Promise<number | null> {
  const head = await bucket.head(key);
  return head ? head.size : null;
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
