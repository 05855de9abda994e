import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, createVerification, seedTenant, type TestTenant } from "../helpers/api";
import { inlineCapture, keyedCapture } from "../helpers/capture";
import { persisted } from "../helpers/snapshot";

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

function tally(statuses: number[]) {
  return statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
}

describe("captures racing for the last slots", () => {
  it("30 simultaneous captures into a step of 5: exactly 5 accepted, 25 step_full, no orphaned bytes", async () => {
    const v = await createVerification(t.key, { steps: [{ key: "photos", type: "image", description: "d", min: 1, max: 5 }] });
    const results = await Promise.all(Array.from({ length: 30 }, () => inlineCapture(v.id, { step_key: "photos" })));
    expect(tally(results.map((r) => r.status))).toEqual({ 201: 5, 409: 25 });
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.code).toBe("step_full");
    const p = await persisted(v.id);
    expect(p.row.capturesCount).toBe(5);
    expect(p.captures).toHaveLength(5);
    expect(p.captures.map((c) => c.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(p.objectKeys).toEqual(p.captures.map((c) => c.imageKey).sort());
    expect(p.events.filter((e) => e.name === "verification.capture.persisted")).toHaveLength(5);
  });

  it("30 simultaneous keyless captures spread over several image steps fill each to its max", async () => {
    const v = await createVerification(t.key, {
      steps: [
        { key: "a", type: "image", description: "", min: 0, max: 2 },
        { key: "b", type: "image", description: "", min: 0, max: 3 },
        { key: "c", type: "image", description: "", min: 0, max: 1 },
      ],
    });
    const results = await Promise.all(Array.from({ length: 30 }, () => inlineCapture(v.id)));
    expect(tally(results.map((r) => r.status))).toEqual({ 201: 6, 409: 24 });
    const p = await persisted(v.id);
    const perStep = p.captures.reduce<Record<string, number>>((acc, c) => ({ ...acc, [c.stepKey]: (acc[c.stepKey] ?? 0) + 1 }), {});
    expect(perStep).toEqual({ a: 2, b: 3, c: 1 });
    expect(p.row.capturesCount).toBe(6);
    expect(p.objectKeys).toEqual(p.captures.map((c) => c.imageKey).sort());
    expect(p.events.filter((e) => e.name === "verification.ready")).toHaveLength(1);
  });

  it("key-reference captures racing: exactly max accepted; refused uploads stay unreferenced for the sweep", async () => {
    const v = await createVerification(t.key, { steps: [{ key: "photos", type: "image", description: "d", min: 1, max: 3 }] });
    // As many as the verification may hold open upload URLs at once (twice its 3 free slots).
    const results = await Promise.all(Array.from({ length: 6 }, () => keyedCapture(v.id, { step_key: "photos" })));
    expect(tally(results.map((r) => r.res.status))).toEqual({ 201: 3, 409: 3 });
    const p = await persisted(v.id);
    expect(p.captures).toHaveLength(3);
    expect(new Set(p.captures.map((c) => c.id))).toEqual(new Set(results.filter((r) => r.res.status === 201).map((r) => r.upload.capture_id)));
  });

  it("answers and progress racing captures lose no update", async () => {
    const v = await createVerification(t.key, {
      steps: [
        { key: "photos", type: "image", description: "", min: 1, max: 4 },
        ...["q1", "q2", "q3", "q4", "q5"].map((key) => ({ key, type: "text", required: false, validation: { max_length: 20, format: "free_text" } })),
      ],
    });
    const work = [
      ...Array.from({ length: 4 }, () => inlineCapture(v.id)),
      ...["q1", "q2", "q3", "q4", "q5"].map((key) => callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: key, value: `answer ${key}` } })),
      ...Array.from({ length: 5 }, (_, i) =>
        call(`/v1/verifications/${v.id}/progress`, { body: { schema_version: 1, kind: "step_reached", step: "capturing", elapsed_ms: i, step_index: i } }).then(async (r) => ({
          status: r.status,
          body: await r.text(),
        })),
      ),
    ];
    const results = await Promise.all(work);
    expect(results.map((r) => r.status).sort()).toEqual([...Array(4).fill(201), ...Array(5).fill(200), ...Array(5).fill(204)].sort());
    const p = await persisted(v.id);
    expect(p.captures).toHaveLength(4);
    expect(p.answers.map((a) => a.value).sort()).toEqual(["answer q1", "answer q2", "answer q3", "answer q4", "answer q5"]);
    expect(p.row.progress).toMatchObject({ schema_version: 1, kind: "step_reached" });
    // Every accepted mutation bumped the version exactly once: 1 (created) + 14.
    expect(p.row.version).toBe(15);
    expect(p.row.sealHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("re-submitting a persisted image_key is an idempotent retry that consumes no capacity", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const { upload, res } = await keyedCapture(v.id);
    expect(res.status).toBe(201);
    const retries = await Promise.all(
      Array.from({ length: 3 }, () => callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: upload.image_key, image_sha256: upload.sha256 } })),
    );
    for (const r of retries) {
      expect(r.status).toBe(201);
      expect(r.body.captures_count).toBe(1);
    }
    const p = await persisted(v.id);
    expect(p.captures).toHaveLength(1);
    expect(p.events.filter((e) => e.name === "verification.capture.persisted")).toHaveLength(1);
  });

  it("a retry that names another step is refused, not answered as if it had filled that step", async () => {
    const v = await createVerification(t.key, {
      steps: [
        { key: "a", type: "image", description: "A", min: 1, max: 1 },
        { key: "b", type: "image", description: "B", min: 1, max: 1 },
        { key: "note", type: "text", required: false, validation: { max_length: 20, format: "free_text" } },
      ],
    });
    const { upload, res } = await keyedCapture(v.id, { step_key: "a" });
    expect(res.status).toBe(201);
    const retry = (stepKey?: string) =>
      callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: upload.image_key, image_sha256: upload.sha256, ...(stepKey ? { step_key: stepKey } : {}) } });
    expect((await retry("a")).status).toBe(201);
    expect((await retry()).status).toBe(201);
    const other = await retry("b");
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("idempotency_conflict");
    for (const key of ["nope", "note"]) {
      const unknown = await retry(key);
      expect(unknown.status, key).toBe(400);
      expect(unknown.body.error.code).toBe("unknown_step");
    }
    const p = await persisted(v.id);
    expect(p.captures.map((c) => c.stepKey)).toEqual(["a"]);
  });
});
