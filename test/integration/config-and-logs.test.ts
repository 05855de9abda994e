import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { callJson, createVerification, seedTenant } from "../helpers/api";
import { callWithEnv } from "../helpers/app";
import { toBase64, uniqueJpeg } from "../helpers/images";

const LONG = "x".repeat(40);

function errorLines(spy: { mock: { calls: unknown[][] } }): string[] {
  return spy.mock.calls.map((args) => args.map(String).join(" "));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("required secrets are checked before the Worker does anything", () => {
  it.each([
    ["SESSION_SECRET missing", { SESSION_SECRET: undefined }, /SESSION_SECRET is missing/],
    ["SIGNING_SECRET missing", { SIGNING_SECRET: undefined }, /SIGNING_SECRET is missing/],
    ["SESSION_SECRET too short", { SESSION_SECRET: "short-secret" }, /SESSION_SECRET is shorter than 32 characters/],
    ["SIGNING_SECRET too short", { SIGNING_SECRET: "x".repeat(31) }, /SIGNING_SECRET is shorter than 32 characters/],
    ["both secrets equal", { SESSION_SECRET: LONG, SIGNING_SECRET: LONG }, /SESSION_SECRET must differ from SIGNING_SECRET/],
    ["CERTIFICATE_SIGNING_KEY missing", { CERTIFICATE_SIGNING_KEY: undefined }, /CERTIFICATE_SIGNING_KEY is missing/],
    ["CERTIFICATE_SIGNING_KEY not an Ed25519 key", { CERTIFICATE_SIGNING_KEY: btoa("x".repeat(48)) }, /CERTIFICATE_SIGNING_KEY is not an Ed25519 private key/],
    ["C2PA_SIGNING_KEY not a P-256 key", { C2PA_SIGNING_KEY: btoa("x".repeat(67)) }, /C2PA_SIGNING_KEY is not an ECDSA P-256 private key/],
    ["C2PA_SIGNING_KEY an Ed25519 key", { C2PA_SIGNING_KEY: env.CERTIFICATE_SIGNING_KEY }, /C2PA_SIGNING_KEY is not an ECDSA P-256 private key/],
    ["C2PA_SIGNING_CERTS not PEM", { C2PA_SIGNING_CERTS: btoa("x".repeat(300)) }, /C2PA_SIGNING_CERTS is not a PEM certificate chain/],
    ["C2PA_SIGNING_CERTS a PEM block that is no DER", { C2PA_SIGNING_CERTS: `-----BEGIN CERTIFICATE-----\n${btoa("x".repeat(300))}\n-----END CERTIFICATE-----` }, /C2PA_SIGNING_CERTS is not a PEM certificate chain/],
    ["C2PA_SIGNING_KEY without its certificates", { C2PA_SIGNING_CERTS: undefined }, /C2PA_SIGNING_KEY is set without C2PA_SIGNING_CERTS/],
    ["a signing override too short", { SIGNING_SECRET_CURSORS: "x".repeat(31) }, /SIGNING_SECRET_CURSORS is shorter than 32 characters/],
    ["a signing override equal to the session key", { SESSION_SECRET: LONG, SIGNING_SECRET_EVIDENCE_URLS: LONG }, /SIGNING_SECRET_EVIDENCE_URLS must differ from SESSION_SECRET/],
  ])("%s: 500 internal_error and one log line naming it", async (_name, overrides, problem) => {
    const t = await seedTenant();
    const v = await createVerification(t.key);
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    // A capture-token read touches neither secret: it must still be refused.
    const res = await callWithEnv(overrides, `/v1/verify/${v.id}`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: "internal_error", message: expect.any(String) } });
    expect(res.text).not.toMatch(/SECRET|CERTIFICATE/);
    const lines = errorLines(spy);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/configuration invalid/);
    expect(lines[0]).toMatch(problem);
  });

  it("a correct configuration answers normally", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key);
    expect((await callWithEnv({}, `/v1/verify/${v.id}`)).status).toBe(200);
  });
});

describe("5xx logs carry no credentials from the request path", () => {
  it("masks capture ids, upload and evidence tokens and magic-link tokens", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key);
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } });
    const uploadPath = new URL(minted.body.upload_url).pathname;
    const uploadToken = uploadPath.split("/").pop()!;
    const magicToken = `mlk_${"A".repeat(43)}`;
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);

    // A missing binding makes each of these fail inside the handler (500).
    const inline = await callWithEnv({ EVIDENCE: undefined }, `/v1/verifications/${v.id}/captures`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ image_base64: toBase64(uniqueJpeg()) }),
    });
    const bytes = uniqueJpeg();
    const put = await callWithEnv({ EVIDENCE: undefined }, uploadPath, {
      method: "PUT",
      headers: { "Content-Type": "image/jpeg", "Content-Length": String(bytes.length) },
      body: bytes,
    });
    const magic = await callWithEnv({ DB: undefined }, `/v1/auth/magic-link/${magicToken}`);
    const captured = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()) } });
    expect(captured.status).toBe(201);
    const listed = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
    const evidencePath = new URL(listed.body.items[0].image_url).pathname;
    const evidenceToken = evidencePath.split("/").pop()!;
    const evidence = await callWithEnv({ RATE_LIMITERS: undefined }, evidencePath);
    expect([inline.status, put.status, magic.status, evidence.status], put.text).toEqual([500, 500, 500, 500]);

    const logged = errorLines(spy).join("\n");
    // The ULID time part of the capture id stays (lib/log.ts), its 16 random characters go.
    expect(logged).toContain(`vfy_${v.id.slice(4, 14)}[redacted]`);
    expect(logged).toContain("/v1/uploads/[redacted]");
    expect(logged).toContain("mlk_[redacted]");
    expect(logged).toContain("/v1/evidence/[redacted]");
    for (const secret of [v.id, v.id.slice(4), uploadToken, evidenceToken, evidenceToken.split(".")[1]!, magicToken, magicToken.slice(4)]) expect(logged).not.toContain(secret);
  });
});
