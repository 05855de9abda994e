import { and, eq, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./client";
import { answers, burstFrames, captureAnalyses, captures, events, idempotencyKeys, imageHashes, outboundMessages, webhookDeliveries } from "./schema";

const REDACTED = "[redacted]";

export interface RedactionTarget {
  verificationId: string;
  tenantId: string;
  createdAt: number;
  captureIds: string[];
  /** The analysis results as redaction keeps them (model/evidence/analysis-view.ts#redactAnalysisResult). */
  analyses: Array<{ captureId: string; result: unknown }>;
  /** The tenant view of the tombstone: replaces every stored copy of the verification's wire shape. */
  tombstoneJson: string;
  /** What the verification can have left elsewhere (tables it never wrote to are not touched). */
  has: { answers: boolean; timelineText: boolean; webhooks: boolean; messages: boolean };
}

/**
 * Everything besides the verification row that holds the verification's personal data, cleared in
 * the same D1 batch as the tombstone: answers, capture locations, surfaces and device labels, analysis details (EXIF, GPS,
 * vision reasoning), the reuse index's hashes, narratives and review notes on the timeline, the
 * bodies kept for webhook retries and idempotent replays, and sent notifications.
 */
export function redactionStatements(db: Db, target: RedactionTarget): BatchItem<"sqlite">[] {
  const { verificationId: id, has } = target;
  const statements: BatchItem<"sqlite">[] = [];
  if (has.answers) statements.push(db.delete(answers).where(eq(answers.verificationId, id)));
  if (target.captureIds.length > 0) {
    statements.push(
      // The capture-integrity record keeps its measures; the device label can name a person's device,
      // and `surface` is the client's free text.
      db.update(captures).set({ location: null, surface: null, captureIntegrity: sql`json_remove(${captures.captureIntegrity}, '$.device.label')` }).where(eq(captures.verificationId, id)),
      ...rewriteAnalyses(db, target.analyses),
    );
  }
  if (has.timelineText) {
    statements.push(
      db
        .update(events)
        .set({ payload: sql`json_remove(${events.payload}, '$.narrative', '$.note')` })
        .where(and(eq(events.verificationId, id), inArray(events.name, ["verification.case.completed", "verification.reviewed"]))),
    );
  }
  if (has.webhooks) {
    statements.push(
      db
        .update(webhookDeliveries)
        .set({ payload: sql`json_set(${webhookDeliveries.payload}, '$.data.object', json(${target.tombstoneJson}))` })
        .where(eq(webhookDeliveries.verificationId, id)),
    );
  }
  if (has.messages) {
    statements.push(db.update(outboundMessages).set({ recipient: REDACTED, subject: null, body: REDACTED }).where(eq(outboundMessages.verificationId, id)));
  }
  statements.push(
    // Whether the creation carried an Idempotency-Key is not recorded on the verification: always look.
    db
      .update(idempotencyKeys)
      .set({ responseBody: target.tombstoneJson })
      .where(
        and(
          eq(idempotencyKeys.tenantId, target.tenantId),
          eq(idempotencyKeys.createdAt, target.createdAt),
          sql`json_extract(${idempotencyKeys.responseBody}, '$.id') = ${id}`,
        ),
      ),
    ...dropHashes(db, target.captureIds),
  );
  return statements;
}

/** Replaces analysis results (and forgets their thumbnails, whose objects are deleted with the rest). */
function rewriteAnalyses(db: Db, rows: Array<{ captureId: string; result: unknown }>): BatchItem<"sqlite">[] {
  return rows.map((r) => db.update(captureAnalyses).set({ result: r.result, thumbnail: null }).where(eq(captureAnalyses.captureId, r.captureId)));
}

/** Takes captures out of the reuse (near-duplicate) index and the burst replay index. */
function dropHashes(db: Db, captureIds: string[]): BatchItem<"sqlite">[] {
  return captureIds.length > 0
    ? [db.delete(imageHashes).where(inArray(imageHashes.captureId, captureIds)), db.delete(burstFrames).where(inArray(burstFrames.captureId, captureIds))]
    : [];
}
