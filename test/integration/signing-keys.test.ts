import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { issueOtp, verifyOtp } from "../../src/domain/accounts/otp";
import { registerPhone } from "../../src/domain/accounts/phones";
import { settings } from "../../src/env";
import { signToken } from "../../src/lib/crypto";
import { SIGNING_PURPOSES, signingKey } from "../../src/lib/signing-keys";
import { signEvidenceUrl } from "../../src/storage/evidence-urls";
import { callJson, createVerification, db, seedTenant, type TestTenant } from "../helpers/api";
import { callWithEnv } from "../helpers/app";
import { inlineCapture } from "../helpers/capture";
import { uniqueJpeg } from "../helpers/images";

/*
 * Evidence URLs, upload URLs, list cursors and one-time code hashes are each keyed by their own
 * HKDF derivation of SIGNING_SECRET, and each can be rotated alone with its override secret.
 */

const ROTATED = "rotated-signing-secret-0123456789abcdef0123456789";

let t: TestTenant;
/** Signed values minted under the deployment's current keys. */
let minted: { evidencePath: string; uploadPath: string; cursor: string; capture: { id: string; sha256: string } };

beforeAll(async () => {
  t = await seedTenant();
  const v = await createVerification(t.key, { max_captures: 2 });
  await createVerification(t.key, { max_captures: 1 });
  const upload = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } });
  expect((await inlineCapture(v.id)).status).toBe(201);
  const listed = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
  const page = await callJson("/v1/verifications?limit=1", { key: t.key });
  expect(page.body.next_cursor).toBeDefined();
  minted = {
    evidencePath: new URL(listed.body.items[0].image_url).pathname,
    uploadPath: new URL(upload.body.upload_url).pathname,
    cursor: page.body.next_cursor,
    capture: listed.body.items[0],
  };
});

const bearer = () => ({ Authorization: `Bearer ${t.key}` });
const evidence = (overrides: Record<string, unknown>) => callWithEnv(overrides, minted.evidencePath);
const nextPage = (overrides: Record<string, unknown>) => callWithEnv(overrides, `/v1/verifications?limit=1&cursor=${encodeURIComponent(minted.cursor)}`, { headers: bearer() });

describe("signing keys per purpose", () => {
  it("no purpose signs with SIGNING_SECRET itself, and no two purposes share a key", async () => {
    const keys = await Promise.all(Object.keys(SIGNING_PURPOSES).map((p) => signingKey(env, p as keyof typeof SIGNING_PURPOSES)));
    expect(new Set([...keys, env.SIGNING_SECRET]).size).toBe(keys.length + 1);
    // A URL or cursor signed with the root secret, as before the split, opens nothing.
    const { capture } = minted;
    const rootSigned = await signEvidenceUrl(env.SIGNING_SECRET!, settings(env).baseUrl, { captureId: capture.id, variant: "image", sha256: capture.sha256 }, Date.now());
    // A signature that does not verify is a bad credential: 401 (issue 42, item 6; never 403).
    expect((await callJson(new URL(rootSigned).pathname)).status).toBe(401);
    const rootCursor = await signToken(env.SIGNING_SECRET!, "list-cursor", { after: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" });
    expect((await callJson(`/v1/verifications?cursor=${encodeURIComponent(rootCursor)}`, { key: t.key })).status).toBe(400);
  });

  it("rotating the evidence URLs' key voids evidence URLs only", async () => {
    const rotated = { SIGNING_SECRET_EVIDENCE_URLS: ROTATED };
    expect((await evidence({})).status).toBe(200);
    const refused = await evidence(rotated);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("unauthorized");
    expect((await nextPage(rotated)).status).toBe(200);
    const bytes = uniqueJpeg();
    const put = await callWithEnv(rotated, minted.uploadPath, { method: "PUT", body: bytes, headers: { "Content-Type": "image/jpeg", "Content-Length": String(bytes.length) } });
    expect(put.status).toBe(200);
  });

  it("rotating the cursors' key voids cursors only", async () => {
    const rotated = { SIGNING_SECRET_CURSORS: ROTATED };
    const refused = await nextPage(rotated);
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields.cursor).toMatch(/Invalid cursor/);
    expect((await nextPage({})).status).toBe(200);
    expect((await evidence(rotated)).status).toBe(200);
  });

  it("rotating the upload URLs' key voids upload URLs only", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    const upload = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } });
    const path = new URL(upload.body.upload_url).pathname;
    const bytes = uniqueJpeg();
    const refused = await callWithEnv({ SIGNING_SECRET_UPLOAD_URLS: ROTATED }, path, { method: "PUT", body: bytes, headers: { "Content-Type": "image/jpeg", "Content-Length": String(bytes.length) } });
    expect(refused.status).toBe(404);
    expect((await evidence({ SIGNING_SECRET_UPLOAD_URLS: ROTATED })).status).toBe(200);
    expect((await callJson(path, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } })).status).toBe(200);
  });

  it("rotating the code hashes' key voids codes issued before; cursors and URLs keep working", async () => {
    const phone = `+1555${Math.floor(1_000_000 + Math.random() * 8_999_999)}`;
    await registerPhone(db(), { tenantId: t.id, phone, registeredBy: "usr_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" });
    const rotated = { ...env, SIGNING_SECRET_OTP_CODES: ROTATED } as Env;
    const before = await issueOtp(env, db(), { tenantId: t.id, phone });
    expect(await verifyOtp(rotated, db(), { otpId: before.id, code: before.code })).toEqual({ ok: false, reason: "wrong_code" });
    const after = await issueOtp(rotated, db(), { tenantId: t.id, phone });
    expect(await verifyOtp(rotated, db(), { otpId: after.id, code: after.code })).toMatchObject({ ok: true });
    expect((await nextPage({ SIGNING_SECRET_OTP_CODES: ROTATED })).status).toBe(200);
  });
});
