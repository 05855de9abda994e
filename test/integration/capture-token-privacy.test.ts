import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callJson, createVerification, seedTenant, withVision } from "../helpers/api";
import { toBase64, uniqueJpeg } from "../helpers/images";

/** The tenant-private config a capture link must never reveal (CONTRACT, last section). */
const PRIVATE_FIELDS = [
  "context",
  "expected_location",
  "expected_object",
  "signals_required",
  "condition_aspects",
  "metadata",
  "webhook_url",
  "notify_email",
] as const;

const privateConfig = {
  signals_required: ["screen", "context"],
  context: { kind: "claim", summary: "PRIVATE-SUMMARY", attributes: { policy: "PRIVATE-POLICY" } },
  expected_location: "PRIVATE-LOCATION 1 Main St",
  expected_object: "PRIVATE-OBJECT",
  condition_aspects: ["PRIVATE-ASPECT"],
  metadata: { ref: "PRIVATE-META" },
  webhook_url: `${env.FAKES_URL}/webhooks/PRIVATE-HOOK`,
  notify_email: "private-ops@example.com",
};

/** Every object key anywhere in a JSON value. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysOf(item, into);
  else if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      into.add(key);
      keysOf(inner, into);
    }
  }
  return into;
}

function expectNothingPrivate(body: unknown, what: string): void {
  const keys = keysOf(body);
  for (const field of PRIVATE_FIELDS) expect(keys.has(field), `${what} has ${field}`).toBe(false);
  expect(JSON.stringify(body), what).not.toMatch(/PRIVATE|private-ops/);
}

describe("capture-token responses show only what the capture page needs", () => {
  it("GET /v1/verify and the Verification of captures, answers and submit carry no tenant-private config", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, {
      steps: [
        { key: "photo", type: "image", description: "The front of the car", min: 1, max: 2 },
        { key: "plate", type: "text", required: true, validation: { max_length: 30, format: "free_text" } },
      ],
      mode: "verification",
      ...privateConfig,
    }, undefined, { env: withVision() });
    // The tenant itself sees all of it.
    expect(v.config).toMatchObject(privateConfig);

    const view = await callJson(`/v1/verify/${v.id}`);
    expect(view.status).toBe(200);
    expectNothingPrivate(view.body, "GET /v1/verify");

    const captured = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()), step_key: "photo" } });
    expect(captured.status).toBe(201);
    expectNothingPrivate(captured.body, "POST captures");
    expect(captured.body.config).toEqual({
      max_captures: 2,
      steps: [
        { key: "photo", type: "image", description: "The front of the car", min: 1, max: 2 },
        { key: "plate", type: "text", required: true, validation: { max_length: 30, format: "free_text" } },
      ],
      mode: "verification",
    });
    expect(captured.body.captures).toEqual([{ id: expect.stringMatching(/^cap_/), step_key: "photo", created_at: expect.any(String) }]);

    const answered = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "plate", value: "AB-123" } });
    expect(answered.status).toBe(200);
    expectNothingPrivate(answered.body, "POST answers");
    // The end user's own answers stay (spec).
    expect(answered.body.answers.plate.value).toBe("AB-123");

    const submitted = await callJson(`/v1/verifications/${v.id}/submit`, { method: "POST" });
    expect(submitted.status).toBe(200);
    expectNothingPrivate(submitted.body, "POST submit");
    expect(Object.keys(submitted.body).sort()).toEqual(
      ["answers", "capture_url", "captures", "captures_count", "config", "created_at", "expires_at", "id", "record_seal", "status", "submitted_at"].sort(),
    );
    expect(submitted.body).not.toHaveProperty("verdict");
  });

  it("the OpenAPI document describes those responses with the end user's schema", async () => {
    const doc = (await callJson("/v1/openapi.json")).body;
    for (const [path, status] of [
      ["/v1/verifications/{token}/captures", "201"],
      ["/v1/verifications/{token}/answers", "200"],
      ["/v1/verifications/{token}/submit", "200"],
    ] as const) {
      expect(doc.paths[path].post.responses[status].content["application/json"].schema.$ref, path).toBe("#/components/schemas/CaptureVerification");
    }
    const config = doc.components.schemas.CaptureConfig;
    expect(Object.keys(config.properties).sort()).toEqual(["max_captures", "mode", "steps"]);
    for (const field of PRIVATE_FIELDS) expect(Object.keys(doc.components.schemas.CaptureVerification.properties)).not.toContain(field);
  });
});
