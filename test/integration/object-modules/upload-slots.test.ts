import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { uploads } from "../../../src/db/schema";
import { sweepDue } from "../../../src/durable-objects/verification/alarm";
import { insertUpload, mintSlot, STORED_COPIES, UploadSlots } from "../../../src/durable-objects/verification/upload-slots";
import { newId } from "../../../src/lib/ids";
import { CAPTURE_WINDOW_MS } from "../../../src/model/verification/orphan-sweep";
import { checkSlot, UPLOAD_TTL_MS, type UploadKind, type UploadMint, type UploadSlot } from "../../../src/model/verification/upload-slots";
import { objectKeyFor } from "../../../src/storage/evidence";
import { db, seedTenant, type TestTenant } from "../../helpers/api";
import { inFreshObject, moduleContext, seedCapture, seedVerification } from "../../helpers/object-context";

/* Upload slots (durable-objects/verification/upload-slots.ts) alone: the object's sync KV, the real D1's uploads table. */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

function slotOf(verificationId: string, now: number, kind: UploadKind = "image"): UploadSlot {
  const id = newId("capture", now);
  return {
    id,
    verificationId,
    kind,
    objectKey: objectKeyFor(verificationId, id, kind),
    contentType: kind === "image" ? "image/jpeg" : "image/png",
    maxBytes: 1_000_000,
    expiresAt: now + UPLOAD_TTL_MS,
    status: "minted",
    sizeBytes: null,
    sha256: null,
    sniffedType: null,
  };
}

const mint = (slot: UploadSlot, now: number, o: { cap?: number; direct?: boolean } = {}): UploadMint => ({ slot, cap: o.cap ?? 1, direct: o.direct ?? false, now });

describe("the slots an object keeps", () => {
  it("keeps a slot by its object key until its capture window closes: forget drops it exactly when checkSlot starts refusing it", () =>
    inFreshObject(async (state) => {
      const slots = new UploadSlots(state.storage.kv);
      const now = moduleContext(state.storage).clock.now;
      const slot = slotOf("vfy_slots", now);
      const use = { verificationId: slot.verificationId, kind: "image", field: "image_key" } as const;
      slots.keep(slot);
      expect(slots.kept(slot.objectKey)).toEqual(slot);
      expect(slots.kept(objectKeyFor("vfy_slots", "cap_other", "image"))).toBeUndefined();

      const lastMoment = slot.expiresAt + CAPTURE_WINDOW_MS - 1;
      slots.forget(lastMoment);
      expect(slots.kept(slot.objectKey)).toEqual(slot);
      expect(checkSlot(slots.kept(slot.objectKey)!, { ...use, now: lastMoment })).toBeNull();

      expect(checkSlot(slot, { ...use, now: lastMoment + 1 })).toMatchObject({ ok: false, error: { code: "upload_expired" } });
      slots.forget(lastMoment + 1);
      expect(slots.kept(slot.objectKey)).toBeUndefined();
    }));

  it("keeps a copy of a stored Worker-proxied upload in memory only, answered until its capture window closes", () =>
    inFreshObject(async (state) => {
      const slots = new UploadSlots(state.storage.kv);
      const now = moduleContext(state.storage).clock.now;
      const minted = slotOf("vfy_stored", now);
      // Only an upload whose row reads `uploaded` with its digest is kept.
      slots.stored(minted);
      expect(slots.storedCopy(minted.objectKey, now)).toBeUndefined();
      const stored: UploadSlot = { ...minted, status: "uploaded", sizeBytes: 123, sha256: "ab".repeat(32), sniffedType: "image/jpeg" };
      slots.stored(stored);
      expect(slots.storedCopy(stored.objectKey, now)).toEqual(stored);
      // Not in the object's storage: a new instance reads the row.
      expect(slots.kept(stored.objectKey)).toBeUndefined();
      expect(new UploadSlots(state.storage.kv).storedCopy(stored.objectKey, now)).toBeUndefined();

      const lastMoment = stored.expiresAt + CAPTURE_WINDOW_MS - 1;
      expect(slots.storedCopy(stored.objectKey, lastMoment)).toEqual(stored);
      // Past the window the row decides (409 upload_expired while it exists, 400 once it is gone).
      expect(slots.storedCopy(stored.objectKey, lastMoment + 1)).toBeUndefined();
      expect(slots.storedCopy(stored.objectKey, now)).toBeUndefined();
      slots.stored(stored);
      slots.forget(lastMoment + 1);
      expect(slots.storedCopy(stored.objectKey, now)).toBeUndefined();
    }));

  it("holds at most STORED_COPIES copies, dropping the oldest first", () =>
    inFreshObject(async (state) => {
      const slots = new UploadSlots(state.storage.kv);
      const now = moduleContext(state.storage).clock.now;
      const copies = Array.from({ length: STORED_COPIES + 2 }, (_, i): UploadSlot => ({ ...slotOf(`vfy_many${i}`, now), status: "uploaded", sizeBytes: 1, sha256: "cd".repeat(32), sniffedType: "image/jpeg" }));
      for (const copy of copies) slots.stored(copy);
      expect(slots.storedCopy(copies[0]!.objectKey, now)).toBeUndefined();
      expect(slots.storedCopy(copies[1]!.objectKey, now)).toBeUndefined();
      expect(slots.storedCopy(copies[2]!.objectKey, now)).toEqual(copies[2]);
      expect(slots.storedCopy(copies.at(-1)!.objectKey, now)).toEqual(copies.at(-1));
    }));

  it("forget(Infinity) drops every slot and nothing else the object stores", () =>
    inFreshObject(async (state) => {
      const slots = new UploadSlots(state.storage.kv);
      const now = moduleContext(state.storage).clock.now;
      const [a, b] = [slotOf("vfy_slots", now), slotOf("vfy_slots", now + 3_600_000, "forensic_buffer")];
      slots.keep(a!);
      slots.keep(b!);
      state.storage.kv.put("verification_id", "vfy_slots");
      slots.forget(Infinity);
      expect([slots.kept(a!.objectKey), slots.kept(b!.objectKey)]).toEqual([undefined, undefined]);
      expect(state.storage.kv.get("verification_id")).toBe("vfy_slots");
    }));
});

describe("minting a slot", () => {
  it("inserts the upload's row, keeps a direct upload's slot only, and books the sweep and the alarm at its orphan time, never later", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const slots = new UploadSlots(state.storage.kv);
      const v = await seedVerification(t.id, clock.now);
      const viaWorker = slotOf(v.id, clock.now);
      expect(await mintSlot(cx, slots, mint(viaWorker, clock.now, { cap: 4 }))).toEqual({ ok: true });
      const orphanAt = viaWorker.expiresAt + CAPTURE_WINDOW_MS;
      expect(slots.kept(viaWorker.objectKey)).toBeUndefined();
      expect([await sweepDue(state.storage), await state.storage.getAlarm()]).toEqual([orphanAt, orphanAt]);

      clock.now += 60_000;
      const direct = slotOf(v.id, clock.now);
      expect(await mintSlot(cx, slots, mint(direct, clock.now, { cap: 4, direct: true }))).toEqual({ ok: true });
      expect(slots.kept(direct.objectKey)).toEqual(direct);
      // The later orphan time does not postpone the sweep the first one needs.
      expect([await sweepDue(state.storage), await state.storage.getAlarm()]).toEqual([orphanAt, orphanAt]);

      const rows = await db().select().from(uploads).where(eq(uploads.verificationId, v.id));
      expect(rows.map((r) => [r.objectKey, r.kind, r.status, r.expiresAt]).sort()).toEqual(
        [viaWorker, direct].map((s) => [s.objectKey, "image", "minted", s.expiresAt]).sort(),
      );
    }));

  it("a refused mint (cap reached) writes no row, keeps no slot and books nothing", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const slots = new UploadSlots(state.storage.kv);
      const v = await seedVerification(t.id, clock.now);
      const refused = slotOf(v.id, clock.now);
      expect(await mintSlot(cx, slots, mint(refused, clock.now, { cap: 0, direct: true }))).toMatchObject({ ok: false, error: { code: "too_many_requests" } });
      expect(await db().select().from(uploads).where(eq(uploads.verificationId, v.id))).toEqual([]);
      expect(slots.kept(refused.objectKey)).toBeUndefined();
      expect([await sweepDue(state.storage), await state.storage.getAlarm()]).toEqual([undefined, null]);
    }));
});

describe("the cap on open upload URLs", () => {
  it("counts open URLs of the same kind only; a URL a capture took frees its place", async () => {
    const now = Date.now();
    const v = await seedVerification(t.id, now);
    const first = slotOf(v.id, now);
    expect(await insertUpload(db(), mint(first, now))).toEqual({ ok: true });
    // 429 until the first URL expires (5 min): Retry-After in seconds.
    expect(await insertUpload(db(), mint(slotOf(v.id, now), now))).toMatchObject({ ok: false, error: { code: "too_many_requests" }, retryAfter: UPLOAD_TTL_MS / 1000 });
    expect(await insertUpload(db(), mint(slotOf(v.id, now, "forensic_buffer"), now))).toEqual({ ok: true });

    await seedCapture(v, { id: first.id, imageKey: first.objectKey }, now);
    expect(await insertUpload(db(), mint(slotOf(v.id, now), now))).toEqual({ ok: true });
  });

  it("an expired URL stops counting for a URL the Worker receives, but counts for a direct one until its capture window closes", async () => {
    const now = Date.now();
    const v = await seedVerification(t.id, now);
    const first = slotOf(v.id, now);
    expect(await insertUpload(db(), mint(first, now, { direct: true }))).toEqual({ ok: true });

    // Expired: a direct upload's bytes could still land unseen and be captured within the window.
    const expired = first.expiresAt;
    expect(await insertUpload(db(), mint(slotOf(v.id, expired), expired, { direct: true }))).toMatchObject({
      ok: false,
      error: { code: "too_many_requests" },
      retryAfter: CAPTURE_WINDOW_MS / 1000,
    });
    const closed = first.expiresAt + CAPTURE_WINDOW_MS;
    expect(await insertUpload(db(), mint(slotOf(v.id, closed), closed, { direct: true }))).toEqual({ ok: true });

    const other = await seedVerification(t.id, now);
    const expiredThere = slotOf(other.id, now);
    expect(await insertUpload(db(), mint(expiredThere, now))).toEqual({ ok: true });
    expect(await insertUpload(db(), mint(slotOf(other.id, expiredThere.expiresAt), expiredThere.expiresAt))).toEqual({ ok: true });
  });
});
