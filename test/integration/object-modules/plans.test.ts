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

  it("the case analysis is written after finalize, replaced only by one that read a capture it did not, and never onto a redacted verification", () =>
    inFreshObject(async (state) => {
      const { cx, clock } = moduleContext(state.storage);
      const read = (...ids: string[]) => ({ analysis: ids.map((capture_id) => ({ capture_id, ai: "low", screen: false })) });
      const notFinalized = await seedVerification(t.id, clock.now, { status: "completed" });
      expect(await commitSteps(cx, notFinalized.id).steps.apply(caseAnalysisPlan(read("cap_1"), ["cap_1"]))).toMatchObject({ ok: false, error: { code: "invalid_state" } });

      const finalized = await seedVerification(t.id, clock.now, { status: "completed", finalizedAt: clock.now, narrative: "n" });
      const { steps } = commitSteps(cx, finalized.id);
      expect(await steps.apply(caseAnalysisPlan(read("cap_1"), ["cap_1"]))).toMatchObject({ ok: true, record: { row: { version: 2, caseAnalysis: read("cap_1") } } });
      // The same captures again (a redelivery, a racing run): nothing changes.
      expect(await steps.apply(caseAnalysisPlan({ ...read("cap_1"), text_analysis: "second" }, ["cap_1"]))).toMatchObject({ ok: true, record: { row: { version: 2, caseAnalysis: read("cap_1") } } });
      // A capture received after finalize: the analysis that read it replaces the one that did not.
      expect(await steps.apply(caseAnalysisPlan(read("cap_1", "cap_2"), ["cap_1", "cap_2"]))).toMatchObject({ ok: true, record: { row: { version: 3, caseAnalysis: read("cap_1", "cap_2") } } });
      // A slower run over the older set, finishing last, does not bring it back.
      expect(await steps.apply(caseAnalysisPlan(read("cap_1"), ["cap_1"]))).toMatchObject({ ok: true, record: { row: { version: 3, caseAnalysis: read("cap_1", "cap_2") } } });

      const redacted = await seedVerification(t.id, clock.now, { status: "completed", finalizedAt: clock.now, redactedAt: clock.now });
      expect(await commitSteps(cx, redacted.id).steps.apply(caseAnalysisPlan(read("cap_1"), ["cap_1"]))).toMatchObject({ ok: false, error: { code: "redacted" } });
    }));
});
