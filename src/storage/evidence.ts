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

/**
 * Deletes objects under the verification's prefix that no capture references and that are older
 * than `graceMs` (an upload may still be in flight). Returns the deleted keys.
 */
export async function sweepOrphans(
  bucket: R2Bucket,
  verificationId: string,
  referenced: Set<string>,
  now: number,
  graceMs: number,
): Promise<string[]> {
  const orphans: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: verificationPrefix(verificationId), ...(cursor ? { cursor } : {}) });
    for (const object of page.objects) {
      if (!referenced.has(object.key) && object.uploaded.getTime() <= now - graceMs) orphans.push(object.key);
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  await deleteEvidence(bucket, orphans);
  return orphans;
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
