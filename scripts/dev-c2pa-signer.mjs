// A development C2PA signer for `npm start` (scripts/dev.mjs writes it to .dev.vars) and the tests
// (vitest.config.ts): a root CA made here and a signing certificate under it in the C2PA profile
// (ECDSA P-256, key usage digitalSignature, EKU emailProtection, authority and subject key
// identifiers), named after the deployment. Never committed: generated per machine or per run.
// Returns the two secrets the Worker reads and the root's PEM (a validator's trust anchor).
import "reflect-metadata";
import { Buffer } from "node:buffer";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto);

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** `CN=…, O=…` with the name's special characters escaped (RFC 4514). */
function dn(name, suffix = "") {
  const escaped = `${name}${suffix}`.replace(/([,+"\\<>;=])/g, "\\$1");
  return `CN=${escaped}, O=${name.replace(/([,+"\\<>;=])/g, "\\$1")}`;
}

/**
 * @param {string} name the deployment's name (the signing certificate's subject)
 * @param {{ days?: number }} [options]
 * @returns {Promise<{ C2PA_SIGNING_KEY: string; C2PA_SIGNING_CERTS: string; rootPem: string }>}
 */
export async function generateDevC2paSigner(name, options = {}) {
  const now = Date.now();
  const notBefore = new Date(now - 24 * 3600_000);
  const notAfter = new Date(now + (options.days ?? 3650) * 24 * 3600_000);
  const serial = () => Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString("hex").replace(/^[89a-f]/, "1");
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"]);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: dn(name, " development root"),
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"]);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: dn(name),
    issuer: root.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection]),
      await x509.AuthorityKeyIdentifierExtension.create(root),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)).toString("base64");
  // One line each (.dev.vars and `wrangler secret put` take one line): PEM newlines as `\n`.
  return { C2PA_SIGNING_KEY: pkcs8, C2PA_SIGNING_CERTS: leaf.toString("pem").replace(/\r?\n/g, "\\n"), rootPem: root.toString("pem") };
}
