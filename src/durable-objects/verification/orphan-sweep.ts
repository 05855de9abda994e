import type { Db } from "../../db/client";
import type { VerificationRecord } from "../../db/verifications";
import { settings } from "../../env";
import { planSweep } from "../../model/verification/orphan-sweep";
import { isTerminal } from "../../model/verification/state";
import { burstKeysOf, credentialsPrefixFor, deleteEvidence, listEvidence, thumbnailKeyFor } from "../../storage/evidence";
import type { ObjectContext } from "./context";
import { reapplyTombstone, scrubAgain, type RedactionSteps } from "./redaction";
import { mintedUploads, type UploadSlots } from "./upload-slots";

/**
 * Deletes the verification's orphaned objects (model/verification/orphan-sweep.ts decides which);
 * returns when to sweep again, or null.
 */
export async function sweepOrphans(bucket: R2Bucket, db: Db, id: string, record: VerificationRecord, now: number): Promise<number | null> {
  const referenced = new Set<string>();
  for (const c of record.captures) {
    referenced.add(c.imageKey);
    referenced.add(thumbnailKeyFor(id, c.id));
    if (c.forensicBufferKey) referenced.add(c.forensicBufferKey);
    for (const key of burstKeysOf(id, c)) referenced.add(key);
  }
  const [stored, minted] = await Promise.all([listEvidence(bucket, id), mintedUploads(db, id)]);
  // A capture's signed copies (Content Credentials) are a cache of it: they go with the capture (redaction, retention), not as orphans.
  const signedCopies = record.captures.map((c) => credentialsPrefixFor(id, c.id));
  const objects = stored.filter((o) => !signedCopies.some((prefix) => o.key.startsWith(prefix)));
  const plan = planSweep({ now, terminal: isTerminal(record.row.status), objects, referenced, uploads: minted });
  await deleteEvidence(bucket, plan.remove);
  return plan.nextAt;
}

/**
 * The alarm's sweep when due: a redacted verification's prefix is emptied whole and its clean-up run
 * again, the row's tombstone columns included (nothing is referenced any more, whatever its age);
 * otherwise the orphans go. Slots no capture may take any more are forgotten, and the next sweep is
 * booked (DO storage key `sweep_at`). Returns the record as it now stands.
 */
export async function runSweep(
  cx: ObjectContext,
  slots: UploadSlots,
  steps: Pick<RedactionSteps, "apply">,
  id: string,
  record: VerificationRecord,
  now: number,
): Promise<VerificationRecord> {
  let nextAt: number | null = null;
  if (record.row.redactedAt !== null) {
    await cx.purger().purge(id);
    await scrubAgain(cx.db(), record, settings(cx.env).baseUrl);
    record = await reapplyTombstone(steps, record);
    slots.forget(Infinity);
  } else {
    nextAt = await sweepOrphans(cx.env.EVIDENCE, cx.db(), id, record, now);
    slots.forget(now);
  }
  if (nextAt === null) await cx.storage.delete("sweep_at");
  else await cx.storage.put("sweep_at", nextAt);
  return record;
}
