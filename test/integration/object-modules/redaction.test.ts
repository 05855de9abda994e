import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { answers, verifications } from "../../../src/db/schema";
import { loadRecord, timeline, type VerificationRow } from "../../../src/db/verifications";
import {
  armRedactionRetry,
  completeRedaction,
  pendingRedaction,
  redriveRedaction,
  type PendingRedaction,
} from "../../../src/durable-objects/verification/redaction";
import { sweepDue } from "../../../src/durable-objects/verification/alarm";
import { newId } from "../../../src/lib/ids";
import { QUIET_AFTER_MS, redactedColumns } from "../../../src/model/verification/redaction";
import { db, seedTenant, type TestTenant } from "../../helpers/api";
import { commitSteps, inFreshObject, moduleContext, seedCapture, seedEvents, seedVerification } from "../../helpers/object-context";

/*
 * Redaction's steps (durable-objects/verification/redaction.ts) alone: the intent in the object's real
 * storage, the tombstone's batch on the real D1 (commitSteps: the object's commit without the object),
 * and a recording purger in place of the bucket's purge.
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

const INTENT: PendingRedaction = { by: "usr_operator", attempts: 0, retryAt: 0 };

/** A verification holding personal data in its config, an answer, a capture's location and its timeline. */
async function verificationWithPersonalData(now: number, overrides: Partial<VerificationRow> = {}): Promise<VerificationRow> {
  const v = await seedVerification(t.id, now, { narrative: "The rear door is dented.", ...overrides });
  await db().insert(answers).values({ verificationId: v.id, stepKey: "plate", value: "B-XY 123", answeredAt: now });
  await seedCapture(v, { id: newId("capture", now), imageKey: `verifications/${v.id}/photo`, location: { lat: 52.52, lng: 13.4 } }, now);
  await seedEvents(v, ["verification.capture.persisted"], now);
  return v;
}

describe("redaction's steps", () => {
  it("stores the intent with a 5 s doubling retry and moves the alarm earlier, never later", () =>
    inFreshObject(async (state) => {
      const now = moduleContext(state.storage).clock.now;
      await armRedactionRetry(state.storage, INTENT, now);
      expect(await pendingRedaction(state.storage)).toEqual({ ...INTENT, attempts: 1, retryAt: now + 5_000 });
      expect(await state.storage.getAlarm()).toBe(now + 5_000);

      await armRedactionRetry(state.storage, (await pendingRedaction(state.storage))!, now + 5_000);
      expect(await pendingRedaction(state.storage)).toEqual({ ...INTENT, attempts: 2, retryAt: now + 15_000 });
      expect(await state.storage.getAlarm()).toBe(now + 5_000);
    }));

  it("writes the tombstone and clears the other tables in one commit, purges the prefix, forgets the intent and books the final sweep", () =>
    inFreshObject(async (state) => {
      const { cx, clock, purger } = moduleContext(state.storage);
      const v = await verificationWithPersonalData(clock.now);
      const { steps, calls } = commitSteps(cx, v.id);
      await armRedactionRetry(state.storage, INTENT, clock.now);

      const result = await completeRedaction(cx, steps, v.id, INTENT);

      expect(result).toMatchObject({ ok: true, record: { row: { redactedAt: clock.now, version: 2 } } });
      const after = (await loadRecord(db(), v.id))!;
      expect(after.row).toMatchObject({ version: 2, redactedAt: clock.now, narrative: null });
      expect(after.row.config).not.toHaveProperty("metadata");
      expect(after.row.config).not.toHaveProperty("notify_email");
      expect(after.row.config.webhook_url).toBe(v.config.webhook_url);
      expect(after.answers).toEqual([]);
      expect(after.captures.map((c) => c.location)).toEqual([null]);
      expect((await timeline(db(), v.id)).map((e) => [e.name, e.payload])).toEqual([
        ["verification.capture.persisted", null],
        ["verification.redacted", { by: INTENT.by }],
      ]);
      expect(purger.purged).toEqual([v.id]);
      expect(await pendingRedaction(state.storage)).toBeUndefined();
      expect(await sweepDue(state.storage)).toBe(clock.now + QUIET_AFTER_MS);
      expect(calls).toEqual({ apply: 1, redrive: 0, schedule: 1 });
    }));

  it("a purge that fails keeps the intent; the alarm's re-drive purges without writing the tombstone again, then has nothing left to do", () =>
    inFreshObject(async (state) => {
      const { cx, clock, purger } = moduleContext(state.storage);
      const v = await verificationWithPersonalData(clock.now);
      const { steps, calls } = commitSteps(cx, v.id);
      const redactedAt = clock.now;
      purger.failing = true;
      await armRedactionRetry(state.storage, INTENT, clock.now);
      expect((await completeRedaction(cx, steps, v.id, INTENT)).ok).toBe(true);
      expect(await pendingRedaction(state.storage)).toMatchObject({ attempts: 1 });
      expect(await sweepDue(state.storage)).toBeUndefined();
      expect(calls.schedule).toBe(1);

      purger.failing = false;
      clock.now = (await pendingRedaction(state.storage))!.retryAt;
      const record = await redriveRedaction(cx, steps, v.id);

      expect(record?.row).toMatchObject({ version: 2, redactedAt });
      expect((await loadRecord(db(), v.id))!.row.version).toBe(2);
      expect(purger.purged).toEqual([v.id]);
      // Redacted before this attempt: whatever that commit left unsent is re-driven.
      expect(calls.redrive).toBe(1);
      expect(await pendingRedaction(state.storage)).toBeUndefined();
      expect(await sweepDue(state.storage)).toBe(redactedAt + QUIET_AFTER_MS);

      expect(await redriveRedaction(cx, steps, v.id)).toBeUndefined();
      expect(purger.purged).toEqual([v.id]);
      expect(calls.apply).toBe(2);
    }));

  it("redacted long ago: the clean-up runs again at once (a late writer's answer goes) and no final sweep is booked", () =>
    inFreshObject(async (state) => {
      const { cx, clock, purger } = moduleContext(state.storage);
      const long = clock.now - 2 * QUIET_AFTER_MS;
      const v = await seedVerification(t.id, long);
      await db().update(verifications).set({ ...redactedColumns(v, long), version: 2 }).where(eq(verifications.id, v.id));
      await db().insert(answers).values({ verificationId: v.id, stepKey: "plate", value: "written back late", answeredAt: clock.now });
      const { steps, calls } = commitSteps(cx, v.id);

      const result = await completeRedaction(cx, steps, v.id, INTENT);

      expect(result).toMatchObject({ ok: true, record: { row: { redactedAt: long, version: 2 } } });
      expect(await db().select().from(answers).where(eq(answers.verificationId, v.id))).toEqual([]);
      expect(purger.purged).toEqual([v.id]);
      expect(await sweepDue(state.storage)).toBeUndefined();
      expect(calls).toEqual({ apply: 1, redrive: 1, schedule: 1 });
    }));

  it("a verification that no longer exists drops the intent; any other refusal keeps it for the alarm", () =>
    inFreshObject(async (state) => {
      const { cx, clock, purger } = moduleContext(state.storage);
      await armRedactionRetry(state.storage, INTENT, clock.now);
      const gone = commitSteps(cx, newId("verification", clock.now)).steps;
      expect(await completeRedaction(cx, gone, "vfy_gone", INTENT)).toMatchObject({ ok: false, error: { code: "not_found" } });
      expect(await pendingRedaction(state.storage)).toBeUndefined();

      await armRedactionRetry(state.storage, INTENT, clock.now);
      const busy = { ...gone, apply: async () => ({ ok: false as const, error: { code: "invalid_state" as const, message: "changed concurrently" } }) };
      expect(await completeRedaction(cx, busy, "vfy_busy", INTENT)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
      expect(await pendingRedaction(state.storage)).toMatchObject({ attempts: 1 });
      expect(purger.purged).toEqual([]);
    }));
});
