import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { decodeProtectedHeader } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { certificatesOf, insertCertificate } from "../../src/db/certificates";
import { captureAnalyses, certificateLinks } from "../../src/db/schema";
import { loadRecord } from "../../src/db/verifications";
import { CERTIFICATE_LIFETIME_SECONDS } from "../../src/domain/certificates/content";
import { currentCertificate, sign } from "../../src/domain/certificates/issue";
import { signingKey } from "../../src/domain/certificates/keys";
import { sha256Hex as sha256Text } from "../../src/lib/crypto";
import { newId } from "../../src/lib/ids";
import { handleQueue } from "../../src/queues";
import { BASE, call, callJson, createVerification, db, seedTenant, type TestTenant } from "../helpers/api";
import {
  CERTIFICATE_TYPE,
  certificateWithSequence,
  completedVerification,
  publishedJwks,
  verifyCertificate,
  withOneByteChanged,
} from "../helpers/certificates";
import { inlineCapture, pollVerification } from "../helpers/capture";
import { sha256Hex, uniqueJpeg } from "../helpers/images";
import { dashboard, signIn } from "../helpers/session";
import { waitFor } from "../helpers/wait";
import { received, receiver } from "../helpers/webhooks";

/*
 * Certificates (issue 27): a signed JWS of a completed verification's share-safe facts, stored and
 * re-signed on the events that change them, verifiable by anyone against the published keys.
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant("Certified Insurance");
});

describe("the certificate of a completed verification", () => {
  it("is signed on completion and verifies against the published key; one changed byte of payload fails", async () => {
    const { v, sha256 } = await completedVerification(t);
    // The events consumer signs on verification.completed: stored without anyone asking for it.
    const stored = await waitFor(async () => {
      const rows = await certificatesOf(db(), v.id);
      return rows.length > 0 ? rows : undefined;
    }, { what: "the certificate signed by the events consumer" });
    expect(stored.map((r) => r.sequence)).toEqual([1]);

    const res = await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const cert = res.body;
    expect(cert.certificate).toBe(stored[0]!.jws);
    expect(cert.jwks_url).toBe(`${BASE}/.well-known/jwks.json`);
    expect(decodeProtectedHeader(cert.certificate)).toEqual({ alg: "EdDSA", kid: cert.kid, typ: CERTIFICATE_TYPE });

    const jwks = await publishedJwks();
    const { payload } = await verifyCertificate(cert.certificate, jwks);
    expect(payload).toEqual(cert.payload);
    // What was certified is what the share-safe projection shows: the label and nothing more.
    const pub = await callJson(`/v1/verifications/${v.id}/public`);
    expect(pub.body.verdict).toEqual({ label: cert.payload.verification.verdict.label });
    expect(payload).toEqual({
      iss: BASE,
      iat: Math.floor(Date.parse(cert.issued_at) / 1000),
      exp: Math.floor(Date.parse(cert.issued_at) / 1000) + CERTIFICATE_LIFETIME_SECONDS,
      sequence: 1,
      schema_version: 2,
      verification: {
        id: v.id,
        // Who: the tenant's id beside the name it declared (it proved no domain).
        tenant: { id: t.id, display_name: expect.stringMatching(/^Certified Insurance/) },
        status: "completed",
        created_at: v.created_at,
        completed_at: v.completed_at,
        verdict: {
          label: v.verdict.label,
          ...(v.verdict.reason_code ? { reason_code: v.verdict.reason_code } : {}),
          assessment: "complete",
          // How: each required signal, with what decided it (the moiré measure reads the pixels).
          signals: { screen_detection: { status: "assessed", method: "pixels" } },
        },
        captures: [{ id: v.captures[0].id, step_key: "capture_1", kind: "live", received_at: v.captures[0].created_at, sha256 }],
      },
    });

    await expect(verifyCertificate(withOneByteChanged(cert.certificate), jwks)).rejects.toThrow();
    // Another issuer's name, or another token type, is refused even with a good signature.
    await expect(import("jose").then(({ jwtVerify, createLocalJWKSet }) => jwtVerify(cert.certificate, createLocalJWKSet(jwks), { issuer: "https://evil.example" }))).rejects.toThrow(/iss/);
    await expect(import("jose").then(({ jwtVerify, createLocalJWKSet }) => jwtVerify(cert.certificate, createLocalJWKSet(jwks), { typ: "JWT" }))).rejects.toThrow(/typ/);
  });

  it("the same certificate is served until an event signs the next: review, finalize and redaction each add one", async () => {
    const r = receiver();
    const { v } = await completedVerification(t, { webhook_url: r.url });
    const first = await certificateWithSequence(t, v.id, 1);
    // Reads change nothing.
    for (let i = 0; i < 3; i += 1) expect((await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key })).body.certificate).toBe(first.certificate);

    const reviewer = await signIn(t.id);
    const reviewed = await callJson(`/v1/verifications/${v.id}/review`, { body: { decision: "approved", note: "Looks right." }, headers: dashboard(reviewer.cookie) });
    expect(reviewed.status).toBe(200);
    const second = await certificateWithSequence(t, v.id, 2);
    expect(second.payload.verification.review).toEqual({ decision: "approved", reviewed_at: reviewed.body.review.at });

    const finalized = await callJson(`/v1/verifications/${v.id}/finalize`, { body: { narrative: "Closed." }, headers: dashboard(reviewer.cookie) });
    expect(finalized.status).toBe(200);
    const third = await certificateWithSequence(t, v.id, 3);
    expect(third.payload.verification.finalized_at).toEqual(expect.any(String));

    const redacted = await callJson(`/v1/verifications/${v.id}/redact`, { key: t.key, method: "POST" });
    expect(redacted.status).toBe(200);
    const fourth = await certificateWithSequence(t, v.id, 4);
    expect(fourth.payload.verification.redacted_at).toBe(redacted.body.redacted_at);
    // The digests stay: a copy of the photo still matches after the photos are erased.
    expect(fourth.payload.verification.captures).toEqual(first.payload.verification.captures);

    const jwks = await publishedJwks();
    for (const c of [first, second, third, fourth]) expect((await verifyCertificate(c.certificate, jwks)).payload.sequence).toBe(c.sequence);
    expect((await certificatesOf(db(), v.id)).map((c) => c.sequence)).toEqual([1, 2, 3, 4]);

    // Every webhook from completion on carries the certificate of the state it shows.
    const hooks = await waitFor(async () => {
      const bodies = (await received(r.id)).map((h) => JSON.parse(h.body));
      return bodies.some((b) => b.type === "verification.redacted") ? bodies : undefined;
    }, { what: "the redacted webhook" });
    const byType = Object.fromEntries(hooks.map((b) => [b.type, b]));
    expect(byType["verification.created"].data.certificate).toBeUndefined();
    expect(byType["verification.capture.persisted"].data.certificate).toBeUndefined();
    for (const type of ["verification.completed", "verification.reviewed", "verification.case.completed", "verification.redacted"]) {
      const hook = byType[type];
      expect(hook, type).toBeDefined();
      const { payload } = await verifyCertificate(hook.data.certificate.certificate, jwks);
      expect(payload.verification).toMatchObject({ id: v.id, status: hook.data.object.status });
      expect((payload.verification as any).review?.decision).toBe(hook.data.object.review?.decision);
      expect((payload.verification as any).redacted_at).toBe(hook.data.object.redacted_at);
    }
  });

  it("each signal's method is what decided it: the AI result's own method, the screen's derived from its provider", async () => {
    const { v } = await completedVerification(t, { signals_required: ["screen", "ai"] });
    const cert = await certificateWithSequence(t, v.id, 1);
    const captured = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items[0];
    const stored = (await db().select().from(captureAnalyses).where(eq(captureAnalyses.captureId, captured.id)).get())!.result as { signals: { ai_detection: { method: string } } };
    expect(stored.signals.ai_detection.method).toMatch(/^(pixels|provenance|provider:.+)$/);
    expect(cert.payload.verification.verdict.signals).toEqual({
      screen_detection: { status: "assessed", method: "pixels" },
      ai_detection: { status: "assessed", method: stored.signals.ai_detection.method },
    });
  });

  it("is 409 before completion: nothing to certify, no link to make", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    await inlineCapture(v.id);
    const read = await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key });
    expect(read.status).toBe(409);
    expect(read.body.error.code).toBe("invalid_state");
    const link = await callJson(`/v1/verifications/${v.id}/certificate-link`, { key: t.key, method: "POST" });
    expect(link.status).toBe(409);
    expect(link.body.error.code).toBe("invalid_state");
    expect(await certificatesOf(db(), v.id)).toEqual([]);
  });

  it("nothing evaluated is never certified: a verdict with assessment none has no certificate, no link, and an old link shows nothing", async () => {
    // Audit mode: every capture is existing content, so no signal applies and nothing is evaluated.
    const v = await createVerification(t.key, { max_captures: 1, mode: "audit", signals_required: ["screen"] });
    expect((await inlineCapture(v.id, {}, uniqueJpeg())).status).toBe(201);
    const done = await pollVerification(t.key, v.id, (x) => x?.verdict !== undefined);
    expect(done.status).toBe("completed");
    expect(done.verdict).toMatchObject({ assessment: "none", signals: { screen_detection: { status: "not_applicable" } } });
    const read = await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key });
    expect(read.status).toBe(409);
    expect(read.body.error).toMatchObject({ code: "invalid_state", message: expect.stringMatching(/nothing was evaluated/) });
    const link = await callJson(`/v1/verifications/${v.id}/certificate-link`, { key: t.key, method: "POST" });
    expect(link.status).toBe(409);
    expect(link.body.error.code).toBe("invalid_state");
    expect(await currentCertificate(env, db(), v.id)).toBeNull();
    // The share-safe projection shares no label either: a bare `verified` there would certify what the certificate refuses.
    const pub = await callJson(`/v1/verifications/${v.id}/public`);
    expect(pub.status).toBe(200);
    expect(pub.body.status).toBe("completed");
    expect(pub.body).not.toHaveProperty("verdict");
    // The events consumer signed nothing on completion either.
    await new Promise((r) => setTimeout(r, 300));
    expect(await certificatesOf(db(), v.id)).toEqual([]);

    // A link and certificate made before this rule (the third release signed such verdicts) now show nothing.
    const record = (await loadRecord(db(), v.id))!;
    const key = await signingKey(env);
    const old = {
      iss: BASE,
      schema_version: 1,
      verification: {
        id: v.id,
        tenant: { display_name: "Certified Insurance" },
        status: "completed",
        created_at: done.created_at,
        completed_at: done.completed_at,
        verdict: { label: done.verdict.label, assessment: "none" },
        captures: [{ id: done.captures[0].id, step_key: "capture_1", kind: "uploaded", received_at: done.captures[0].created_at, sha256: "0".repeat(64) }],
      },
    } as never;
    const jws = await sign(old, 1, Date.now(), key);
    const { kid: _kid, alg: _alg, use: _use, ...publicJwk } = key.publicJwk;
    const stored = { verificationId: v.id, sequence: 1, tenantId: t.id, stateVersion: record.row.version, contentSha256: "0".repeat(64), kid: key.kid, jws, issuedAt: Date.now() };
    expect(await insertCertificate(db(), stored, publicJwk)).toBe(true);
    const token = `cert_${"A".repeat(43)}`;
    await db().insert(certificateLinks).values({ id: newId("certificateLink"), verificationId: v.id, tenantId: t.id, tokenHash: await sha256Text(token), createdBy: "usr_old", createdAt: Date.now(), revokedAt: null });
    const shared = await callJson(`/v1/certificates/${token}`);
    expect(shared.status).toBe(404);
    expect(shared.body.error.code).toBe("not_found");
    expect((await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key })).status).toBe(409);
  });

  it("a certificate of schema_version 1 stored before is signed again as version 2 when next served", async () => {
    const { v } = await completedVerification(t);
    const first = await certificateWithSequence(t, v.id, 1);
    expect(first.payload.schema_version).toBe(2);
    // What the third release stored for this state: its payload without tenant.id or the signals.
    const record = (await loadRecord(db(), v.id))!;
    const key = await signingKey(env);
    const { tenant: _tenant, verdict: { signals: _signals, ...verdict }, ...verification } = first.payload.verification;
    const v1 = { iss: BASE, schema_version: 1 as never, verification: { ...verification, tenant: { display_name: "Certified Insurance" }, verdict } } as never;
    const { kid: _kid, alg: _alg, use: _use, ...publicJwk } = key.publicJwk;
    const stored = { verificationId: v.id, sequence: 2, tenantId: t.id, stateVersion: record.row.version, contentSha256: "0".repeat(64), kid: key.kid, jws: await sign(v1, 2, Date.now(), key), issuedAt: Date.now() };
    expect(await insertCertificate(db(), stored, publicJwk)).toBe(true);
    const served = await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key });
    expect(served.body).toMatchObject({ sequence: 3, payload: { schema_version: 2, verification: { tenant: { id: t.id } } } });
    expect((await verifyCertificate(served.body.certificate, await publishedJwks())).payload.sequence).toBe(3);
  });

  it("signing is idempotent under redelivery and concurrency: one certificate per state, gapless sequences", async () => {
    const { v } = await completedVerification(t);
    await certificateWithSequence(t, v.id, 1);
    // The consumer's duplicates and racing readers, all at once, on an unchanged state: nothing new.
    const same = await Promise.all(Array.from({ length: 8 }, () => currentCertificate(env, db(), v.id)));
    expect(new Set(same.map((s) => s!.certificate.jws)).size).toBe(1);

    // A new state, then many signers at once: exactly one certificate #2, the one everybody gets.
    const reviewer = await signIn(t.id);
    expect((await callJson(`/v1/verifications/${v.id}/review`, { body: { decision: "rejected", note: "No." }, headers: dashboard(reviewer.cookie) })).status).toBe(200);
    const racing = await Promise.all(Array.from({ length: 8 }, () => currentCertificate(env, db(), v.id)));
    expect(new Set(racing.map((s) => s!.certificate.sequence))).toEqual(new Set([2]));
    expect(new Set(racing.map((s) => s!.certificate.jws)).size).toBe(1);
    await new Promise((r) => setTimeout(r, 300)); // the consumer's own run on verification.reviewed
    expect((await certificatesOf(db(), v.id)).map((c) => c.sequence)).toEqual([1, 2]);
  });

  it("a redelivered verification.completed (the queue delivers at least once) signs nothing new and sends no second webhook", async () => {
    const r = receiver();
    const { v } = await completedVerification(t, { webhook_url: r.url });
    const completed = await waitFor(async () => {
      const events = (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body.events as Array<{ event_id: string; event_name: string; occurred_at: string }>;
      return events.find((e) => e.event_name === "verification.completed");
    }, { what: "the completed event" });
    await waitFor(async () => ((await certificatesOf(db(), v.id)).length > 0 ? true : undefined), { what: "the first certificate" });
    const completedHooks = async () => (await received(r.id)).filter((h) => JSON.parse(h.body).type === "verification.completed");
    const first = await waitFor(async () => ((await completedHooks()).length > 0 ? await completedHooks() : undefined), { what: "the completed webhook" });
    const event = { id: completed.event_id, name: completed.event_name, verification_id: v.id, tenant_id: t.id, occurred_at: Date.parse(completed.occurred_at), payload: {} };
    for (let i = 0; i < 3; i += 1) {
      const batch = createMessageBatch("vfy-events-local", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1 + i, body: { type: "domain_event", v: 1, event, webhook: true } }]);
      const ctx = createExecutionContext();
      await handleQueue(batch, env, ctx);
      expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(1);
    }
    expect((await certificatesOf(db(), v.id)).map((c) => c.sequence)).toEqual([1]);
    const deliveries = (await callJson(`/v1/verifications/${v.id}/webhook-deliveries`, { key: t.key })).body.items.filter((d: any) => d.event_type === "verification.completed");
    expect(deliveries).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 500)); // a second send, were there one, would have landed
    const hooks = await completedHooks();
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.body).toBe(first[0]!.body);
  });

  it("another tenant's verification is 404; a publishable key is 403", async () => {
    const { v } = await completedVerification(t);
    const other = await seedTenant("Other");
    expect((await callJson(`/v1/verifications/${v.id}/certificate`, { key: other.key })).status).toBe(404);
    expect((await callJson(`/v1/verifications/${v.id}/certificate-link`, { key: other.key, method: "POST" })).status).toBe(404);
    expect((await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.publishableKey })).status).toBe(403);
    expect((await callJson(`/v1/verifications/${v.id}/certificate-link`, { key: t.publishableKey, method: "POST" })).status).toBe(403);
    expect((await call(`/v1/verifications/${v.id}/certificate-links`)).status).toBe(401);
  });
});

describe("the published keys", () => {
  it("GET /.well-known/jwks.json: public Ed25519 keys only, cacheable, readable from any origin", async () => {
    const res = await call("/.well-known/jwks.json", { headers: { Origin: "https://insurer.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/jwk-set\+json/);
    expect(res.headers.get("Cache-Control")).toMatch(/public, max-age=300/);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const { keys } = (await res.json()) as { keys: Array<Record<string, string>> };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
      expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    }
  });

  it("a photo's SHA-256 matches its capture in the certificate; one changed byte does not", async () => {
    const { v, bytes } = await completedVerification(t);
    const cert = await certificateWithSequence(t, v.id, 1);
    const { payload } = await verifyCertificate(cert.certificate, await publishedJwks());
    const digests = (payload.verification as { captures: Array<{ sha256: string }> }).captures.map((c) => c.sha256);
    expect(digests).toContain(await sha256Hex(bytes));
    const changed = bytes.slice();
    changed[changed.length - 1] = changed[changed.length - 1]! ^ 0x01;
    expect(digests).not.toContain(await sha256Hex(changed));
  });
});
