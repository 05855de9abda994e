import { env } from "cloudflare:workers";
import { asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { answers, captures, verifications } from "../../src/db/schema";
import { decodeRows, insertRow, toStatement, updateWhere } from "../../src/db/statements";
import { loadRecord, settlingColumns, webhookUrlOf, type CaptureRow } from "../../src/db/verifications";
import { captureFlowRecord, type CaptureFlowRecord } from "../../src/model/verification/present";
import { verificationObject } from "../../src/durable-objects/verification-client";
import { newId } from "../../src/lib/ids";
import { createVerification, db, seedTenant, type TestTenant } from "../helpers/api";
import { receiver } from "../helpers/webhooks";

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

// The capture path's prepared statements must write and read exactly what drizzle's queries do.
describe("prepared statements from the drizzle schema", () => {
  it("a verification decoded from SELECT * equals drizzle's row (JSON, boolean and null columns)", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const { version } = (await db().select({ version: verifications.version }).from(verifications).where(eq(verifications.id, v.id)).get())!;
    // Every write sets the version to old + 1 (trigger verifications_version_cas).
    await db().update(verifications).set({ version: version + 1, progress: { kind: "step_reached", n: 1 }, verdict: null }).where(eq(verifications.id, v.id));
    const viaDrizzle = await db().select().from(verifications).where(eq(verifications.id, v.id)).get();
    const [decoded] = decodeRows(verifications, await env.DB.prepare("SELECT * FROM verifications WHERE id = ?").bind(v.id).all());
    expect(decoded).toEqual(viaDrizzle);
    expect(typeof decoded!.sealEnabled).toBe("boolean");
    expect(decoded!.config).toEqual(viaDrizzle!.config);
  });

  it("insertRow and updateWhere encode JSON columns and skip undefined keys; toStatement runs a drizzle query in the same batch", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const now = Date.now();
    const row: CaptureRow = {
      id: newId("capture", now),
      verificationId: v.id,
      tenantId: t.id,
      stepKey: "capture_1",
      stepType: "image",
      seq: 1,
      imageKey: `verifications/${v.id}/stmt-${now}`,
      contentType: "image/jpeg",
      sizeBytes: 10,
      sha256: "00".repeat(32),
      surface: null,
      clientCapturedAt: null,
      location: { lat: 52.5, lng: 13.4, accuracy_m: 5 },
      forensicBufferKey: null,
      attestation: { ok: true },
      captureIntegrity: null,
      createdAt: now,
    };
    const before = await db().select().from(verifications).where(eq(verifications.id, v.id)).get();
    await env.DB.batch([
      insertRow(env.DB, captures, row),
      updateWhere(env.DB, verifications, { version: before!.version + 1, progress: { a: [1, 2] }, narrative: undefined }, { key: "id", value: v.id }),
      toStatement(env.DB, db().update(verifications).set({ version: before!.version + 2, narrative: "via drizzle" }).where(eq(verifications.id, v.id))),
    ]);
    expect(await db().select().from(captures).where(eq(captures.id, row.id)).get()).toEqual(row);
    const after = await db().select().from(verifications).where(eq(verifications.id, v.id)).get();
    expect(after!.progress).toEqual({ a: [1, 2] });
    expect(after!.version).toBe(before!.version + 2);
    expect(after!.narrative).toBe("via drizzle");
    expect(after!.config).toEqual(before!.config);
  });

  it("a capture's commit computes the record instead of reading it back; the object answers with the capture flow's view of what D1 holds", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    const stub = verificationObject(env, v.id);
    for (const n of [1, 2]) {
      const now = Date.now();
      const result = await stub.addCapture(v.id, {
        captureId: newId("capture", now),
        imageKey: `verifications/${v.id}/computed-${n}-${now}`,
        mediaType: "image/jpeg",
        sizeBytes: 100 + n,
        sha256: "ab".repeat(32),
        location: { lat: 1.5, lng: -2.25, accuracy_m: n },
        clientCapturedAt: now - 1000,
        surface: "camera",
      });
      expect(result.ok).toBe(true);
      const { record } = result as unknown as { record: CaptureFlowRecord };
      expect(record).toEqual(captureFlowRecord((await loadRecord(db(), v.id))!));
      expect(record.captures).toHaveLength(n);
      // Only what the end user's view shows crosses the RPC: not the capture's location or the tenant's config.
      expect(record.captures[n - 1]).toEqual({ id: expect.any(String), stepKey: expect.any(String), createdAt: expect.any(Number) });
      expect(Object.keys(record.row.config).sort()).toEqual(["max_captures", "steps"]);
    }
  });

  it("loadRecord reads through prepared statements exactly what drizzle's queries read", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    const stub = verificationObject(env, v.id);
    for (const n of [2, 1]) {
      const now = Date.now();
      const added = await stub.addCapture(v.id, {
        captureId: newId("capture", now),
        imageKey: `verifications/${v.id}/load-${n}-${now}`,
        mediaType: "image/jpeg",
        sizeBytes: n,
        sha256: "cd".repeat(32),
        attestation: { ok: true, n },
      });
      expect(added.ok).toBe(true);
    }
    await stub.answer(v.id, "unknown_step", "x"); // refused: no such text step, nothing written
    const [rows, captureRows, answerRows] = await db().batch([
      db().select().from(verifications).where(eq(verifications.id, v.id)),
      db().select().from(captures).where(eq(captures.verificationId, v.id)).orderBy(asc(captures.seq)),
      db().select().from(answers).where(eq(answers.verificationId, v.id)),
    ]);
    const record = await loadRecord(db(), v.id);
    expect(record).toEqual({ row: rows[0], captures: captureRows, answers: answerRows });
    expect(record!.captures.map((c) => c.seq)).toEqual([1, 2]);
    expect(await loadRecord(db(), "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z")).toBeNull();
  });

  it("settlingColumns reads the three columns settling decides on, as the row holds them", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    const row = await db().select().from(verifications).where(eq(verifications.id, v.id)).get();
    expect(await settlingColumns(db(), v.id)).toEqual({ status: row!.status, readyAt: null, redactedAt: null });
    await db().update(verifications).set({ version: row!.version + 1, readyAt: 1234 }).where(eq(verifications.id, v.id));
    expect(await settlingColumns(db(), v.id)).toEqual({ status: "pending", readyAt: 1234, redactedAt: null });
    expect(await settlingColumns(db(), "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z")).toBeNull();
  });

  it("webhookUrlOf reads the config's webhook_url alone: null without one, undefined for no verification", async () => {
    const without = await createVerification(t.key, { max_captures: 1 });
    const hook = receiver();
    const withHook = await createVerification(t.key, { max_captures: 1, webhook_url: hook.url });
    expect(await webhookUrlOf(db(), without.id)).toBeNull();
    expect(await webhookUrlOf(db(), withHook.id)).toBe(hook.url);
    expect(await webhookUrlOf(db(), "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z")).toBeUndefined();
  });
});
