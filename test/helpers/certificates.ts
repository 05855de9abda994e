import { env } from "cloudflare:workers";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { expect } from "vitest";
import { captures, verifications } from "../../src/db/schema";
import { newVerificationRow } from "../../src/db/verifications";
import { newId } from "../../src/lib/ids";
import { CONTRACT_DEFAULTS, normalizeConfig } from "../../src/model/verification/config";
import { BASE, callJson, createVerification, db, type TestTenant } from "./api";
import { inlineCapture, pollVerification } from "./capture";
import { sha256Hex, uniqueJpeg } from "./images";
import { encodeJpeg, naturalScene } from "./synth";
import { waitFor } from "./wait";

export const CERTIFICATE_TYPE = "verification-certificate+jwt";

/** A fresh Ed25519 private key as the CERTIFICATE_SIGNING_KEY secret holds it (one-line base64 PKCS#8). */
export async function newSigningKey(): Promise<string> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const der = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  let bin = "";
  for (const b of der) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** The Worker's env with another certificate signing key (a deployment after a rotation). */
export function envWithKey(key: string): Env {
  return { ...env, CERTIFICATE_SIGNING_KEY: key };
}

/** The published key set, through the Worker (checked against the document), optionally under another env. */
export async function publishedJwks(withEnv?: Env): Promise<JSONWebKeySet> {
  const res = await callJson("/.well-known/jwks.json", withEnv ? { env: withEnv } : {});
  expect(res.status).toBe(200);
  return res.body as JSONWebKeySet;
}

/** Verifies a certificate as a third party would: signature against the key set, the issuer and the type. */
export async function verifyCertificate(jws: string, jwks: JSONWebKeySet) {
  return jwtVerify(jws, createLocalJWKSet(jwks), { issuer: BASE, typ: CERTIFICATE_TYPE, algorithms: ["EdDSA"] });
}

/** The JWS with one byte of its payload changed (still valid base64url: another character of the alphabet). */
export function withOneByteChanged(jws: string): string {
  const [header, payload, signature] = jws.split(".") as [string, string, string];
  const at = Math.floor(payload.length / 2);
  const swapped = payload[at] === "A" ? "B" : "A";
  return `${header}.${payload.slice(0, at)}${swapped}${payload.slice(at + 1)}.${signature}`;
}

/**
 * A photo the screen signal can assess (a 1×1 image cannot be: its verdict evaluates nothing, and
 * such a verdict gets no certificate), of a random scene so its bytes and SHA-256 are new.
 */
export function assessableJpeg(): Uint8Array {
  return encodeJpeg(naturalScene(160, 120, crypto.getRandomValues(new Uint32Array(1))[0]!), 85);
}

/** A completed verification (one live capture of fresh bytes, screen signal only), with the bytes' digest. */
export async function completedVerification(t: TestTenant, extra: Record<string, unknown> = {}) {
  const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen"], ...extra });
  const bytes = assessableJpeg();
  const captured = await inlineCapture(v.id, {}, bytes);
  expect(captured.status).toBe(201);
  const done = await pollVerification(t.key, v.id, (x) => x?.verdict !== undefined);
  expect(done.status).toBe("completed");
  return { v: done, bytes, sha256: await sha256Hex(bytes) };
}

/** Waits until the verification's current certificate has sequence `n` (the events consumer signs asynchronously). */
export async function certificateWithSequence(t: TestTenant, id: string, n: number): Promise<any> {
  return waitFor(
    async () => {
      const res = await callJson(`/v1/verifications/${id}/certificate`, { key: t.key });
      return res.status === 200 && res.body.sequence === n ? res.body : undefined;
    },
    { what: `certificate #${n} of ${id}` },
  );
}

/**
 * A completed verification of the tenant with one capture, as D1 holds it, that nobody has certified
 * yet (written straight to D1, no events: no consumer signs it behind the test's back).
 */
export async function completedInD1(tenantId: string): Promise<string> {
  const now = Date.now();
  const id = newId("verification", now);
  const row = newVerificationRow({ id, tenantId, config: normalizeConfig({ max_captures: 1, signals_required: ["screen"] }, CONTRACT_DEFAULTS), sealEnabled: true, createdAt: now, expiresAt: now + 86_400_000 });
  const verdict = { label: "verified", score: 0.9, signals: { screen_detection: { screen_detected: false, confidence: 0.9 } }, assessment: "complete", not_assessed: [] };
  const bytes = uniqueJpeg();
  await db().batch([
    db().insert(verifications).values({ ...row, status: "completed", capturesCount: 1, readyAt: now, completedAt: now, verdict }),
    db().insert(captures).values({
      id: newId("capture", now),
      verificationId: id,
      tenantId,
      stepKey: "capture_1",
      stepType: "image",
      seq: 1,
      imageKey: `verifications/${id}/${crypto.randomUUID()}.jpg`,
      contentType: "image/jpeg",
      sizeBytes: bytes.length,
      sha256: await sha256Hex(bytes),
      surface: null,
      clientCapturedAt: null,
      location: null,
      forensicBufferKey: null,
      attestation: null,
      createdAt: now,
    }),
  ]);
  return id;
}
