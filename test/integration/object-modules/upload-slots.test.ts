import { eq } from "drizzle-orm";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { uploads } from "../../../src/db/schema";
import { sweepDue } from "../../../src/durable-objects/verification/alarm";
import { claimKept, finishClaim, insertUpload, mintSlot, releaseClaim, UploadSlots } from "../../../src/durable-objects/verification/upload-slots";
import { newId } from "../../../src/lib/ids";
import { CAPTURE_WINDOW_MS } from "../../../src/model/verification/orphan-sweep";
import { checkSlot, STALE_CLAIM_MS, UPLOAD_TTL_MS, type UploadKind, type UploadMint, type UploadSlot } from "../../../src/model/verification/upload-slots";
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

  it("a PUT claims a kept slot once: another claim waits until the first is abandoned (60 s), and a body that does not fit claims nothing", () =>
    inFreshObject(async (state) => {
      const slots = new UploadSlots(state.storage.kv);
      const now = moduleContext(state.storage).clock.now;
      const slot = slotOf("vfy_claims", now);
      slots.keep(slot);
      const fits = { contentType: "image/jpeg", sizeBytes: 1_000 };
      expect(claimKept(slots, slot, { ...fits, contentType: "image/png" }, now)).toBe(false);
      expect(claimKept(slots, slot, { ...fits, sizeBytes: slot.maxBytes + 1 }, now)).toBe(false);
      expect(claimKept(slots, slot, null, now)).toBe(false);
      expect(slots.kept(slot.objectKey)).toEqual(slot);

      expect(claimKept(slots, slots.kept(slot.objectKey)!, fits, now)).toBe(true);
      expect(slots.kept(slot.objectKey)).toEqual({ ...slot, status: "uploading", claimedAt: now });
      expect(claimKept(slots, slots.kept(slot.objectKey)!, fits, now + STALE_CLAIM_MS - 1)).toBe(false);
      // Kept in the object's storage: a new instance sees the claim too.
      expect(new UploadSlots(state.storage.kv).kept(slot.objectKey)).toMatchObject({ status: "uploading", claimedAt: now });
      expect(claimKept(slots, slots.kept(slot.objectKey)!, fits, now + STALE_CLAIM_MS)).toBe(true);
      expect(slots.kept(slot.objectKey)).toMatchObject({ status: "uploading", claimedAt: now + STALE_CLAIM_MS });

      // Only the claim that holds the slot releases it.
      releaseClaim(slots, slot.objectKey, now);
      expect(slots.kept(slot.objectKey)).toMatchObject({ status: "uploading", claimedAt: now + STALE_CLAIM_MS });
      releaseClaim(slots, slot.objectKey, now + STALE_CLAIM_MS);
      expect(slots.kept(slot.objectKey)).toEqual({ ...slot, claimedAt: null });
    }));

  it("finishing a claim records the digest in the slot and its row; a claim taken over, or a row gone, finishes nothing", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const slots = new UploadSlots(state.storage.kv);
      const v = await seedVerification(t.id, clock.now);
      const slot = slotOf(v.id, clock.now);
      expect(await mintSlot(cx, slots, mint(slot, clock.now, { cap: 4 }))).toEqual({ ok: true });
      const fits = { contentType: "image/jpeg", sizeBytes: 123 };
      const digest = { sizeBytes: 123, sha256: "ab".repeat(32), sniffedType: "image/jpeg" };
      expect(claimKept(slots, slots.kept(slot.objectKey)!, fits, clock.now)).toBe(true);
      const stale = await finishClaim(env.DB, slots, { objectKey: slot.objectKey, claimedAt: clock.now - 1, digest, now: clock.now });
      expect(stale).toMatchObject({ ok: false, error: { code: "invalid_state" } });

      const finished = await finishClaim(env.DB, slots, { objectKey: slot.objectKey, claimedAt: clock.now, digest, now: clock.now });
      const uploaded = { ...slot, ...digest, status: "uploaded" };
      expect(finished).toEqual({ ok: true, slot: uploaded });
      expect(slots.kept(slot.objectKey)).toEqual(uploaded);
      expect(await db().select().from(uploads).where(eq(uploads.id, slot.id)).get()).toMatchObject({ status: "uploaded", sha256: digest.sha256, sizeBytes: 123, uploadedAt: clock.now });
      expect(claimKept(slots, slots.kept(slot.objectKey)!, fits, clock.now + STALE_CLAIM_MS)).toBe(false);

      // The row went meanwhile: 409, and the slot goes too.
      const other = slotOf(v.id, clock.now);
      expect(await mintSlot(cx, slots, mint(other, clock.now, { cap: 4 }))).toEqual({ ok: true });
      expect(claimKept(slots, slots.kept(other.objectKey)!, fits, clock.now)).toBe(true);
      await db().delete(uploads).where(eq(uploads.id, other.id)).run();
      const gone = await finishClaim(env.DB, slots, { objectKey: other.objectKey, claimedAt: clock.now, digest, now: clock.now });
      expect(gone).toMatchObject({ ok: false, error: { code: "invalid_state" } });
      expect(slots.kept(other.objectKey)).toBeUndefined();
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
  it("inserts the upload's row, keeps its slot (direct or not), and books the sweep and the alarm at its orphan time, never later", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const slots = new UploadSlots(state.storage.kv);
      const v = await seedVerification(t.id, clock.now);
      const viaWorker = slotOf(v.id, clock.now);
      expect(await mintSlot(cx, slots, mint(viaWorker, clock.now, { cap: 4 }))).toEqual({ ok: true });
      const orphanAt = viaWorker.expiresAt + CAPTURE_WINDOW_MS;
      expect(slots.kept(viaWorker.objectKey)).toEqual(viaWorker);
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
