import { and, eq, gte, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "./client";
import { uploads, verifications, type VerificationStatus } from "./schema";
import { updateWhere } from "./statements";

export type UploadRow = typeof uploads.$inferSelect;

/** What a first inspection learnt about a direct upload; the capture's commit records it on the row. */
export interface UploadDigest {
  id: string;
  sizeBytes: number;
  sha256: string;
  sniffedType: string | null;
  uploadedAt: number;
}

export async function findUpload(db: Db, objectKey: string): Promise<UploadRow | null> {
  return (await db.select().from(uploads).where(eq(uploads.objectKey, objectKey)).get()) ?? null;
}

/** The statement recording an inspected direct upload (run in the capture's commit batch). */
export function recordUploadDigest(d1: D1Database, digest: UploadDigest): D1PreparedStatement {
  return updateWhere(
    d1,
    uploads,
    { status: "uploaded", sizeBytes: digest.sizeBytes, sha256: digest.sha256, sniffedType: digest.sniffedType, uploadedAt: digest.uploadedAt },
    { key: "id", value: digest.id },
  );
}

/**
 * The upload URL's row with its verification's liveness, and the claim of its upload, in one batch
 * (one round trip): the claim takes the row only if it is free (minted, or its claim is older than
 * `staleBefore`) and the body `fits` it (its media type and size; null: claim nothing).
 */
export async function lookUpAndClaimUpload(
  db: Db,
  o: { id: string; claimedAt: number; staleBefore: number; fits: { contentType: string; sizeBytes: number } | null },
) {
  const free = or(eq(uploads.status, "minted"), and(eq(uploads.status, "uploading"), or(isNull(uploads.claimedAt), lte(uploads.claimedAt, o.staleBefore))));
  const fits = o.fits ? and(eq(uploads.contentType, o.fits.contentType), gte(uploads.maxBytes, o.fits.sizeBytes)) : sql`0`;
  const [rows, claim] = await db.batch([
    db
      // Aliased: a batch's rows come back keyed by column name, and both tables have a status and an expires_at.
      .select({
        upload: uploads,
        redactedAt: sql<number | null>`${verifications.redactedAt}`.mapWith(verifications.redactedAt).as("verification_redacted_at"),
        status: sql<VerificationStatus>`${verifications.status}`.as("verification_status"),
        expiresAt: sql<number>`${verifications.expiresAt}`.mapWith(verifications.expiresAt).as("verification_expires_at"),
      })
      .from(uploads)
      .innerJoin(verifications, eq(verifications.id, uploads.verificationId))
      .where(eq(uploads.id, o.id)),
    db.update(uploads).set({ status: "uploading", claimedAt: o.claimedAt }).where(and(eq(uploads.id, o.id), free, fits)),
  ]);
  return { found: rows[0] ?? null, claimed: claim.meta.changes === 1 };
}
