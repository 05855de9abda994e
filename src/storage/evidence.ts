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
