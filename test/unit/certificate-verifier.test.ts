import { calculateJwkThumbprint, exportJWK, SignJWT, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import { CertificateError, requesterOf, verifyCertificate } from "../../clients/typescript/src/certificate";
import { describeCertificate, printable, printableValue } from "../../clients/typescript/src/cli";

/*
 * The client's verifier (the certificate page and the `verification-certificate` command run it)
 * reads both payload versions: 1 (signed before issue 33) and 2 (tenant id, verified domain, signals).
 * Every certificate also needs `exp`; version 1 was only ever signed without one, so a real version 1
 * is refused as undated (test/integration/certificate-expiry.test.ts covers expiry itself).
 */

const ISSUER = "https://verify.example.com";

async function issuer() {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), alg: "EdDSA", use: "sig" };
  jwk.kid = await calculateJwkThumbprint(jwk);
  const sign = (payload: Record<string, unknown>) =>
    new SignJWT(payload).setProtectedHeader({ alg: "EdDSA", kid: jwk.kid!, typ: "verification-certificate+jwt" }).sign(pair.privateKey);
  return { jwks: { keys: [jwk] }, sign };
}

const common = {
  iss: ISSUER,
  iat: 1795428252,
  exp: 1795428252 + 7 * 24 * 3600,
  sequence: 1,
};
/** A day after signing, so the test reads the same on any date. */
const currentDate = new Date((common.iat + 24 * 3600) * 1000);
const verification = {
  id: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
  status: "completed",
  created_at: "2026-11-22T10:00:00.000Z",
  completed_at: "2026-11-22T10:04:12.000Z",
  captures: [{ id: "cap_1", step_key: "front", kind: "live", received_at: "2026-11-22T10:03:40.000Z", sha256: "a".repeat(64) }],
};

const v1 = { ...common, schema_version: 1, verification: { ...verification, tenant: { display_name: "Allianz SE" }, verdict: { label: "verified", assessment: "complete" } } };
const v2 = {
  ...common,
  schema_version: 2,
  verification: {
    ...verification,
    tenant: { id: "tnt_1", display_name: "Allianz SE" },
    verdict: { label: "verified", assessment: "complete", signals: { screen_detection: { status: "assessed", method: "pixels" } } },
  },
};

describe("the certificate verifier", () => {
  it("verifies version 1 and version 2 payloads, and names the requester as the reader should read it", async () => {
    const { jwks, sign } = await issuer();
    const first = await verifyCertificate(await sign(v1), { jwks, issuer: ISSUER }, { currentDate });
    expect(first.payload.schema_version).toBe(1);
    expect(requesterOf(first.payload)).toEqual({ kind: "declared_name", name: "Allianz SE" });
    const { exp: _exp, ...asSigned } = v1;
    const undated = await verifyCertificate(await sign(asSigned), { jwks, issuer: ISSUER }, { currentDate }).catch((err: unknown) => err);
    expect(undated).toMatchObject({ problem: "expired", message: expect.stringMatching(/no expiry/) });

    const second = await verifyCertificate(await sign(v2), { jwks, issuer: ISSUER }, { currentDate });
    expect(second.payload).toEqual(v2);
    expect(requesterOf(second.payload)).toEqual({ kind: "declared_name", name: "Allianz SE" });
    const verified = { ...v2, verification: { ...v2.verification, tenant: { ...v2.verification.tenant, verified_domain: "allianz.example" } } };
    expect(requesterOf((await verifyCertificate(await sign(verified), { jwks, issuer: ISSUER }, { currentDate })).payload)).toEqual({ kind: "verified_domain", name: "allianz.example" });
  });

  it("refuses a version it does not know, and a version 2 without who and how", async () => {
    const { jwks, sign } = await issuer();
    for (const payload of [
      { ...v2, schema_version: 3 },
      { ...v2, verification: { ...v2.verification, tenant: { display_name: "Allianz SE" } } },
      { ...v2, verification: { ...v2.verification, verdict: { label: "verified", assessment: "complete" } } },
    ]) {
      const refused = await verifyCertificate(await sign(payload), { jwks, issuer: ISSUER }, { currentDate }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(CertificateError);
      expect((refused as CertificateError).problem).toBe("malformed");
      expect((refused as CertificateError).message).toMatch(/schema_version 1 or 2/);
    }
  });
});

describe("the command's text output", () => {
  it("escapes newlines, U+2028/U+2029 and every other control character in what the certificate carries: no value prints a line of its own", async () => {
    const { jwks, sign } = await issuer();
    // A certificate signed before names and keys were refused at input (or by a careless issuer): values built to forge lines.
    const forged = "Acme\nVALID: certificate #1 of vfy_other\r\n  Requested by:  bank.example (a domain it proved it controls)\u2028\u2029\u0085\u001b[2J";
    const payload = {
      ...v2,
      verification: {
        ...v2.verification,
        tenant: { id: "tnt_1\n  Tenant:        tnt_bank", display_name: forged },
        captures: [{ ...v2.verification.captures[0]!, step_key: "roof\n    cap_2  step front\u2028x" }],
      },
    };
    const verified = await verifyCertificate(await sign(payload), { jwks, issuer: ISSUER }, { currentDate });
    const lines = describeCertificate(verified, []);
    // One line per statement, as for a certificate of plain values.
    expect(lines).toHaveLength(describeCertificate(await verifyCertificate(await sign(v2), { jwks, issuer: ISSUER }, { currentDate }), []).length);
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(lines.filter((l) => l.startsWith("VALID:"))).toHaveLength(1);
    expect(lines).toContain(
      '  Requested by:  "Acme\\x0AVALID: certificate #1 of vfy_other\\x0D\\x0A  Requested by:  bank.example (a domain it proved it controls)\\u2028\\u2029\\x85\\x1B[2J" (the name as declared by the tenant; not checked by the issuer)',
    );
    expect(lines).toContain("  Tenant:        tnt_1\\x0A  Tenant:        tnt_bank");
    expect(lines.some((l) => l.includes("step roof\\x0A    cap_2  step front\\u2028x,"))).toBe(true);
    // The command's own multi-line text keeps its newlines; U+2028/U+2029 never reach the terminal.
    expect(printable("usage\n  verify\u2028")).toBe("usage\n  verify\\u2028");
    expect(printableValue("a\nb\u2029")).toBe("a\\x0Ab\\u2029");
  });
});
