import { describe, expect, it } from "vitest";
import { newVerificationRow, type VerificationRecord, type VerificationRow } from "../../../src/db/verifications";
import { alarmBy, armAlarm, scheduleAlarm, sweepBy, sweepDue } from "../../../src/durable-objects/verification/alarm";
import { Outbox } from "../../../src/durable-objects/verification/outbox";
import { inFreshObject, moduleContext } from "../../helpers/object-context";

/*
 * The object's one alarm (durable-objects/verification/alarm.ts) alone, on a real DurableObjectState.
 * Every time is a day ahead of the wall clock (moduleContext), so no alarm fires during a test.
 */

const MIN = 60_000;

function record(expiresAt: number, overrides: Partial<VerificationRow> = {}): VerificationRecord {
  const row = newVerificationRow({ id: "vfy_alarm", tenantId: "tnt_alarm", config: { max_captures: 1, steps: [], signals_required: ["screen"] }, sealEnabled: false, createdAt: 0, expiresAt });
  return { row: { ...row, ...overrides }, captures: [], answers: [] };
}

describe("the object's alarm", () => {
  it("armAlarm arms the earliest due time, skips what is not due, and deletes the alarm when nothing is", () =>
    inFreshObject(async (state) => {
      const { clock } = moduleContext(state.storage);
      const t = clock.now;
      await armAlarm(state.storage, [t + 30 * MIN, undefined, t + 10 * MIN, t + 20 * MIN]);
      expect(await state.storage.getAlarm()).toBe(t + 10 * MIN);
      // Re-armed for what is due now, even if that is later than the alarm set before.
      await armAlarm(state.storage, [t + 20 * MIN]);
      expect(await state.storage.getAlarm()).toBe(t + 20 * MIN);
      await armAlarm(state.storage, [undefined, undefined]);
      expect(await state.storage.getAlarm()).toBeNull();
    }));

  it("alarmBy moves the alarm earlier, never later", () =>
    inFreshObject(async (state) => {
      const t = moduleContext(state.storage).clock.now;
      await alarmBy(state.storage, t + 10 * MIN);
      expect(await state.storage.getAlarm()).toBe(t + 10 * MIN);
      await alarmBy(state.storage, t + 20 * MIN);
      expect(await state.storage.getAlarm()).toBe(t + 10 * MIN);
      await alarmBy(state.storage, t + 5 * MIN);
      expect(await state.storage.getAlarm()).toBe(t + 5 * MIN);
    }));

  it("sweepBy books the sweep no later than asked: an earlier request moves it, a later one does not", () =>
    inFreshObject(async (state) => {
      const t = moduleContext(state.storage).clock.now;
      expect(await sweepDue(state.storage)).toBeUndefined();
      await sweepBy(state.storage, t + 10 * MIN);
      await sweepBy(state.storage, t + 20 * MIN);
      expect(await sweepDue(state.storage)).toBe(t + 10 * MIN);
      await sweepBy(state.storage, t + 5 * MIN);
      expect(await sweepDue(state.storage)).toBe(t + 5 * MIN);
    }));

  it("scheduleAlarm arms the earliest of the expiry, the outbox's re-drive and marks, the sweep and a pending redaction", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const outbox = new Outbox(cx);
      const t = clock.now;
      const open = record(t + 60 * MIN);
      const alarmAfter = async (r: VerificationRecord) => {
        await scheduleAlarm(state.storage, outbox, r);
        return state.storage.getAlarm();
      };

      expect(await alarmAfter(open)).toBe(t + 60 * MIN);
      await state.storage.put("sweep_at", t + 50 * MIN);
      expect(await alarmAfter(open)).toBe(t + 50 * MIN);
      await state.storage.put("redaction", { by: "test", attempts: 1, retryAt: t + 40 * MIN });
      expect(await alarmAfter(open)).toBe(t + 40 * MIN);
      // The journal's mark is due only while the journal holds something.
      state.storage.kv.put("mark_at", t + 30 * MIN);
      expect(await alarmAfter(open)).toBe(t + 40 * MIN);
      state.storage.kv.put("published", ["evt_1"]);
      expect(await alarmAfter(open)).toBe(t + 30 * MIN);
      await outbox.scheduleRedrive();
      expect(await alarmAfter(open)).toBe(t + 5_000);
    }));

  it("scheduleAlarm ignores the expiry once the verification is ready or over, and clears the alarm when nothing else is due", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const outbox = new Outbox(cx);
      const t = clock.now;
      await armAlarm(state.storage, [t + 60 * MIN]);
      for (const settled of [record(t + 60 * MIN, { readyAt: t }), record(t + 60 * MIN, { status: "completed" }), record(t + 60 * MIN, { status: "expired" })]) {
        await scheduleAlarm(state.storage, outbox, settled);
        expect(await state.storage.getAlarm()).toBeNull();
        await state.storage.put("sweep_at", t + 90 * MIN);
        await scheduleAlarm(state.storage, outbox, settled);
        expect(await state.storage.getAlarm()).toBe(t + 90 * MIN);
        await state.storage.delete("sweep_at");
      }
    }));
});
