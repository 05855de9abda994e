import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callJson, createVerification, seedTenant } from "../helpers/api";

/**
 * A real D1 failure (the table a request needs is missing, as in an outage of the database) answers
 * 503 `storage_unavailable` with Retry-After, on a tenant route and on a capture-flow write that goes
 * through the verification's Durable Object; never 500, and `fields` never.
 */
describe("storage failures", () => {
  it("answer 503 storage_unavailable, from the Worker and through a Durable Object", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, {
      steps: [
        { key: "photo", type: "image", description: "", min: 1, max: 1 },
        { key: "note", type: "text", required: false, validation: { max_length: 20, format: "free_text" } },
      ],
    });
    await env.DB.exec("ALTER TABLE answers RENAME TO answers_unavailable");
    try {
      const read = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
      expect(read.status).toBe(503);
      expect(read.body).toEqual({ error: { code: "storage_unavailable", message: expect.stringMatching(/retry/i) } });
      expect(read.headers.get("Retry-After")).toBe("1");
      const answer = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value: "hello" } });
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe("storage_unavailable");
    } finally {
      await env.DB.exec("ALTER TABLE answers_unavailable RENAME TO answers");
    }
    expect((await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "note", value: "hello" } })).status).toBe(200);
  });

  it("no operation documents a code its status cannot carry, and service_unavailable is not a code", async () => {
    const doc = (await callJson("/v1/openapi.json")).body;
    expect(JSON.stringify(doc)).not.toContain("service_unavailable");
    const schemas = doc.components.schemas;
    const codesOf = (ref: string): string[] => {
      const schema = schemas[ref.replace("#/components/schemas/", "")];
      const variants = schema.anyOf ?? schema.oneOf ?? [schema];
      return variants.flatMap((s: any) => s.properties.error.properties.code.enum);
    };
    let checked = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
          const ref = response.content?.["application/json"]?.schema?.$ref;
          if (Number(status) < 400 || !ref || ref === "#/components/schemas/LinkTemplateListError") continue;
          expect(ref, `${method} ${path} ${status}`).toBe(`#/components/schemas/Error${status}`);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(codesOf("Error400").sort()).toEqual(["checksum_mismatch", "invalid_request", "unknown_step"]);
    expect(codesOf("Error409").sort()).toEqual(["already_finalized", "answer_limit", "idempotency_conflict", "invalid_state", "step_full", "upload_expired"]);
    expect(codesOf("Error410").sort()).toEqual(["expired", "redacted"]);
    expect(codesOf("Error503")).toEqual(["storage_unavailable"]);
    // Only invalid_request carries fields.
    const variants = schemas.Error400.anyOf ?? schemas.Error400.oneOf;
    for (const v of variants) expect("fields" in v.properties.error.properties).toBe(v.properties.error.properties.code.enum.includes("invalid_request"));
    expect("fields" in schemas.Error409.properties.error.properties).toBe(false);
  });
});
