import { beforeAll, describe, expect, it } from "vitest";
import { loadRecord } from "../../../src/db/verifications";
import { caseAnalysisPlan, capturePlan } from "../../../src/durable-objects/verification/plans";
import { newId } from "../../../src/lib/ids";
import { verificationPrefix } from "../../../src/storage/evidence";
import { db, seedTenant, type TestTenant } from "../../helpers/api";
import { commitSteps, inFreshObject, moduleContext, seedVerification } from "../../helpers/object-context";

/*
 * The commands' plans (durable-objects/verification/plans.ts) alone, committed by commit.ts on the
 * real D1 (commitSteps): what each plan adds to the model's decision. The decisions themselves are
 * the model's (test/unit/model/state-machine.test.ts).
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("the commands' plans", () => {
  it("a capture's record after its commit is computed, not read back, and equals what D1 holds; the same image again is a replay that writes nothing", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const v = await seedVerification(t.id, clock.now);
      const { steps } = commitSteps(cx, v.id);
      const input = { captureId: newId("capture"), imageKey: `${verificationPrefix(v.id)}front`, mediaType: "image/jpeg" as const, sizeBytes: 10, sha256: "a".repeat(64) };

      const first = await steps.apply(capturePlan(v.id, input));
      expect(first.ok && first.record).toEqual(await loadRecord(db(), v.id));
      expect(first.ok && first.record.captures.map((c) => [c.seq, c.imageKey])).toEqual([[1, input.imageKey]]);

      clock.now += 1_000;
      const again = await steps.apply(capturePlan(v.id, { ...input, captureId: newId("capture") }));
      expect(again).toMatchObject({ ok: true, replayed: true });
      expect((await loadRecord(db(), v.id))!.row.version).toBe(2);
    }));

  it("the case analysis is written once after finalize, and never onto a redacted verification", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const notFinalized = await seedVerification(t.id, clock.now, { status: "completed" });
      expect(await commitSteps(cx, notFinalized.id).steps.apply(caseAnalysisPlan({ summary: "x" }))).toMatchObject({ ok: false, error: { code: "invalid_state" } });

      const finalized = await seedVerification(t.id, clock.now, { status: "completed", finalizedAt: clock.now, narrative: "n" });
      const { steps } = commitSteps(cx, finalized.id);
      expect(await steps.apply(caseAnalysisPlan({ summary: "first" }))).toMatchObject({ ok: true, record: { row: { version: 2, caseAnalysis: { summary: "first" } } } });
      expect(await steps.apply(caseAnalysisPlan({ summary: "second" }))).toMatchObject({ ok: true, record: { row: { version: 2, caseAnalysis: { summary: "first" } } } });

      const redacted = await seedVerification(t.id, clock.now, { status: "completed", finalizedAt: clock.now, redactedAt: clock.now });
      expect(await commitSteps(cx, redacted.id).steps.apply(caseAnalysisPlan({ summary: "late" }))).toMatchObject({ ok: false, error: { code: "redacted" } });
    }));
});
