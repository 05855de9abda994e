import { describe, expect, it } from "vitest";
import { callJson, seedTenant } from "../helpers/api";

describe("smoke", () => {
  it("creates and fetches a verification", async () => {
    const t = await seedTenant();
    const created = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 2 } });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^vfy_[0-9A-HJKMNP-TV-Z]{26}$/);
    const fetched = await callJson(`/v1/verifications/${created.body.id}`, { key: t.key });
    expect(fetched.status).toBe(200);
    expect(fetched.body.config.steps).toEqual([{ key: "capture_1", type: "image", description: "", min: 2, max: 2 }]);
  });
});
