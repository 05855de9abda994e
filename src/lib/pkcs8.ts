/**
 * An Ed25519 private key as PKCS#8 (RFC 8410: `SEQUENCE {0, {id-Ed25519}, OCTET STRING {seed}}`, the
 * 48-byte form `openssl genpkey -algorithm ed25519` and Node's `generateKeyPairSync("ed25519")` write),
 * given as PEM or as the bare base64 of the DER (one line, for `.dev.vars` and `wrangler secret put`).
 * Null when the text is anything else. Checked synchronously, so the configuration check can refuse
 * a malformed key before the first request does anything.
 */
const ED25519_PKCS8_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
const ED25519_PKCS8_LENGTH = ED25519_PKCS8_PREFIX.length + 32;

export function ed25519Pkcs8(text: string): Uint8Array | null {
  const base64 = text
    .replace(/-----BEGIN PRIVATE KEY-----/, "")
    .replace(/-----END PRIVATE KEY-----/, "")
    .replace(/\\n/g, "")
    .replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null;
  let der: Uint8Array;
  try {
    der = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
  if (der.length !== ED25519_PKCS8_LENGTH) return null;
  return ED25519_PKCS8_PREFIX.every((byte, i) => der[i] === byte) ? der : null;
}
