import { and, eq, ne, sql } from "drizzle-orm";
import type { Db } from "./client";
import { captureAnalyses, imageHashes } from "./schema";
import { bandNeighbours, bands, hammingDistance, regionsMatch, type Fingerprint } from "../analysis/signals/perceptual-hash";

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
  /** pHash distance of the closest agreeing region pair. */
  distance: number;
}

/** Rows per insert statement: D1 binds at most 100 parameters per statement (12 columns a row). */
const INSERT_CHUNK = 8;

/**
 * Indexes a capture's fingerprint (one row per region), then finds other verifications' images that
 * are the same picture (perceptual-hash.ts `sameImage`): the query's whole frame against every stored
 * region, and the query's windows against stored whole frames. Multi-index hashing keeps the lookup
 * on the band indexes; every candidate is then checked on both full hashes, with no cap on the
 * number of candidates, so recall inside the radius is exact. Insert-then-query: two concurrent
 * copies always find each other. Low-texture images are neither indexed nor matched.
 */
export async function indexAndFindNearDuplicates(
  db: Db,
  entry: { captureId: string; verificationId: string; tenantId: string; fingerprint: Fingerprint; now: number },
): Promise<HashMatch[]> {
  const { fingerprint: fp } = entry;
  if (!fp.matchable) return [];
  const regions = [fp, ...fp.windows];
  const rows = regions.map((r) => {
    const [band0, band1, band2, band3] = bands(r.hash);
    return { captureId: entry.captureId, region: r.region, verificationId: entry.verificationId, tenantId: entry.tenantId, algorithm: fp.algorithm, hash: r.hash, aux: r.aux, band0, band1, band2, band3, createdAt: entry.now };
  });
  const inserts = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) inserts.push(db.insert(imageHashes).values(rows.slice(i, i + INSERT_CHUNK)).onConflictDoNothing());
  await db.batch(inserts as [(typeof inserts)[number], ...typeof inserts]);

  // Band neighbourhoods (integers computed here, inlined: D1 allows 100 bound parameters).
  const near = (hashes: string[], band: number) => sql.raw([...new Set(hashes.flatMap((h) => bandNeighbours(bands(h)[band]!)))].join(","));
  const anyBand = (hashes: string[]) =>
    sql`(${imageHashes.band0} IN (${near(hashes, 0)}) OR ${imageHashes.band1} IN (${near(hashes, 1)}) OR ${imageHashes.band2} IN (${near(hashes, 2)}) OR ${imageHashes.band3} IN (${near(hashes, 3)}))`;
  const allRegions = sql.raw(regions.map((r) => `'${r.region}'`).join(","));
  const candidates = await db
    .select({ captureId: imageHashes.captureId, verificationId: imageHashes.verificationId, tenantId: imageHashes.tenantId, region: imageHashes.region, hash: imageHashes.hash, aux: imageHashes.aux })
    .from(imageHashes)
    .where(
      and(
        eq(imageHashes.algorithm, fp.algorithm),
        ne(imageHashes.verificationId, entry.verificationId),
        fp.windows.length > 0
          ? sql`((${imageHashes.region} IN (${allRegions}) AND ${anyBand([fp.hash])}) OR (${imageHashes.region} = 'full' AND ${anyBand(fp.windows.map((w) => w.hash))}))`
          : sql`(${imageHashes.region} IN (${allRegions}) AND ${anyBand([fp.hash])})`,
      ),
    );
  const best = new Map<string, HashMatch>();
  for (const c of candidates) {
    if (c.aux === null) continue;
    const stored = { hash: c.hash, aux: c.aux };
    // A stored window meets the query's whole frame; a stored whole frame meets any query region.
    const against = c.region === "full" ? regions : [fp];
    for (const q of against) {
      if (!regionsMatch(q, stored)) continue;
      const distance = hammingDistance(q.hash, stored.hash);
      const previous = best.get(c.captureId);
      if (!previous || distance < previous.distance) best.set(c.captureId, { capture_id: c.captureId, verification_id: c.verificationId, tenant_id: c.tenantId, distance });
    }
  }
  return [...best.values()].sort((a, b) => a.distance - b.distance || a.capture_id.localeCompare(b.capture_id));
}
