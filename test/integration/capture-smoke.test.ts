import { describe, expect, it } from "vitest";
import { call, callJson, createVerification, seedTenant } from "../helpers/api";
import { sha256Hex, toBase64, uniqueJpeg } from "../helpers/images";

describe("capture flow smoke", () => {
  it("inline capture, key-reference capture, answer, progress", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, {
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 1 },
        { key: "docs", type: "upload", min: 0, max: 2 },
        { key: "plate", type: "text", required: true, validation: { max_length: 10, format: "alphanumeric_id" } },
      ],
    });
    const inline = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()) } });
    expect(inline.status).toBe(201);
    expect(inline.body.status).toBe("partially_captured");
    expect(inline.body.captures_count).toBe(1);

    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } });
    expect(minted.status).toBe(200);
    const bytes = uniqueJpeg();
    const put = await call(new URL(minted.body.upload_url).pathname, { method: "PUT", rawBody: bytes, headers: { "Content-Type": "image/jpeg" } });
    expect(put.status).toBe(200);
    await put.text();
    const keyed = await callJson(`/v1/verifications/${v.id}/captures`, {
      body: { image_key: minted.body.image_key, image_sha256: await sha256Hex(bytes), step_key: "docs" },
    });
    expect(keyed.status).toBe(201);
    expect(keyed.body.captures_count).toBe(2);

    const answered = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "plate", value: "AB-123" } });
    expect(answered.status).toBe(200);
    expect(answered.body.answers.plate.value).toBe("AB-123");
    expect(answered.body.record_seal.hash).toMatch(/^[0-9a-f]{64}$/);

    const progress = await call(`/v1/verifications/${v.id}/progress`, {
      body: { schema_version: 1, kind: "step_reached", step: "capturing", elapsed_ms: 1200 },
    });
    expect(progress.status).toBe(204);

    const events = await callJson(`/v1/verifications/${v.id}/events`, { key: t.key });
    expect(events.body.events.map((e: any) => e.event_name)).toEqual([
      "verification.created",
      "verification.capture.persisted",
      "verification.capture.persisted",
      "verification.answer.recorded",
    ]);
  });
});
