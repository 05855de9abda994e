import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { uploads } from "../../db/schema";
import { errorResult, type ErrorResult } from "../../lib/errors";
import { alarmBy, sweepBy } from "./alarm";
import type { ObjectContext } from "./context";
import { CAPTURE_WINDOW_MS } from "../../model/verification/orphan-sweep";
import { claimSlot, UPLOAD_TTL_MS, type KeptSlot, type StoredDigest, type UploadFit, type UploadKind, type UploadMint, type UploadSlot } from "../../model/verification/upload-slots";
import { recordUploadDigest } from "../../db/uploads";
import { objectKeyFor } from "../../storage/evidence";

/** DO storage key prefix of the upload slots this object minted (`mintUpload`), by object key. */
const SLOT_PREFIX = "upload:";

/**
 * The upload slots this object minted, kept in its synchronous storage as their rows read, with the
 * claim of a Worker-proxied PUT storing their bytes (`KeptSlot`): the object is where single use is
 * decided (the upload route claims, finishes or releases through it: `VerificationObject#claimUpload`),
 * and a capture is answered from here without reading D1 (`VerificationObject#uploadFor`). Slots
 * minted before the object kept every slot are read from D1 and kept from their first claim on.
 */
export class UploadSlots {
  constructor(private readonly kv: SyncKvStorage) {}

  keep(slot: KeptSlot): void {
    this.kv.put<KeptSlot>(SLOT_PREFIX + slot.objectKey, slot);
  }

  kept(objectKey: string): KeptSlot | undefined {
    return this.kv.get<KeptSlot>(SLOT_PREFIX + objectKey);
  }

  /** The kept slot of an upload id (an upload URL names its id, not its kind). */
  keptById(verificationId: string, uploadId: string): KeptSlot | undefined {
    return this.kept(objectKeyFor(verificationId, uploadId, "image")) ?? this.kept(objectKeyFor(verificationId, uploadId, "forensic_buffer"));
  }

  /** Forgets one slot (its upload was released: `releaseUpload`). */
  drop(objectKey: string): void {
    this.kv.delete(SLOT_PREFIX + objectKey);
  }

  /** Forgets the slots no capture may take any more (`checkSlot` refuses them as expired; `Infinity`: all of them). */
  forget(now: number): void {
    for (const [key, slot] of this.kv.list<KeptSlot>({ prefix: SLOT_PREFIX })) {
      if (now >= slot.expiresAt + CAPTURE_WINDOW_MS) this.kv.delete(key);
    }
  }
}

/**
 * Mints an upload: inserts its row unless the verification holds its cap of open uploads, keeps its
 * slot (for the PUT's claim and the capture), and makes sure a sweep runs by the time its bytes, if never
 * captured, are an orphan, even while the verification stays open.
 */
export async function mintSlot(cx: ObjectContext, slots: UploadSlots, mint: UploadMint): Promise<{ ok: true } | ErrorResult> {
  const inserted = await insertUpload(cx.db(), mint);
  if (!inserted.ok) return inserted;
  slots.keep(mint.slot);
  const orphanAt = mint.slot.expiresAt + CAPTURE_WINDOW_MS;
  await sweepBy(cx.storage, orphanAt);
  await alarmBy(cx.storage, orphanAt);
  return inserted;
}

/** A PUT's claim on a kept slot (`claimSlot`), kept if it took the slot. */
export function claimKept(slots: UploadSlots, slot: KeptSlot, fits: UploadFit | null, now: number): boolean {
  const claimed = claimSlot(slot, fits, now);
  if (claimed) slots.keep(claimed);
  return claimed !== null;
}

/**
 * The PUT holding the claim made at `claimedAt` stored its bytes: the slot reads `uploaded` with their
 * digest, kept first (no claim takes it while its row is written), then its row. A claim taken over
 * meanwhile (this one was abandoned: `STALE_CLAIM_MS`), or a row gone meanwhile, is 409 and nothing
 * is written. A failed write puts the claim back for the route to release.
 */
export async function finishClaim(
  d1: D1Database,
  slots: UploadSlots,
  done: { objectKey: string; claimedAt: number; digest: StoredDigest; now: number },
): Promise<{ ok: true; slot: UploadSlot } | ErrorResult> {
  const slot = slots.kept(done.objectKey);
  if (!slot || slot.status !== "uploading" || slot.claimedAt !== done.claimedAt) return takenOver();
  const { claimedAt: _claim, ...row } = slot;
  const finished: UploadSlot = { ...row, ...done.digest, status: "uploaded" };
  slots.keep(finished);
  let written: D1Result;
  try {
    written = await recordUploadDigest(d1, { id: slot.id, ...done.digest, uploadedAt: done.now }).run();
  } catch (err) {
    slots.keep(slot);
    throw err;
  }
  if (written.meta.changes === 1) return { ok: true, slot: finished };
  slots.drop(done.objectKey);
  return takenOver();
}

/** Gives a slot back to the URL (`minted`) if the claim made at `claimedAt` still holds it: its PUT failed. */
export function releaseClaim(slots: UploadSlots, objectKey: string, claimedAt: number): void {
  const slot = slots.kept(objectKey);
  if (slot?.status === "uploading" && slot.claimedAt === claimedAt) slots.keep({ ...slot, status: "minted", claimedAt: null });
}

function takenOver(): ErrorResult {
  return errorResult("invalid_state", "This upload URL was taken over by a newer attempt.");
}

/** The verification's upload URLs: what each object was minted for, and until when (the orphan sweep's input). */
export function mintedUploads(db: Db, verificationId: string) {
  return db.select({ objectKey: uploads.objectKey, expiresAt: uploads.expiresAt }).from(uploads).where(eq(uploads.verificationId, verificationId));
}

/** Inserts a minted upload's row unless the cap is reached (counting and inserting is one statement, so concurrent mints cannot pass it together). */
export async function insertUpload(db: Db, mint: UploadMint): Promise<{ ok: true } | ErrorResult> {
  const { slot, cap, direct, now } = mint;
  const inserted = await db.run(sql`
    INSERT INTO uploads (id, verification_id, kind, object_key, content_type, max_bytes, status, expires_at, created_at)
    SELECT ${slot.id}, ${slot.verificationId}, ${slot.kind}, ${slot.objectKey}, ${slot.contentType}, ${slot.maxBytes}, 'minted', ${slot.expiresAt}, ${now}
    WHERE (SELECT count(*) FROM uploads u WHERE ${openUploadsOf(slot.verificationId, slot.kind, now, direct)}) < ${cap}`);
  if (inserted.meta.changes === 1) return { ok: true };
  return capReached(db, { verificationId: slot.verificationId, kind: slot.kind, now, direct, cap });
}

/**
 * Deletes an upload's row unless a capture holds its object (one statement): the upload URL stops
 * counting against the cap. True when it was deleted.
 */
export async function deleteUnheldUpload(db: Db, verificationId: string, objectKey: string): Promise<boolean> {
  const deleted = await db.run(sql`
    DELETE FROM uploads WHERE verification_id = ${verificationId} AND object_key = ${objectKey}
      AND NOT EXISTS (SELECT 1 FROM captures c WHERE c.verification_id = ${verificationId} AND (c.image_key = ${objectKey} OR c.forensic_buffer_key = ${objectKey}))`);
  return deleted.meta.changes === 1;
}

/** The `uploads u` rows that count against the cap (see `mintUpload`). */
function openUploadsOf(verificationId: string, kind: UploadKind, now: number, direct: boolean) {
  return sql`u.verification_id = ${verificationId} AND u.kind = ${kind}
    AND u.expires_at + ${CAPTURE_WINDOW_MS} > ${now}
    AND (u.expires_at > ${now} OR u.status = 'uploaded' OR ${direct ? 1 : 0} = 1)
    AND NOT EXISTS (SELECT 1 FROM captures c WHERE c.verification_id = u.verification_id AND (c.image_key = u.object_key OR c.forensic_buffer_key = u.object_key))`;
}

/** 429 with `Retry-After`: the soonest moment one of the open uploads stops counting. */
async function capReached(db: Db, o: { verificationId: string; kind: UploadKind; now: number; direct: boolean; cap: number }): Promise<ErrorResult> {
  const open = await db.all<{ expires_at: number; status: string }>(
    sql`SELECT u.expires_at, u.status FROM uploads u WHERE ${openUploadsOf(o.verificationId, o.kind, o.now, o.direct)}`,
  );
  const frees = open.map((u) => (o.direct || u.status === "uploaded" ? u.expires_at + CAPTURE_WINDOW_MS : u.expires_at));
  const wait = frees.length > 0 ? Math.min(...frees) - o.now : UPLOAD_TTL_MS;
  return {
    ...errorResult(
      "too_many_requests",
      `This verification already has ${o.cap} open upload URLs (twice the captures it can still take); use them or let them expire.`,
    ),
    retryAfter: Math.max(1, Math.ceil(wait / 1000)),
  };
}
