import { and, eq, ne, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./client";
import { captureAnalyses, imageHashes, tenants } from "./schema";
import { toStatement } from "./statements";
import { recordFromResults, recordStatements, settlingStatement, type SettlingColumns, type VerificationRecord } from "./verifications";
import { bandNeighbours, bands, hammingDistance, regionsMatch, type Fingerprint } from "../analysis/signals/perceptual-hash";

export type CaptureAnalysisRow = typeof captureAnalyses.$inferSelect;

export async function analysesOf(db: Db, verificationId: string): Promise<CaptureAnalysisRow[]> {
  return db.select().from(captureAnalyses).where(eq(captureAnalyses.verificationId, verificationId));
}

/** First write wins: a duplicate delivery that analysed the same bytes again changes nothing. */
export async function saveAnalysis(db: Db, row: typeof captureAnalyses.$inferInsert): Promise<void> {
  await db.insert(captureAnalyses).values(row).onConflictDoNothing();
}

/**
 * What a capture's analysis starts from, in one D1 round trip: the verification's record, whether
 * this capture already has its analysis (a duplicate delivery) and its tenant's
 * `ai_detection_provider` (which detection provider its captures go to).
 */
export async function recordForAnalysis(
  db: Db,
  verificationId: string,
  captureId: string,
): Promise<{ record: VerificationRecord | null; analysed: boolean; aiDetectionProvider: string | null }> {
  const d1 = db.$client;
  const results = await d1.batch([
    ...recordStatements(d1, verificationId),
    d1.prepare("SELECT 1 FROM capture_analyses WHERE capture_id = ?").bind(captureId),
    d1.prepare("SELECT t.ai_detection_provider FROM tenants t JOIN verifications v ON v.tenant_id = t.id WHERE v.id = ?").bind(verificationId),
  ]);
  const tenant = results[4]!.results[0] as { ai_detection_provider: string | null } | undefined;
  return { record: recordFromResults(results), analysed: results[3]!.results.length > 0, aiDetectionProvider: tenant?.ai_detection_provider ?? null };
}

/**
 * `saveAnalysis` and then, in the same batch (one round trip, one transaction), the columns settling
 * decides on: read after the write, so whichever of this analysis and the evidence becoming ready
 * comes last sees the other (null: no such verification).
 */
export async function saveAnalysisThenSettling(db: Db, row: typeof captureAnalyses.$inferInsert): Promise<SettlingColumns | null> {
  const d1 = db.$client;
  const [, settling] = await d1.batch([toStatement(d1, db.insert(captureAnalyses).values(row).onConflictDoNothing()), settlingStatement(d1, row.verificationId)]);
  return (settling!.results[0] as SettlingColumns | undefined) ?? null;
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

/** What a near-duplicate lookup searched and found. */
export interface HistorySearch {
  /** The tenant's own verifications' captures, and those of the shared pool when `shared`. */
  matches: HashMatch[];
  /** The tenant opted in to the shared reuse index: the other opted-in tenants' captures were searched too. */
  shared: boolean;
  /**
   * More index rows shared a band with the query than one lookup reads: the rows it read (`LOOKUP_ROWS`).
   * Only those were checked, so `matches` is a lower bound and a match beyond them is missed.
   */
  capped?: number;
}

/**
 * Index rows one lookup reads at most. A picture reused thousands of
 * times (a fraud ring's favourite, a tenant's test image) would otherwise make every later lookup read
 * all of its copies' rows, growing without end with the history. Uniform hashes would reach it by
 * chance alone at about 100 000 captures in one history (docs/signals.md, "Index").
 */
export const LOOKUP_ROWS = 10_000;

/** Rows per insert statement: D1 binds at most 100 parameters per statement (12 columns a row). */
const INSERT_CHUNK = 8;

/**
 * Indexes a capture's fingerprint (one row per region), then finds other verifications' images that
 * are the same picture (perceptual-hash.ts `sameImage`): the query's whole frame against every stored
 * region, and the query's windows against stored whole frames. Multi-index hashing keeps the lookup
 * on the band indexes; every candidate is then checked on both full hashes, so recall inside the
 * radius is exact up to `lookupRows` candidates (beyond them `capped`). Insert-then-query, in one batch (one
 * transaction, one round trip): two concurrent copies always find each other. Low-texture images
 * are neither indexed nor matched.
 *
 * The history searched is the tenant's own; a tenant that opted in to the shared reuse index
 * (`tenants.share_reuse_index`) also searches, and is searched by, the other tenants that did. The
 * opt-in is read in the same statement (and once more in the batch, to report it), so a change of
 * the setting applies to the next lookup, past captures included, and costs no round trip.
 */
export async function indexAndFindNearDuplicates(
  db: Db,
  entry: { captureId: string; verificationId: string; tenantId: string; fingerprint: Fingerprint; now: number },
  lookupRows = LOOKUP_ROWS,
): Promise<HistorySearch> {
  const { fingerprint: fp } = entry;
  if (!fp.matchable) return { matches: [], shared: false };
  const regions = [fp, ...fp.windows];
  const rows = regions.map((r) => {
    const [band0, band1, band2, band3] = bands(r.hash);
    return { captureId: entry.captureId, region: r.region, verificationId: entry.verificationId, tenantId: entry.tenantId, algorithm: fp.algorithm, hash: r.hash, aux: r.aux, band0, band1, band2, band3, createdAt: entry.now };
  });
  const inserts = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) inserts.push(db.insert(imageHashes).values(rows.slice(i, i + INSERT_CHUNK)).onConflictDoNothing());

  // Band neighbourhoods (integers computed here, inlined: D1 allows 100 bound parameters).
  const near = (hashes: string[], band: number) => sql.raw([...new Set(hashes.flatMap((h) => bandNeighbours(bands(h)[band]!)))].join(","));
  const anyBand = (hashes: string[]) =>
    sql`(${imageHashes.band0} IN (${near(hashes, 0)}) OR ${imageHashes.band1} IN (${near(hashes, 1)}) OR ${imageHashes.band2} IN (${near(hashes, 2)}) OR ${imageHashes.band3} IN (${near(hashes, 3)}))`;
  const allRegions = sql.raw(regions.map((r) => `'${r.region}'`).join(","));
  // Both subqueries are uncorrelated: SQLite evaluates each once per lookup, not per candidate.
  const optedIn = sql`(SELECT ${tenants.id} FROM ${tenants} WHERE ${tenants.shareReuseIndex} = 1)`;
  const whoseHistory = sql`(${imageHashes.tenantId} = ${entry.tenantId} OR (${entry.tenantId} IN ${optedIn} AND ${imageHashes.tenantId} IN ${optedIn}))`;
  const lookup = db
    .select({ captureId: imageHashes.captureId, verificationId: imageHashes.verificationId, tenantId: imageHashes.tenantId, region: imageHashes.region, hash: imageHashes.hash, aux: imageHashes.aux })
    .from(imageHashes)
    .where(
      and(
        eq(imageHashes.algorithm, fp.algorithm),
        ne(imageHashes.verificationId, entry.verificationId),
        whoseHistory,
        fp.windows.length > 0
          ? sql`((${imageHashes.region} IN (${allRegions}) AND ${anyBand([fp.hash])}) OR (${imageHashes.region} = 'full' AND ${anyBand(fp.windows.map((w) => w.hash))}))`
          : sql`(${imageHashes.region} IN (${allRegions}) AND ${anyBand([fp.hash])})`,
      ),
    )
    .limit(lookupRows + 1);
  const sharing = db.select({ shared: tenants.shareReuseIndex }).from(tenants).where(eq(tenants.id, entry.tenantId));
  // One D1 round trip: the inserts and the lookup run in the batch's transaction, in this order.
  const results = await db.batch([...inserts, lookup, sharing] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const read = results.at(-2) as Awaited<typeof lookup>;
  const capped = read.length > lookupRows;
  const candidates = capped ? read.slice(0, lookupRows) : read;
  const shared = (results.at(-1) as Awaited<typeof sharing>)[0]?.shared === true;
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
  return { matches: [...best.values()].sort((a, b) => a.distance - b.distance || a.capture_id.localeCompare(b.capture_id)), shared, ...(capped ? { capped: lookupRows } : {}) };
}
