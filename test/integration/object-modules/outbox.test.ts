import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { events } from "../../../src/db/schema";
import { Outbox, retryDelay } from "../../../src/durable-objects/verification/outbox";
import { db, seedTenant, type TestTenant } from "../../helpers/api";
import { inFreshObject, moduleContext, seedEvents, seedVerification } from "../../helpers/object-context";

/* The outbox (durable-objects/verification/outbox.ts) alone: the object's real storage and D1, a recording publisher. */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

/** When D1 says each event was dispatched (null: not yet), by id. */
async function dispatchedAt(ids: string[]): Promise<Record<string, number | null>> {
  const out: Record<string, number | null> = {};
  for (const id of ids) out[id] = (await db().select({ at: events.dispatchedAt }).from(events).where(eq(events.id, id)).get())!.at;
  return out;
}

describe("outbox", () => {
  it("journals the ids it published in the object's storage and leaves D1 unmarked; the mark is booked a minute after the first publish", () =>
    inFreshObject(async (state) => {
      const { cx, clock, publisher } = moduleContext(state.storage);
      const outbox = new Outbox(cx);
      const v = await seedVerification(t.id, clock.now);
      const [a, b] = await seedEvents(v, ["verification.capture.persisted", "verification.submitted"], clock.now);
      const firstAt = clock.now;

      await outbox.dispatch(v.id, [a!], false, { webhook: true });
      clock.now += 5_000;
      await outbox.dispatch(v.id, [b!], false, { webhook: true });

      expect(publisher.sent).toEqual([a!.id, b!.id]);
      expect(publisher.hints).toEqual([{ webhook: true }, { webhook: true }]);
      expect(outbox.published()).toEqual([a!.id, b!.id]);
      expect(state.storage.kv.get("published")).toEqual([a!.id, b!.id]);
      // A later publish does not move the mark: a capture every few seconds would postpone it forever.
      expect(outbox.markDue()).toBe(firstAt + 60_000);
      expect(await dispatchedAt([a!.id, b!.id])).toEqual({ [a!.id]: null, [b!.id]: null });
    }));

  it("a commit's batch marks the journal dispatched in D1, and the publish after it replaces the journal with what it sent", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const outbox = new Outbox(cx);
      const v = await seedVerification(t.id, clock.now);
      const [a, b] = await seedEvents(v, ["verification.capture.persisted", "verification.capture.persisted"], clock.now);
      expect(outbox.markStatements(env.DB, clock.now)).toEqual({ statements: [], marked: false });
      await outbox.dispatch(v.id, [a!], false, {});

      clock.now += 1_000;
      const marks = outbox.markStatements(env.DB, clock.now);
      expect(marks.marked).toBe(true);
      await env.DB.batch(marks.statements);
      await outbox.dispatch(v.id, [b!], marks.marked, {});

      expect(await dispatchedAt([a!.id, b!.id])).toEqual({ [a!.id]: clock.now, [b!.id]: null });
      expect(outbox.published()).toEqual([b!.id]);
    }));

  it("markPublished marks the journal dispatched at the clock's time, then forgets the journal and its mark time", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const outbox = new Outbox(cx);
      const v = await seedVerification(t.id, clock.now);
      const rows = await seedEvents(v, ["verification.capture.persisted", "verification.submitted"], clock.now);
      await outbox.dispatch(v.id, rows, false, {});

      clock.now += 60_000;
      await outbox.markPublished();

      expect(await dispatchedAt(rows.map((r) => r.id))).toEqual({ [rows[0]!.id]: clock.now, [rows[1]!.id]: clock.now });
      expect(outbox.published()).toEqual([]);
      expect(state.storage.kv.get("mark_at")).toBeUndefined();
      expect(outbox.markDue()).toBeUndefined();
    }));

  it("backs off 5 s doubling per re-drive, at most 10 minutes", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 30].map(retryDelay)).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000, 600_000, 600_000]);
  });

  it("a failed publish journals nothing and books a re-drive; each failed re-drive books the next one with a longer delay", () =>
    inFreshObject(async (state) => {
      const { cx, clock, publisher } = moduleContext(state.storage);
      const outbox = new Outbox(cx);
      const v = await seedVerification(t.id, clock.now);
      const [a] = await seedEvents(v, ["verification.capture.persisted"], clock.now);
      publisher.failing = true;

      await outbox.dispatch(v.id, [a!], false, {});
      expect(outbox.published()).toEqual([]);
      expect(outbox.markDue()).toBeUndefined();
      expect(await outbox.redriveDue()).toBe(clock.now + 5_000);

      const delays: number[] = [];
      for (let i = 0; i < 8; i += 1) {
        clock.now = (await outbox.redriveDue())!;
        await outbox.redrive(v.id, () => ({}));
        delays.push((await outbox.redriveDue())! - clock.now);
      }
      expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 600_000, 600_000]);
      expect(publisher.sent).toEqual([]);
      expect(await dispatchedAt([a!.id])).toEqual({ [a!.id]: null });
    }));

  it("a re-drive marks the journal first and sends only what D1 still holds unsent, once; then it stops", () =>
    inFreshObject(async (state) => {
      const { cx, clock, publisher } = moduleContext(state.storage);
      const outbox = new Outbox(cx);
      const v = await seedVerification(t.id, clock.now);
      const [sent, lost] = await seedEvents(v, ["verification.capture.persisted", "verification.submitted"], clock.now);
      await outbox.dispatch(v.id, [sent!], false, {});
      publisher.failing = true;
      await outbox.dispatch(v.id, [lost!], false, {});
      expect(outbox.published()).toEqual([sent!.id]);

      publisher.failing = false;
      clock.now = (await outbox.redriveDue())!;
      await outbox.redrive(v.id, () => ({ webhook: true }));

      expect(publisher.sent).toEqual([sent!.id, lost!.id]);
      expect(publisher.hints.at(-1)).toEqual({ webhook: true });
      expect(await dispatchedAt([sent!.id, lost!.id])).toEqual({ [sent!.id]: clock.now, [lost!.id]: clock.now });
      expect(await outbox.redriveDue()).toBeUndefined();
      expect(await state.storage.get("redrive_attempts")).toBeUndefined();

      clock.now += 60_000;
      await outbox.redrive(v.id, () => ({}));
      expect(publisher.sent).toEqual([sent!.id, lost!.id]);
    }));
});
