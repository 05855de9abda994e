import { env } from "cloudflare:workers";
import { decodeJwt, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { CertificateError, verifyCertificate as verifyAsClient } from "../../clients/typescript/src/certificate";
import { CERTIFICATE_LIFETIME_SECONDS, CERTIFICATE_RENEW_BEFORE_SECONDS } from "../../src/domain/certificates/content";
import { currentCertificate, type IssuedCertificate } from "../../src/domain/certificates/issue";
import { signingKey } from "../../src/domain/certificates/keys";
import { createCertificateLink } from "../../src/domain/certificates/links";
import { presentCertificate } from "../../src/domain/certificates/present";
import { attemptDelivery } from "../../src/domain/webhooks/deliveries";
import { webhookBody } from "../../src/domain/webhooks/events";
import { insertDeliveryOnce, loadDelivery } from "../../src/db/webhooks";
import { loadRecord } from "../../src/db/verifications";
import { newId } from "../../src/lib/ids";
import { BASE, callJson, db, seedTenant, type TestTenant } from "../helpers/api";
import { completedInD1, publishedJwks } from "../helpers/certificates";
import { received, receiver } from "../helpers/webhooks";

/*
 * Issue 33: revoking a certificate link stopped serving it, but a JWS fetched before verified for
 * ever. A certificate now expires (`exp`, CERTIFICATE_LIFETIME_SECONDS after it was signed), every
 * verifier checks it, and whoever serves a certificate serves one with at least
 * CERTIFICATE_RENEW_BEFORE_SECONDS left (signing the same statement again, as the next sequence,
 * when the stored one has less). A revoked link serves nothing more, so what it gave out stops
 * verifying within the lifetime.
 */

const DAY_MS = 86_400_000;
let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant("Expiring Insurance");
});

const verifiedAt = async (jws: string, at: Date) => verifyAsClient(jws, { jwks: await publishedJwks(), issuer: BASE }, { currentDate: at });

describe("certificates expire", () => {
  it("carry exp, CERTIFICATE_LIFETIME_SECONDS after iat; the client's verifier refuses one past it (and one without exp)", async () => {
    const id = await completedInD1(t.id);
    const served = await callJson(`/v1/verifications/${id}/certificate`, { key: t.key });
    expect(served.status).toBe(200);
    const { iat, exp } = served.body.payload as { iat: number; exp: number };
    expect(exp).toBe(iat + CERTIFICATE_LIFETIME_SECONDS);
    expect(served.body.expires_at).toBe(new Date(exp * 1000).toISOString());
    expect((await verifiedAt(served.body.certificate, new Date((exp - 60) * 1000))).payload.verification.id).toBe(id);
    const late = await verifiedAt(served.body.certificate, new Date((exp + 60) * 1000)).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(CertificateError);
    expect(late).toMatchObject({ problem: "expired", message: expect.stringMatching(/expired on/) });

    // Signed by the service's key, in the certificate's shape, but without an expiry: not a certificate a verifier accepts.
    const key = await signingKey(env);
    const { exp: _exp, ...forever } = decodeJwt(served.body.certificate);
    const undated = await new SignJWT(forever).setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "verification-certificate+jwt" }).sign(key.privateKey);
    expect(await verifiedAt(undated, new Date()).catch((err: unknown) => err)).toMatchObject({ problem: "expired", message: expect.stringMatching(/no expiry/) });
  });

  it("a stored certificate is served while it has more than CERTIFICATE_RENEW_BEFORE_SECONDS left; then the same statement is signed again as the next sequence", async () => {
    const id = await completedInD1(t.id);
    const t0 = Date.now();
    const first = await currentCertificate(env, db(), id, t0);
    expect(first!.certificate.sequence).toBe(1);
    const keptUntil = t0 + (CERTIFICATE_LIFETIME_SECONDS - CERTIFICATE_RENEW_BEFORE_SECONDS) * 1000;
    expect((await currentCertificate(env, db(), id, keptUntil - 60_000))!.certificate.sequence).toBe(1);
    const renewed = (await currentCertificate(env, db(), id, keptUntil + 60_000))!.certificate;
    expect(renewed.sequence).toBe(2);
    const [before, after] = [decodeJwt(first!.certificate.jws), decodeJwt(renewed.jws)];
    expect(after.verification).toEqual(before.verification);
    expect(after.exp).toBe(Math.floor((keptUntil + 60_000) / 1000) + CERTIFICATE_LIFETIME_SECONDS);
  });

  it("a link serves a current certificate, never an expired or undated one stored before", async () => {
    const id = await completedInD1(t.id);
    const principal = { kind: "api_key" as const, tenantId: t.id, keyId: "key_test", scope: "full" as const, name: "test" };
    const audit = () => ({ tenantId: t.id, action: "certificate_link.created" as const, actor: { type: "api_key" as const, id: "key_test", label: "test" }, target: { type: "verification", id }, client: { ip: null, userAgent: null } });
    // The link and its certificate were made CERTIFICATE_LIFETIME_SECONDS and a day ago.
    const long = Date.now() - (CERTIFICATE_LIFETIME_SECONDS * 1000 + DAY_MS);
    const link = await createCertificateLink(env, db(), principal, id, audit, long);
    expect(link.certificate.sequence).toBe(1);
    const opened = await callJson(`/v1/certificates/${link.token}`);
    expect(opened.status).toBe(200);
    expect(opened.body.sequence).toBe(2);
    expect(opened.body.payload.exp * 1000).toBeGreaterThan(Date.now() + CERTIFICATE_RENEW_BEFORE_SECONDS * 1000);
    await verifiedAt(opened.body.certificate, new Date());

    // A certificate stored before certificates had an expiry is replaced the first time it is served.
    const legacy = await completedInD1(t.id);
    const stored = await currentCertificate(env, db(), legacy);
    expect(stored!.certificate.sequence).toBe(1);
    const key = await signingKey(env);
    const { exp: _exp, ...undated } = decodeJwt(stored!.certificate.jws);
    const jws = await new SignJWT(undated).setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "verification-certificate+jwt" }).sign(key.privateKey);
    await db().$client.prepare("UPDATE certificates SET jws = ? WHERE verification_id = ?").bind(jws, legacy).run();
    const replaced = await callJson(`/v1/verifications/${legacy}/certificate`, { key: t.key });
    expect(replaced.body.sequence).toBe(2);
    expect(replaced.body.payload.exp).toBeGreaterThan(Date.now() / 1000);
  });

  it("a webhook attempt carries the certificate served when it is sent: the stored bytes while current, a renewed one when short of time, the tenant's new name after a rename", async () => {
    const id = await completedInD1(t.id);
    // Signed a day past the point of renewal: a retry or a replay made now must not carry it.
    const signedAt = Date.now() - (CERTIFICATE_LIFETIME_SECONDS - CERTIFICATE_RENEW_BEFORE_SECONDS) * 1000 - DAY_MS;
    const old = (await currentCertificate(env, db(), id, signedAt))!;
    const r = receiver();
    const delivered = async (certificate: IssuedCertificate) => {
      const eventId = newId("event", signedAt);
      const payload = webhookBody({ id: eventId, occurredAt: signedAt }, "verification.completed", (await loadRecord(db(), id))!, {
        baseUrl: BASE,
        now: signedAt,
        certificate: presentCertificate(certificate, BASE),
      });
      const delivery = await insertDeliveryOnce(db(), {
        id: newId("webhookDelivery", Date.now()),
        eventId,
        verificationId: id,
        tenantId: t.id,
        eventType: "verification.completed",
        url: r.url,
        payload,
        status: "pending",
        attempts: 0,
        lastStatusCode: null,
        lastError: null,
        nextAttemptAt: null,
        deliveredAt: null,
        createdAt: signedAt,
        updatedAt: signedAt,
        unguarded: true,
      });
      expect(await attemptDelivery(env, db(), delivery.id, 1)).toEqual({ kind: "done" });
      expect((await loadDelivery(db(), delivery.id))!.status).toBe("succeeded");
      const hit = (await received(r.id)).at(-1)!;
      return { stored: payload, sent: hit.body, body: JSON.parse(hit.body) };
    };

    const renewed = await delivered(old.certificate);
    expect(renewed.body.data.object).toEqual(JSON.parse(renewed.stored).data.object);
    expect(renewed.body.data.certificate.sequence).toBe(2);
    expect(renewed.body.data.certificate.payload.exp * 1000).toBeGreaterThan(Date.now() + CERTIFICATE_RENEW_BEFORE_SECONDS * 1000);
    expect(renewed.body.data.certificate.payload.verification).toEqual(decodeJwt(old.certificate.jws).verification);
    await verifiedAt(renewed.body.data.certificate.certificate, new Date());

    // The certificate it carried is the one served now: a body holding it goes out byte for byte.
    const current = (await currentCertificate(env, db(), id))!;
    const unchanged = await delivered(current.certificate);
    expect(unchanged.sent).toBe(unchanged.stored);

    // What the certificate says of the tenant changed: the next attempt names it as it is now.
    await db().$client.prepare("UPDATE tenants SET display_name = ? WHERE id = ?").bind("Renamed Insurance", t.id).run();
    const renamed = await delivered(current.certificate);
    expect(renamed.body.data.certificate.sequence).toBe(3);
    expect(renamed.body.data.certificate.payload.verification.tenant.display_name).toBe("Renamed Insurance");
  });
});

