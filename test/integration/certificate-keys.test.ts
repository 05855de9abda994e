import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { certificateKeys, verifications } from "../../src/db/schema";
import { currentCertificate } from "../../src/domain/certificates/issue";
import { importSigningKey, JWKS_ISOLATE_TTL_MS, JWKS_MAX_AGE_SECONDS, publishedKeys } from "../../src/domain/certificates/keys";
import { ConfigError } from "../../src/env";
import { ed25519Pkcs8 } from "../../src/lib/pkcs8";
import { callJson, db, seedTenant, type TestTenant } from "../helpers/api";
import { completedInD1, envWithKey, newSigningKey, publishedJwks, verifyCertificate } from "../helpers/certificates";

/*
 * Key rotation: certificates signed with an earlier key keep verifying against the published key
 * set, new ones carry the new key's kid; a withdrawn key leaves the set and its certificates are
 * signed again before they are served. The verifications here are written straight to D1 (completed,
 * no events), so no consumer signs them with the Worker's own key behind the test's back.
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant("Rotating Insurance");
});

/** The key set this isolate publishes once its copy is older than it keeps one (read on that later clock). */
const keySetAfterAMinute = async () => (await publishedKeys(env, db(), Date.now() + JWKS_ISOLATE_TTL_MS + 1_000)).map((k) => k.kid);

/** A new state of the verification (a review), written as the Durable Object would: version + 1. */
async function reviewInD1(id: string, decision: string): Promise<void> {
  await db()
    .update(verifications)
    .set({ review: { decision, by: "usr_test", at: Date.now() }, version: sql`${verifications.version} + 1`, updatedAt: Date.now() })
    .where(eq(verifications.id, id))
    .run();
}

const kidOf = async (key: string) => (await importSigningKey(ed25519Pkcs8(key)!)).kid;

describe("certificate keys", () => {
  it("the kid is the RFC 7638 thumbprint of the public key; the private part is never published", async () => {
    const key = await newSigningKey();
    const imported = await importSigningKey(ed25519Pkcs8(key)!);
    expect(imported.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await kidOf(key)).toBe(imported.kid);
    const jwks = await publishedJwks(envWithKey(key));
    const published = jwks.keys.find((k) => k.kid === imported.kid);
    expect(published).toEqual({ kty: "OKP", crv: "Ed25519", x: imported.publicJwk.x, kid: imported.kid, alg: "EdDSA", use: "sig" });
    expect(JSON.stringify(jwks)).not.toMatch(/"d"/);
  });

  it("rotation: an old certificate still verifies against the published keys, the next one uses the new kid", async () => {
    const oldKey = await newSigningKey();
    const oldKid = await kidOf(oldKey);
    const currentKid = await kidOf(env.CERTIFICATE_SIGNING_KEY!);
    const id = await completedInD1(t.id);

    // Issued while the deployment held the old key.
    const first = await currentCertificate(envWithKey(oldKey), db(), id);
    expect(first!.certificate).toMatchObject({ sequence: 1, kid: oldKid });

    // Rotated: the Worker now holds its own key; the old key's public half stays published (within
    // the minute this isolate keeps a key set read before the old key was recorded).
    expect(await keySetAfterAMinute()).toEqual(expect.arrayContaining([currentKid, oldKid]));
    const jwks = await publishedJwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([currentKid, oldKid]));
    expect(jwks.keys[0]!.kid).toBe(currentKid);
    expect((await verifyCertificate(first!.certificate.jws, jwks)).protectedHeader.kid).toBe(oldKid);

    // Reading it again signs nothing new: the state did not change.
    const same = await callJson(`/v1/verifications/${id}/certificate`, { key: t.key });
    expect(same.body).toMatchObject({ sequence: 1, kid: oldKid, certificate: first!.certificate.jws });

    // The next state is signed with the new key.
    await reviewInD1(id, "approved");
    const next = await callJson(`/v1/verifications/${id}/certificate`, { key: t.key });
    expect(next.body).toMatchObject({ sequence: 2, kid: currentKid });
    expect(decodeProtectedHeader(next.body.certificate).kid).toBe(currentKid);
    const after = await publishedJwks();
    expect((await verifyCertificate(next.body.certificate, after)).payload.sequence).toBe(2);
    expect((await verifyCertificate(first!.certificate.jws, after)).payload.sequence).toBe(1);
  });

  it("a withdrawn key leaves the key set; its certificate is signed again with the current key before a link serves it", async () => {
    const leaked = await newSigningKey();
    const leakedKid = await kidOf(leaked);
    const id = await completedInD1(t.id);
    const first = await currentCertificate(envWithKey(leaked), db(), id);
    expect(first!.certificate.kid).toBe(leakedKid);
    const link = await callJson(`/v1/verifications/${id}/certificate-link`, { key: t.key, method: "POST" });
    expect(link.status).toBe(201);
    expect(link.body.certificate.kid).toBe(leakedKid);

    await db().update(certificateKeys).set({ withdrawnAt: Date.now() }).where(eq(certificateKeys.kid, leakedKid)).run();
    // Published within the minute each isolate keeps the key set (docs/certificates.md, "Certificate keys").
    expect(await keySetAfterAMinute()).not.toContain(leakedKid);
    const jwks = await publishedJwks();
    expect(jwks.keys.map((k) => k.kid)).not.toContain(leakedKid);
    await expect(verifyCertificate(first!.certificate.jws, jwks)).rejects.toThrow();

    const served = await callJson(new URL(link.body.url).pathname);
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ sequence: 2, kid: await kidOf(env.CERTIFICATE_SIGNING_KEY!) });
    // The same statement, now under a key the set holds.
    expect((await verifyCertificate(served.body.certificate, jwks)).payload.verification).toEqual(decodeJwt(first!.certificate.jws).verification);

    // A deployment still holding the withdrawn key refuses to sign with it, and does not publish it.
    const other = await completedInD1(t.id);
    await expect(currentCertificate(envWithKey(leaked), db(), other)).rejects.toBeInstanceOf(ConfigError);
    expect((await publishedJwks(envWithKey(leaked))).keys.map((k) => k.kid)).not.toContain(leakedKid);
  });

  it("the key set is read from D1 at most once a minute per isolate, and its Cache-Control says how long a cache may keep it", async () => {
    const first = await callJson("/.well-known/jwks.json");
    expect(first.status).toBe(200);
    expect(first.headers.get("Cache-Control")).toBe(`public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    // A key recorded meanwhile (another isolate's first certificate with it): not read at once…
    const other = await importSigningKey(ed25519Pkcs8(await newSigningKey())!);
    const { kid: _k, alg: _a, use: _u, ...publicJwk } = other.publicJwk;
    await db().insert(certificateKeys).values({ kid: other.kid, publicJwk, createdAt: Date.now() }).run();
    expect((await publishedJwks()).keys.map((k) => k.kid)).not.toContain(other.kid);
    // …but once the isolate's copy is a minute old.
    expect(await keySetAfterAMinute()).toContain(other.kid);
  });
});
