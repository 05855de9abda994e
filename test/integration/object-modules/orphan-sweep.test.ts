import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { answers, uploads, verifications } from "../../../src/db/schema";
import { loadRecord, type VerificationRow } from "../../../src/db/verifications";
import { sweepDue } from "../../../src/durable-objects/verification/alarm";
import { runSweep } from "../../../src/durable-objects/verification/orphan-sweep";
import { UploadSlots } from "../../../src/durable-objects/verification/upload-slots";
import { newId } from "../../../src/lib/ids";
import { CAPTURE_WINDOW_MS, SWEEP_GRACE_MS } from "../../../src/model/verification/orphan-sweep";
import { redactedColumns } from "../../../src/model/verification/redaction";
import { UPLOAD_TTL_MS, type UploadSlot } from "../../../src/model/verification/upload-slots";
import { burstKeysFor, credentialsKeyFor, objectKeyFor, thumbnailKeyFor, verificationPrefix } from "../../../src/storage/evidence";
import { db, seedTenant, type TestTenant } from "../../helpers/api";
import { commitSteps, inFreshObject, moduleContext, seedCapture, seedVerification } from "../../helpers/object-context";

/*
 * The alarm's sweep (durable-objects/verification/orphan-sweep.ts) alone: the object's real storage,
 * the real D1 and evidence bucket; a recording purger for a redacted verification's prefix. Objects are
 * stored at the wall clock, so each sweep runs at a `now` past their grace.
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

/** A minted upload's row (and the slot the object keeps of it) whose bytes are already in the bucket. */
async function uploaded(v: VerificationRow, expiresAt: number): Promise<UploadSlot> {
  const id = newId("capture");
  const slot: UploadSlot = {
    id,
    verificationId: v.id,
    kind: "image",
    objectKey: objectKeyFor(v.id, id, "image"),
    contentType: "image/jpeg",
    maxBytes: 1_000,
    expiresAt,
    status: "minted",
    sizeBytes: null,
    sha256: null,
    sniffedType: null,
  };
  await db().insert(uploads).values({ ...slot, createdAt: expiresAt - UPLOAD_TTL_MS });
  await env.EVIDENCE.put(slot.objectKey, "bytes");
  return slot;
}

async function storedKeys(v: VerificationRow): Promise<string[]> {
  return (await env.EVIDENCE.list({ prefix: verificationPrefix(v.id) })).objects.map((o) => o.key).sort();
}

describe("the orphan sweep", () => {
  it("deletes what no capture references once it can no longer be captured, keeps the rest, forgets the dead slots and books the next sweep", () =>
    inFreshObject(async (state) => {
      const { cx, purger } = moduleContext(state.storage);
      const slots = new UploadSlots(state.storage.kv);
      const now = Date.now() + SWEEP_GRACE_MS + 60_000;
      const v = await seedVerification(t.id, now);
      const taken = await uploaded(v, now - UPLOAD_TTL_MS);
      await seedCapture(v, { id: taken.id, imageKey: taken.objectKey }, now);
      await env.EVIDENCE.put(thumbnailKeyFor(v.id, taken.id), "thumbnail");
      const orphan = await uploaded(v, now - CAPTURE_WINDOW_MS);
      const open = await uploaded(v, now + UPLOAD_TTL_MS);
      const leftover = `${verificationPrefix(v.id)}inline-leftover`;
      await env.EVIDENCE.put(leftover, "bytes of a refused capture");
      slots.keep(orphan);
      slots.keep(open);
      const { steps, calls } = commitSteps(cx, v.id);
      const record = (await loadRecord(db(), v.id))!;

      expect(await runSweep(cx, slots, steps, v.id, record, now)).toBe(record);
      const kept = [taken.objectKey, thumbnailKeyFor(v.id, taken.id), open.objectKey].sort();
      expect(await storedKeys(v)).toEqual(kept);
      expect([slots.kept(orphan.objectKey), slots.kept(open.objectKey)]).toEqual([undefined, open]);
      expect(await sweepDue(state.storage)).toBe(open.expiresAt + CAPTURE_WINDOW_MS);

      // Again at the same time: nothing more goes. Once the open one's window closed: it goes, and no sweep is left.
      await runSweep(cx, slots, steps, v.id, record, now);
      expect(await storedKeys(v)).toEqual(kept);
      await runSweep(cx, slots, steps, v.id, record, open.expiresAt + CAPTURE_WINDOW_MS);
      expect(await storedKeys(v)).toEqual([taken.objectKey, thumbnailKeyFor(v.id, taken.id)].sort());
      expect(slots.kept(open.objectKey)).toBeUndefined();
      expect(await sweepDue(state.storage)).toBeUndefined();
      expect([purger.purged, calls.apply]).toEqual([[], 0]);
    }));

  it("a capture's burst strips are kept with it; strips no capture recorded (a refused or retried capture's) go after the grace", () =>
    inFreshObject(async (state) => {
      const { cx } = moduleContext(state.storage);
      const now = Date.now() + SWEEP_GRACE_MS + 60_000;
      const v = await seedVerification(t.id, now);
      const taken = await uploaded(v, now - UPLOAD_TTL_MS);
      const digests = { frames: "a".repeat(64), patches: "b".repeat(64) };
      const record = { schema_version: 2, frames: { sha256: digests.frames }, patches: { sha256: digests.patches } };
      await seedCapture(v, { id: taken.id, imageKey: taken.objectKey, captureIntegrity: record }, now);
      const kept = burstKeysFor(v.id, taken.id, digests);
      const stray = burstKeysFor(v.id, taken.id, { frames: "c".repeat(64), patches: "d".repeat(64) });
      for (const key of [kept.frames, kept.patches, stray.frames, stray.patches]) await env.EVIDENCE.put(key, "strip");

      await runSweep(cx, new UploadSlots(state.storage.kv), commitSteps(cx, v.id).steps, v.id, (await loadRecord(db(), v.id))!, now);

      expect(await storedKeys(v)).toEqual([taken.objectKey, kept.frames, kept.patches].sort());
    }));

  it("a capture's signed copies (Content Credentials) are kept with it, whatever their age", () =>
    inFreshObject(async (state) => {
      const { cx } = moduleContext(state.storage);
      const now = Date.now() + SWEEP_GRACE_MS + 60_000;
      const v = await seedVerification(t.id, now);
      const taken = await uploaded(v, now - UPLOAD_TTL_MS);
      await seedCapture(v, { id: taken.id, imageKey: taken.objectKey }, now);
      const copies = [credentialsKeyFor(v.id, taken.id, "image/jpeg", "1".repeat(64)), credentialsKeyFor(v.id, taken.id, "image/jpeg", "2".repeat(64))];
      for (const key of copies) await env.EVIDENCE.put(key, "signed copy");

      await runSweep(cx, new UploadSlots(state.storage.kv), commitSteps(cx, v.id).steps, v.id, (await loadRecord(db(), v.id))!, now);

      expect(await storedKeys(v)).toEqual([taken.objectKey, ...copies].sort());
    }));

  it("once the verification is over, unreferenced bytes go after the grace even under an open URL, and the sweep comes back when that URL expired", () =>
    inFreshObject(async (state) => {
      const { cx } = moduleContext(state.storage);
      const now = Date.now() + SWEEP_GRACE_MS + 60_000;
      const v = await seedVerification(t.id, now, { status: "expired" });
      const open = await uploaded(v, now + UPLOAD_TTL_MS);
      const record = (await loadRecord(db(), v.id))!;

      await runSweep(cx, new UploadSlots(state.storage.kv), commitSteps(cx, v.id).steps, v.id, record, now);

      expect(await storedKeys(v)).toEqual([]);
      expect(await sweepDue(state.storage)).toBe(open.expiresAt + SWEEP_GRACE_MS);
    }));

  it("a redacted verification: its prefix is purged whole, its clean-up and tombstone written again over a late writer, every slot forgotten, no sweep left", () =>
    inFreshObject(async (state) => {
      const { cx, clock, purger } = moduleContext(state.storage);
      const slots = new UploadSlots(state.storage.kv);
      const v = await seedVerification(t.id, clock.now, { narrative: "The rear door is dented." });
      await db().update(verifications).set({ ...redactedColumns(v, clock.now), version: 2 }).where(eq(verifications.id, v.id));
      // A writer that read the verification before the redaction puts data back after it.
      await db().update(verifications).set({ narrative: "written back late", version: 3 }).where(eq(verifications.id, v.id));
      await db().insert(answers).values({ verificationId: v.id, stepKey: "plate", value: "written back late", answeredAt: clock.now });
      const open = await uploaded(v, clock.now + UPLOAD_TTL_MS);
      slots.keep(open);
      await state.storage.put("sweep_at", clock.now);
      const { steps, calls } = commitSteps(cx, v.id);

      const swept = await runSweep(cx, slots, steps, v.id, (await loadRecord(db(), v.id))!, clock.now);

      expect(purger.purged).toEqual([v.id]);
      expect(swept.row).toMatchObject({ narrative: null, redactedAt: clock.now, version: 4 });
      expect((await loadRecord(db(), v.id))!.row).toMatchObject({ narrative: null, version: 4 });
      expect(await db().select().from(answers).where(eq(answers.verificationId, v.id))).toEqual([]);
      expect(slots.kept(open.objectKey)).toBeUndefined();
      expect(await sweepDue(state.storage)).toBeUndefined();

      // Nothing drifted since: a second sweep purges again (idempotent) and writes nothing.
      await runSweep(cx, slots, steps, v.id, swept, clock.now);
      expect(calls.apply).toBe(1);
      expect((await loadRecord(db(), v.id))!.row.version).toBe(4);
    }));
});
