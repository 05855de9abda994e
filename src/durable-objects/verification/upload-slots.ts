import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { uploads } from "../../db/schema";
import { errorResult, type ErrorResult } from "../../lib/errors";
import { alarmBy, sweepBy } from "./alarm";
import type { ObjectContext } from "./context";
import { CAPTURE_WINDOW_MS } from "../../model/verification/orphan-sweep";
import { UPLOAD_TTL_MS, type UploadKind, type UploadMint, type UploadSlot } from "../../model/verification/upload-slots";

/** DO storage key prefix of the direct uploads' slots this object minted (`mintUpload`), by object key. */
const SLOT_PREFIX = "upload:";

/**
 * The slots of direct uploads this object minted, kept in its synchronous storage: a presigned PUT
 * reaches no Worker route, so only the capture learns its digest, and the capture is answered from
 * here without reading D1 (`VerificationObject#uploadFor`).
 */
/** Copies of stored Worker-proxied uploads an object holds: far more than the captures a verification takes (MAX_TOTAL_CAPTURES, 20). */
export const STORED_COPIES = 128;

export class UploadSlots {
  /**
   * Worker-proxied uploads whose bytes the upload route stored and recorded in D1 (`stored`), as their
   * row then reads: in memory only, a copy of a row that no longer changes once `uploaded` (no claim
   * takes it again, the digest is written once), so a capture reads nothing in D1 before its commit.
   * Lost when the object is evicted: the capture then reads the row, as before.
   */
  readonly #stored = new Map<string, UploadSlot>();

  constructor(private readonly kv: SyncKvStorage) {}

  keep(slot: UploadSlot): void {
    this.kv.put<UploadSlot>(SLOT_PREFIX + slot.objectKey, slot);
  }

  /**
   * A Worker-proxied upload the upload route just finished (its row `uploaded`, with its digest). At
   * most STORED_COPIES are held, the oldest dropped first: a script minting and uploading for the
   * life of a link cannot grow the object's memory, and a dropped copy only means a row read.
   */
  stored(slot: UploadSlot): void {
    if (slot.status !== "uploaded" || slot.sha256 === null) return;
    this.#stored.delete(slot.objectKey);
    this.#stored.set(slot.objectKey, slot);
    for (const oldest of this.#stored.keys()) {
      if (this.#stored.size <= STORED_COPIES) break;
      this.#stored.delete(oldest);
    }
  }

  kept(objectKey: string): UploadSlot | undefined {
    return this.kv.get<UploadSlot>(SLOT_PREFIX + objectKey);
  }

  /**
   * The copy of a stored Worker-proxied upload (`stored`), if this instance holds one. One past its
   * capture window is not answered from memory: its row decides, as it would have without the copy.
   */
  storedCopy(objectKey: string, now: number): UploadSlot | undefined {
    const stored = this.#stored.get(objectKey);
    if (stored && now >= stored.expiresAt + CAPTURE_WINDOW_MS) {
      this.#stored.delete(objectKey);
      return undefined;
    }
    return stored;
  }

  /** Forgets one slot, kept or copied (its upload was released: `releaseUpload`). */
  drop(objectKey: string): void {
    this.kv.delete(SLOT_PREFIX + objectKey);
    this.#stored.delete(objectKey);
  }

  /** Forgets the slots no capture may take any more (`checkSlot` refuses them as expired; `Infinity`: all of them). */
  forget(now: number): void {
    for (const [key, slot] of this.kv.list<UploadSlot>({ prefix: SLOT_PREFIX })) {
      if (now >= slot.expiresAt + CAPTURE_WINDOW_MS) this.kv.delete(key);
    }
    for (const [key, slot] of this.#stored) {
      if (now >= slot.expiresAt + CAPTURE_WINDOW_MS) this.#stored.delete(key);
    }
  }
}

/**
 * Mints an upload: inserts its row unless the verification holds its cap of open uploads, keeps a
 * direct upload's slot for the capture, and makes sure a sweep runs by the time its bytes, if never
 * captured, are an orphan, even while the verification stays open.
 */
export async function mintSlot(cx: ObjectContext, slots: UploadSlots, mint: UploadMint): Promise<{ ok: true } | ErrorResult> {
  const inserted = await insertUpload(cx.db(), mint);
  if (!inserted.ok) return inserted;
  if (mint.direct) slots.keep(mint.slot);
  const orphanAt = mint.slot.expiresAt + CAPTURE_WINDOW_MS;
  await sweepBy(cx.storage, orphanAt);
  await alarmBy(cx.storage, orphanAt);
  return inserted;
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
