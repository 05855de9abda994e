/**
 * The deployment's C2PA signer as configured: `C2PA_SIGNING_KEY` (an ECDSA P-256 private key,
 * PKCS#8, PEM or one line of base64) and `C2PA_SIGNING_CERTS` (its certificate, then the
 * intermediates up to but not including the root, as PEM blocks; `\n` escapes allowed for one-line
 * secrets). Both unset: the deployment signs no Content Credentials. Checked here synchronously and
 * without any X.509 library, so the configuration check and the captures API (which only needs the
 * `kid`) stay cheap; domain/credentials/signer.ts imports them for signing.
 */

export interface C2paSignerConfig {
  /** PKCS#8 DER of the private key. */
  key: Uint8Array;
  /** DER of each certificate, the signer's first. */
  certs: Uint8Array[];
}

/** id-ecPublicKey (1.2.840.10045.2.1) and prime256v1 (1.2.840.10045.3.1.7), as DER OBJECT IDENTIFIERs. */
const EC_PUBLIC_KEY_OID = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const P256_OID = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
/** A P-256 PKCS#8 is 67 bytes without the public key, 138 with it; certificates are a few hundred bytes to a few KiB. */
const MAX_KEY_BYTES = 256;
const MAX_CERT_BYTES = 16 * 1024;
const MAX_CERTS = 5;

function base64Der(text: string): Uint8Array | null {
  const base64 = text.replace(/\\n/g, "").replace(/\s+/g, "");
  if (base64 === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null;
  try {
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function indexOf(haystack: Uint8Array, needle: number[]): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i += 1) {
    for (let j = 0; j < needle.length; j += 1) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** The outer DER SEQUENCE spans exactly these bytes (short or long definite length). */
function isDerSequence(der: Uint8Array): boolean {
  if (der.length < 2 || der[0] !== 0x30) return false;
  const first = der[1]!;
  if (first < 0x80) return der.length === 2 + first;
  const octets = first & 0x7f;
  if (octets === 0 || octets > 3 || der.length < 2 + octets) return false;
  let length = 0;
  for (let i = 0; i < octets; i += 1) length = length * 256 + der[2 + i]!;
  return der.length === 2 + octets + length;
}

/** An ECDSA P-256 private key in PKCS#8 (PEM or base64 DER), or null. */
export function p256Pkcs8(text: string): Uint8Array | null {
  const der = base64Der(text.replace(/-----BEGIN PRIVATE KEY-----/, "").replace(/-----END PRIVATE KEY-----/, ""));
  if (!der || der.length > MAX_KEY_BYTES || !isDerSequence(der)) return null;
  const algorithm = indexOf(der, EC_PUBLIC_KEY_OID);
  return algorithm >= 0 && algorithm < 16 && indexOf(der, P256_OID) === algorithm + EC_PUBLIC_KEY_OID.length ? der : null;
}

/** The certificates of a PEM chain (every block a DER SEQUENCE), or null when there is none or one is malformed. */
export function pemCertificates(text: string): Uint8Array[] | null {
  const normalized = text.replace(/\\n/g, "\n");
  const blocks = [...normalized.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)];
  if (blocks.length === 0 || blocks.length > MAX_CERTS) return null;
  const outside = normalized.replace(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g, "").trim();
  if (outside !== "") return null;
  const certs: Uint8Array[] = [];
  for (const [, body] of blocks) {
    const der = base64Der(body!);
    if (!der || der.length > MAX_CERT_BYTES || !isDerSequence(der)) return null;
    certs.push(der);
  }
  return certs;
}

/** What is wrong with the C2PA signer settings (both or neither set, each well-formed). */
export function c2paSignerProblems(env: { C2PA_SIGNING_KEY?: string; C2PA_SIGNING_CERTS?: string }): string[] {
  const { C2PA_SIGNING_KEY: key, C2PA_SIGNING_CERTS: certs } = env;
  if (!key && !certs) return [];
  if (!key) return ["C2PA_SIGNING_CERTS is set without C2PA_SIGNING_KEY"];
  if (!certs) return ["C2PA_SIGNING_KEY is set without C2PA_SIGNING_CERTS"];
  const problems: string[] = [];
  if (!p256Pkcs8(key)) problems.push("C2PA_SIGNING_KEY is not an ECDSA P-256 private key in PKCS#8 (PEM or base64)");
  if (!pemCertificates(certs)) problems.push(`C2PA_SIGNING_CERTS is not a PEM certificate chain (1 to ${MAX_CERTS} certificates, the signer's first)`);
  return problems;
}

/** The configured signer, or null when the deployment signs no Content Credentials (call after `settings`, which refuses malformed values). */
export function c2paSignerConfig(env: { C2PA_SIGNING_KEY?: string; C2PA_SIGNING_CERTS?: string }): C2paSignerConfig | null {
  if (!env.C2PA_SIGNING_KEY || !env.C2PA_SIGNING_CERTS) return null;
  const key = p256Pkcs8(env.C2PA_SIGNING_KEY);
  const certs = pemCertificates(env.C2PA_SIGNING_CERTS);
  return key && certs ? { key, certs } : null;
}
