import { beforeAll, describe, expect, it } from "vitest";
import { callJson, createVerification, seedTenant, withVision, type TestTenant } from "../helpers/api";
import { inlineCapture, upload } from "../helpers/capture";
import { pngSignatureBytes } from "../helpers/images";
import { persisted } from "../helpers/snapshot";

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

/** RFC 8785 for the values a seal covers (strings, integers, booleans, objects, arrays), written independently of the service. */
function jcs(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${jcs(v)}`).join(",")}}`;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** What a tenant does: recompute the seal from a fetched Verification alone. */
async function recompute(v: any): Promise<string> {
  const answers = Object.fromEntries(Object.entries(v.answers).map(([k, a]: [string, any]) => [k, { value: a.value, answered_at: a.answered_at }]));
  return sha256(jcs({ record: { id: v.id, created_at: v.created_at, config: v.config }, answers }));
}

const steps = [
  { key: "photo", type: "image", description: "Photo", min: 1, max: 1 },
  { key: "vin", type: "text", required: true, validation: { min_length: 3, max_length: 17, format: "alphanumeric_id" } },
  { key: "odometer", type: "text", required: false, validation: { max_length: 7, format: "numeric_id" } },
  { key: "note", type: "text", required: false, validation: { max_length: 200, format: "free_text" } },
];

describe("answers and the record seal", () => {
  it("the seal covers record and answers, a tenant can recompute it, and it changes on every answer", async () => {
    // A context (cross-checked by a vision provider) in the sealed config.
    const v = await createVerification(t.key, { steps, metadata: { ref: "R-1" }, context: { kind: "car", summary: "Blue hatchback" } }, undefined, { env: withVision() });
    expect(v.record_seal).toBeUndefined();
    const first = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "vin", value: "WVW-ZZZ1JZ3W386752" .slice(0, 17) } });
    expect(first.status).toBe(200);
    const fetched1 = (await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body;
    expect(fetched1.record_seal).toEqual({ algorithm: "sha256", hash: await recompute(fetched1), covers: ["record", "answers"], answers_provenance: "user_declared" });

    await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value: "Scratch on the \"left\" door — ünïcödé ✓" } });
    const fetched2 = (await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body;
    expect(fetched2.record_seal.hash).toBe(await recompute(fetched2));
    expect(fetched2.record_seal.hash).not.toBe(fetched1.record_seal.hash);

    const overwrite = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "vin", value: "ABC123" } });
    expect(overwrite.body.answers.vin.value).toBe("ABC123");
    const fetched3 = (await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body;
    expect(fetched3.record_seal.hash).toBe(await recompute(fetched3));
    expect(Object.keys(fetched3.answers).sort()).toEqual(["note", "vin"]);
  });

  // Outside probe of 2026-12-06: a step keyed like a property every object has (`toString`) read as
  // answered before any answer, and answering it was a 500 (the lookup found Object.prototype's).
  it("step keys named like an object's own properties (toString, constructor, __proto__) are answered, sealed and required like any other", async () => {
    const keyed = ["toString", "constructor", "__proto__"].map((key) => ({ key, type: "text", required: true, validation: { max_length: 20, format: "free_text" } }));
    const v = await createVerification(t.key, { steps: [{ key: "photo", type: "image", description: "Photo", min: 0, max: 1 }, ...keyed], seal: true });
    const view = await callJson(`/v1/verify/${v.id}`);
    expect(view.body.ready_for_submit).toBe(false);
    expect(view.body.steps.filter((s: { type: string }) => s.type === "text").map((s: { answered: boolean }) => s.answered)).toEqual([false, false, false]);
    expect((await callJson(`/v1/verifications/${v.id}/submit`, { method: "POST" })).status).toBe(409);
    for (const [i, { key }] of keyed.entries()) {
      const answered = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: key, value: `A-${i}` } });
      expect(answered.status, key).toBe(200);
      const again = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: key, value: `B-${i}` } });
      expect(again.status, key).toBe(200);
    }
    const fetched = (await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body;
    expect(Object.fromEntries(Object.entries(fetched.answers).map(([k, a]: [string, any]) => [k, a.value]))).toEqual(JSON.parse('{"toString":"B-0","constructor":"B-1","__proto__":"B-2"}'));
    expect(fetched.record_seal.hash).toBe(await recompute(fetched));
    expect((await callJson(`/v1/verify/${v.id}`)).body.ready_for_submit).toBe(true);
  });

  it("the timeline a text step can grow is bounded: the same value adds nothing, and a step's answer changes at most 10 times", async () => {
    const v = await createVerification(t.key, { steps });
    const answer = (value: string) => callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value } });
    expect((await answer("first")).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await answer("first")).status).toBe(200);
    for (let i = 2; i <= 10; i++) expect((await answer(`change ${i}`)).status).toBe(200);
    const refused = await answer("change 11");
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("answer_limit");
    // The answer held is the tenth; a retry of it is still answered.
    const retry = await answer("change 10");
    expect(retry.status).toBe(200);
    expect(retry.body.answers.note.value).toBe("change 10");
    const recorded = (await persisted(v.id)).events.filter((e) => e.name === "verification.answer.recorded");
    expect(recorded.map((e) => (e.payload as { revision: number }).revision)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("no seal when sealing is off", async () => {
    const v = await createVerification(t.key, { steps, seal: false });
    const res = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "vin", value: "ABC123" } });
    expect(res.body.answers.vin.value).toBe("ABC123");
    expect(res.body.record_seal).toBeUndefined();
    expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.record_seal).toBeUndefined();
  });

  it("format rules: numeric_id digits only, alphanumeric_id letters digits hyphens, min_length", async () => {
    const v = await createVerification(t.key, { steps });
    const answer = (step_key: string, value: string) => callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key, value } });
    expect((await answer("odometer", "12345")).status).toBe(200);
    expect((await answer("odometer", "12 345")).status).toBe(400);
    expect((await answer("odometer", "12345678")).status).toBe(400);
    expect((await answer("vin", "AB")).status).toBe(400);
    expect((await answer("vin", "AB_C")).status).toBe(400);
    expect((await answer("vin", "AB-C")).status).toBe(200);
  });

  it("alphanumeric_id and numeric_id are ASCII: a non-ASCII letter or digit is refused (docs/api.md)", async () => {
    const v = await createVerification(t.key, { steps });
    const answer = (step_key: string, value: string) => callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key, value } });
    // Latin letters with diacritics, a Cyrillic А that looks Latin, a fullwidth letter, Arabic-Indic and fullwidth digits.
    for (const value of ["ÄBC-123", "SÃO-1", "\u0410BC-123", "\uFF21BC-123", "AB\u00AD123"]) {
      const refused = await answer("vin", value);
      expect(refused.status, value).toBe(400);
      expect(refused.body.error.code).toBe("invalid_request");
      expect(Object.keys(refused.body.error.fields)).toEqual(["value"]);
    }
    for (const value of ["\u0661\u0662\u0663", "\uFF11\uFF12\uFF13", "１２３"]) {
      const refused = await answer("odometer", value);
      expect(refused.status, value).toBe(400);
      expect(Object.keys(refused.body.error.fields)).toEqual(["value"]);
    }
    expect((await answer("vin", "ABC-123")).status).toBe(200);
  });

  it("free text keeps lines and tabs but refuses other control characters and half a surrogate pair, storing nothing", async () => {
    const v = await createVerification(t.key, { steps });
    const answer = (value: string) => callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value } });
    for (const value of ["dent\u0000", "dent \u001b[31mred", "dent\u0085", "dent\u2029more", "dent \udc00"]) {
      const refused = await answer(value);
      expect(refused.status, JSON.stringify(value)).toBe(400);
      expect(refused.body.error.code).toBe("invalid_request");
      expect(Object.keys(refused.body.error.fields)).toEqual(["value"]);
    }
    expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.answers?.note).toBeUndefined();
    const kept = "Dent on the left door.\r\nSecond line,\ttabbed — 😀";
    expect((await answer(kept)).status).toBe(200);
    expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.answers.note.value).toBe(kept);
  });

  it("completion readiness: the quota plus the required answer, or submit", async () => {
    const v = await createVerification(t.key, { steps });
    await inlineCapture(v.id);
    expect((await persisted(v.id)).row.readyAt).toBeNull();
    await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "vin", value: "ABC123" } });
    const p = await persisted(v.id);
    expect(p.row.readyAt).not.toBeNull();
    expect(p.events.map((e) => e.name)).toContain("verification.ready");

    const s = await createVerification(t.key, { steps: [{ key: "photos", type: "image", description: "", min: 1, max: 3 }] });
    await inlineCapture(s.id);
    const submitted = await callJson(`/v1/verifications/${s.id}/submit`, { method: "POST" });
    expect(submitted.status).toBe(200);
    expect(submitted.body.submitted_at).toBeDefined();
    const again = await callJson(`/v1/verifications/${s.id}/submit`, { method: "POST" });
    expect(again.status).toBe(200);
    const late = await inlineCapture(s.id);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("invalid_state");
    const sp = await persisted(s.id);
    expect(sp.events.filter((e) => e.name === "verification.ready")).toHaveLength(1);
    expect((await callJson(`/v1/verify/${s.id}`)).body.submitted).toBe(true);
  });
});

describe("the audit timeline", () => {
  it("is chronological, carries no answer values, and is 404 for unknown ids", async () => {
    const v = await createVerification(t.key, { steps });
    await inlineCapture(v.id);
    await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value: "PRIVATE-ANSWER-TEXT" } });
    await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "vin", value: "PRIVATE1" } });
    const res = await callJson(`/v1/verifications/${v.id}/events`, { key: t.key });
    expect(res.status).toBe(200);
    const events = res.body.events;
    expect(events.map((e: any) => e.event_name)).toEqual([
      "verification.created",
      "verification.capture.persisted",
      "verification.answer.recorded",
      "verification.answer.recorded",
      "verification.ready",
    ]);
    for (const e of events) {
      expect(e.event_id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(Number.isNaN(Date.parse(e.occurred_at))).toBe(false);
    }
    const times = events.map((e: any) => Date.parse(e.occurred_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(events[1].payload).toMatchObject({ step_key: "photo", step_type: "image", seq: 1 });
    expect(JSON.stringify(events)).not.toContain("PRIVATE");
    expect((await callJson("/v1/verifications/vfy_01M82BB9AB26PZRT0D1PRV3Y8W/events", { key: t.key })).status).toBe(404);
  });

  it("is paginated: pages of `limit` follow one another by next_cursor, and a cursor works for its own verification only", async () => {
    const v = await createVerification(t.key, { steps });
    for (let i = 1; i <= 6; i++) await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value: `note ${i}` } });
    const whole = (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body;
    expect(whole.events).toHaveLength(7);
    expect(whole.next_cursor).toBeUndefined();

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await callJson(`/v1/verifications/${v.id}/events?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: t.key });
      expect(page.status).toBe(200);
      expect(page.body.events.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.events.map((e: any) => e.event_id));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(whole.events.map((e: any) => e.event_id));

    const other = await createVerification(t.key, { steps });
    const first = (await callJson(`/v1/verifications/${v.id}/events?limit=2`, { key: t.key })).body.next_cursor as string;
    const foreign = await callJson(`/v1/verifications/${other.id}/events?cursor=${encodeURIComponent(first)}`, { key: t.key });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.fields).toHaveProperty("cursor");
    expect((await callJson(`/v1/verifications/${v.id}/events?limit=101`, { key: t.key })).status).toBe(400);
  });
});

describe("optional capture fields", () => {
  it("stores the device location, client time, surface and a forensic buffer upload", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    const depth = await upload(v.id, pngSignatureBytes(64), "image/png", "forensic_buffer");
    // Minted while the verification can still take a capture (a full one mints no more URLs).
    const notDepth = await upload(v.id, pngSignatureBytes(64), "image/png");
    const res = await inlineCapture(v.id, {
      location: { lat: 48.8584, lng: 2.2945, accuracy_m: 12.5, is_mock: false },
      client_captured_at: "2026-11-22T10:00:00.000Z",
      surface: "rear_camera",
      forensic_buffer_key: depth.image_key,
    });
    expect(res.status).toBe(201);
    const [c] = (await persisted(v.id)).captures;
    expect(c).toMatchObject({
      location: { lat: 48.8584, lng: 2.2945, accuracy_m: 12.5, is_mock: false },
      clientCapturedAt: Date.parse("2026-11-22T10:00:00.000Z"),
      surface: "rear_camera",
      forensicBufferKey: depth.image_key,
    });
    const bad = await inlineCapture(v.id, { forensic_buffer_key: notDepth.image_key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields).toHaveProperty("forensic_buffer_key");
  });
});
