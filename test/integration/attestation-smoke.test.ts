import { describe, expect, it } from "vitest";
import { callJson, createVerification, seedTenant } from "../helpers/api";
import { toBase64, uniqueJpeg } from "../helpers/images";

describe("attestation through the loopback siteverify fake", () => {
  it("stores pass and fail verdicts; the capture is persisted either way", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 2 });
    for (const token of ["pass-1", "fail-1"]) {
      const res = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()), attestation_token: token } });
      expect(res.status).toBe(201);
    }
    const fetched = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
    expect(fetched.body.captures.map((c: any) => c.attestation.verdict)).toEqual(["pass", "fail"]);
  });
});
