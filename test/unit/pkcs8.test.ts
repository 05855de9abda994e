import { describe, expect, it } from "vitest";
import { ed25519Pkcs8 } from "../../src/lib/pkcs8";
import { newSigningKey } from "../helpers/certificates";

/* CERTIFICATE_SIGNING_KEY is checked before the first request: an Ed25519 PKCS#8 key, PEM or one-line base64. */

describe("the certificate signing key's format", () => {
  it("takes one-line base64, PEM, and PEM with escaped newlines (as some secret stores keep it)", async () => {
    const base64 = await newSigningKey();
    const der = ed25519Pkcs8(base64);
    expect(der?.length).toBe(48);
    const pem = `-----BEGIN PRIVATE KEY-----\n${base64}\n-----END PRIVATE KEY-----\n`;
    expect(ed25519Pkcs8(pem)).toEqual(der);
    expect(ed25519Pkcs8(pem.replace(/\n/g, "\\n"))).toEqual(der);
  });

  it("refuses anything else: another key type, a public key, truncated or not base64", async () => {
    const p256 = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"])) as CryptoKeyPair;
    const toBase64 = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
    expect(ed25519Pkcs8(toBase64((await crypto.subtle.exportKey("pkcs8", p256.privateKey)) as ArrayBuffer))).toBeNull();
    const ed = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    expect(ed25519Pkcs8(toBase64((await crypto.subtle.exportKey("spki", ed.publicKey)) as ArrayBuffer))).toBeNull();
    const good = await newSigningKey();
    expect(ed25519Pkcs8(good.slice(0, 40))).toBeNull();
    expect(ed25519Pkcs8("not a key at all!")).toBeNull();
    expect(ed25519Pkcs8("")).toBeNull();
  });
});
