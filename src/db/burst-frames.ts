import { and, eq, inArray, ne } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./client";
import { burstFrames } from "./schema";

/**
 * Records a live capture's frame digests in the tenant's burst replay index and returns the other
 * captures that share any of them, in one round trip (the insert and the lookup in the batch's
 * transaction). A repeated analysis of the same capture finds only itself, which is left out.
 */
export async function indexAndFindReplays(db: Db, entry: { tenantId: string; verificationId: string; captureId: string; digests: string[]; now: number }): Promise<string[]> {
  const digests = [...new Set(entry.digests)];
  if (digests.length === 0) return [];
  const insert = db
    .insert(burstFrames)
    .values(digests.map((digest) => ({ tenantId: entry.tenantId, digest, captureId: entry.captureId, verificationId: entry.verificationId, createdAt: entry.now })))
    .onConflictDoNothing();
  const lookup = db
    .selectDistinct({ captureId: burstFrames.captureId })
    .from(burstFrames)
    .where(and(eq(burstFrames.tenantId, entry.tenantId), inArray(burstFrames.digest, digests), ne(burstFrames.captureId, entry.captureId)));
  const [, found] = (await db.batch([insert, lookup] as unknown as [BatchItem<"sqlite">, BatchItem<"sqlite">])) as [unknown, Array<{ captureId: string }>];
  return found.map((r) => r.captureId).sort();
}
