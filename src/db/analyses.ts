import { and, eq, inArray, ne, or } from "drizzle-orm";
import type { Db } from "./client";
import { captureAnalyses, imageHashes } from "./schema";
import { bandNeighbours, bands, hammingDistance, NEAR_DUPLICATE_MAX_DISTANCE } from "../analysis/signals/perceptual-hash";

export type CaptureAnalysisRow = typeof captureAnalyses.$inferSelect;

export async function analysesOf(db: Db, verificationId: string): Promise<CaptureAnalysisRow[]> {
  return db.select().from(captureAnalyses).where(eq(captureAnalyses.verificationId, verificationId));
}

export async function analysisOf(db: Db, captureId: string): Promise<CaptureAnalysisRow | undefined> {
  return db.select().from(captureAnalyses).where(eq(captureAnalyses.captureId, captureId)).get();
}

/** First write wins: a duplicate delivery that analysed the same bytes again changes nothing. */
export async function saveAnalysis(db: Db, row: typeof captureAnalyses.$inferInsert): Promise<void> {
  await db.insert(captureAnalyses).values(row).onConflictDoNothing();
}

/** Records a capture whose analysis gave up (dead letter); a completed analysis is never overwritten. */
export async function saveFailedAnalysis(db: Db, captureId: string, verificationId: string, error: string, now: number): Promise<void> {
  await db.insert(captureAnalyses).values({ captureId, verificationId, status: "failed", result: null, error, analyzedAt: now }).onConflictDoNothing();
}

export interface HashMatch {
  capture_id: string;
  verification_id: string;
  tenant_id: string;
  distance: number;
}

/**
 * Indexes a capture's hash, then finds other verifications' images within the radius (multi-index
 * hashing): four bands, each looked up on its own index for the 17 values within one bit, so the
 * query touches only candidate rows however large the index grows; candidates are then checked on
 * the full 64 bits. Insert-then-query: two concurrent copies always find each other.
 */
export async function indexAndFindNearDuplicates(
  db: Db,
  entry: { captureId: string; verificationId: string; tenantId: string; algorithm: string; hash: string; now: number },
): Promise<HashMatch[]> {
  const [b0, b1, b2, b3] = bands(entry.hash);
  await db
    .insert(imageHashes)
    .values({ captureId: entry.captureId, verificationId: entry.verificationId, tenantId: entry.tenantId, algorithm: entry.algorithm, hash: entry.hash, band0: b0, band1: b1, band2: b2, band3: b3, createdAt: entry.now })
    .onConflictDoNothing();
  const candidates = await db
    .select()
    .from(imageHashes)
    .where(
      and(
        eq(imageHashes.algorithm, entry.algorithm),
        ne(imageHashes.verificationId, entry.verificationId),
        or(
          inArray(imageHashes.band0, bandNeighbours(b0)),
          inArray(imageHashes.band1, bandNeighbours(b1)),
          inArray(imageHashes.band2, bandNeighbours(b2)),
          inArray(imageHashes.band3, bandNeighbours(b3)),
        ),
      ),
    )
    .limit(200);
  return candidates
    .map((c) => ({ capture_id: c.captureId, verification_id: c.verificationId, tenant_id: c.tenantId, distance: hammingDistance(c.hash, entry.hash) }))
    .filter((m) => m.distance <= NEAR_DUPLICATE_MAX_DISTANCE)
    .sort((a, b) => a.distance - b.distance);
}
