import { eq } from "drizzle-orm";
import type { Db } from "./client";
import { uploads } from "./schema";
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

/** An upload's row by its id (an upload URL names its id). */
export async function findUploadById(db: Db, id: string): Promise<UploadRow | null> {
  return (await db.select().from(uploads).where(eq(uploads.id, id)).get()) ?? null;
}
