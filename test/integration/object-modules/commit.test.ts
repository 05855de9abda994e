import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { answers, auditLog, verifications } from "../../../src/db/schema";
import { eventRow, isVersionConflict, loadRecord, markDispatchedStatements, timeline, type VerificationRecord } from "../../../src/db/verifications";
import { commitBatch, noChange, withAudit, type Plan } from "../../../src/durable-objects/verification/commit";
import { errorResult } from "../../../src/lib/errors";
import type { AuditEntry } from "../../../src/model/audit/entry";
import { toState } from "../../../src/model/verification/record";
import { db, seedTenant, type TestTenant } from "../../helpers/api";
import { seedEvents, seedVerification } from "../../helpers/object-context";

/* The object's commit (durable-objects/verification/commit.ts) alone: one batch on the real D1, its version compare-and-swap first. */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

/** A plan that writes a column, an answer row and one event. */
function plan(record: VerificationRecord, now: number, after?: Plan["after"]): Plan {
  return {
    transition: { ...noChange(toState(record)), events: [{ name: "verification.test.committed" }] },
    columns: { narrative: "written by the commit" },
    statements: (d) => [d.insert(answers).values({ verificationId: record.row.id, stepKey: "plate", value: "B-XY 1", answeredAt: now, revisions: 1 })],
    ...(after ? { after } : {}),
  };
}

/** Builds and runs the commit of `p` from `record` in one D1 batch, the journal's `marked` ids marked in it. */
async function commit(record: VerificationRecord, p: Plan, now: number, marked: string[] = []) {
  const eventRows = p.transition.events.map((e) => eventRow(record.row.id, record.row.tenantId, e, now));
  const batch = commitBatch({ db: db(), d1: env.DB, state: toState(record), plan: p, eventRows, marks: markDispatchedStatements(env.DB, marked, now), now });
  return { batch, eventRows, after: batch.after(record, await env.DB.batch(batch.statements)) };
}

describe("the commit", () => {
  it("writes the version, the plan's columns and rows, its events and the journal's marks in one batch, and reads the record back in it", async () => {
    const now = Date.now();
    const v = await seedVerification(t.id, now);
    const [published] = await seedEvents(v, ["verification.capture.persisted"], now);
    const before = (await loadRecord(db(), v.id))!;

    const { after, eventRows } = await commit(before, plan(before, now + 1), now + 1, [published!.id]);

    const stored = (await loadRecord(db(), v.id))!;
    expect(after).toEqual(stored);
    expect(stored.row).toMatchObject({ version: 2, updatedAt: now + 1, narrative: "written by the commit" });
    expect(stored.answers.map((a) => a.value)).toEqual(["B-XY 1"]);
    expect((await timeline(db(), v.id)).map((e) => [e.id, e.dispatchedAt])).toEqual([
      [published!.id, now + 1],
      [eventRows[0]!.id, null],
    ]);
  });

  it("a plan that knows the record after reads nothing back, and what it computes is what D1 holds", async () => {
    const now = Date.now();
    const v = await seedVerification(t.id, now);
    const before = (await loadRecord(db(), v.id))!;
    const knows: Plan["after"] = (record, row) => ({ ...record, row, answers: [{ verificationId: v.id, stepKey: "plate", value: "B-XY 1", answeredAt: now, revisions: 1 }] });

    const { batch, after } = await commit(before, plan(before, now, knows), now);

    // The CAS update, the answer and the event: no read-back statements.
    expect(batch.statements).toHaveLength(3);
    expect(after).toEqual(await loadRecord(db(), v.id));
  });

  it("a commit from a stale read loses the compare-and-swap and writes nothing of its batch", async () => {
    const now = Date.now();
    const v = await seedVerification(t.id, now);
    const [published] = await seedEvents(v, ["verification.capture.persisted"], now);
    const stale = (await loadRecord(db(), v.id))!;
    await db().update(verifications).set({ version: 2, updatedAt: now }).where(eq(verifications.id, v.id));

    const lost = await commit(stale, plan(stale, now), now, [published!.id]).catch((err: unknown) => err);

    expect(isVersionConflict(lost)).toBe(true);
    const stored = (await loadRecord(db(), v.id))!;
    expect(stored.row).toMatchObject({ version: 2, narrative: null });
    expect(stored.answers).toEqual([]);
    expect((await timeline(db(), v.id)).map((e) => [e.id, e.dispatchedAt])).toEqual([[published!.id, null]]);
  });

  it("withAudit records the operator's entry in the decision's own commit, and nothing for a refusal or a no-op", async () => {
    const now = Date.now();
    const v = await seedVerification(t.id, now);
    const record = (await loadRecord(db(), v.id))!;
    const state = toState(record);
    const entry: AuditEntry = {
      tenantId: t.id,
      action: "verification.finalized",
      actor: { type: "api_key", id: "key_audit", label: "ops" },
      target: { type: "verification", id: v.id },
      client: { ip: null, userAgent: null },
    };
    const audited = await withAudit(() => plan(record, now), entry)(state, record, now);
    if ("ok" in audited) throw new Error("refused");
    await commit(record, audited, now);
    const rows = await db().select().from(auditLog).where(eq(auditLog.targetId, v.id));
    expect(rows.map((r) => [r.action, r.actorId, r.occurredAt])).toEqual([["verification.finalized", "key_audit", now]]);
    expect((await loadRecord(db(), v.id))!.answers).toHaveLength(1);

    const refusal = errorResult("invalid_state", "not now");
    expect(await withAudit(() => refusal, entry)(state, record, now)).toBe(refusal);
    const noop: Plan = { transition: noChange(state), noop: true };
    expect(await withAudit(() => noop, entry)(state, record, now)).toBe(noop);
  });
});
