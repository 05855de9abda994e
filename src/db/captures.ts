import { and, eq } from "drizzle-orm";
import type { Db } from "./client";
import { captures, uploads, verifications } from "./schema";

/** Which verification and tenant a capture id belongs to (null when unknown). */
export async function captureOwner(db: Db, captureId: string): Promise<{ verificationId: string; tenantId: string } | null> {
  const row = await db
    .select({ verificationId: captures.verificationId, tenantId: captures.tenantId })
    .from(captures)
    .where(eq(captures.id, captureId))
    .get();
  return row ?? null;
}

/** SHA-256 of each stored forensic buffer (depth map) of a verification, by object key. */
export async function depthMapDigests(db: Db, verificationId: string): Promise<Map<string, string>> {
  const rows = await db
    .select({ key: uploads.objectKey, sha256: uploads.sha256 })
    .from(uploads)
    .where(and(eq(uploads.verificationId, verificationId), eq(uploads.kind, "forensic_buffer"), eq(uploads.status, "uploaded")));
  return new Map(rows.flatMap((r) => (r.sha256 ? [[r.key, r.sha256] as const] : [])));
}

/** What the evidence download needs to find a capture's objects (null for an unknown capture). */
export async function captureObjects(db: Db, captureId: string) {
  const row = await db
    .select({
      verificationId: captures.verificationId,
      imageKey: captures.imageKey,
      contentType: captures.contentType,
      forensicBufferKey: captures.forensicBufferKey,
      redactedAt: verifications.redactedAt,
    })
    .from(captures)
    .innerJoin(verifications, eq(verifications.id, captures.verificationId))
    .where(eq(captures.id, captureId))
    .get();
  return row ?? null;
}
