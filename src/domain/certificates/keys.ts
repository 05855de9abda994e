import { calculateJwkThumbprint } from "jose";
import { certificateKeyRows } from "../../db/certificates";
import type { Db } from "../../db/client";
import { apiSettings, ConfigError } from "../../env";
import { CERTIFICATE_ALGORITHM } from "./content";

/*
 * The certificate signing key. The deployment holds one Ed25519 private key (the
 * CERTIFICATE_SIGNING_KEY secret, PKCS#8); its `kid` is the RFC 7638 thumbprint of its public half,
 * so it is computed, never configured. Every key that signs a certificate has its public half
 * recorded in D1 (`certificate_keys`) with that signature, and the JWKS publishes all of them:
 * rotating the secret never leaves an issued certificate without its key. A compromised key is
 * taken out of the JWKS by setting its `withdrawn_at`; this service then refuses to sign with it,
 * and certificates it signed are signed again with the current key when next served
 * (README "Certificate keys").
 */

export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: typeof CERTIFICATE_ALGORITHM;
  use: "sig";
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: PublicJwk;
}

/** The key as imported, once per configured key (isolates keep it for every request and message). */
const imported = new Map<string, Promise<SigningKey>>();

export function signingKey(env: Env): Promise<SigningKey> {
  const der = apiSettings(env).certificateKey;
  const cacheKey = env.CERTIFICATE_SIGNING_KEY!;
  let key = imported.get(cacheKey);
  if (!key) {
    key = importSigningKey(der);
    imported.set(cacheKey, key);
    key.catch(() => imported.delete(cacheKey));
  }
  return key;
}

/** A PKCS#8 Ed25519 private key → its signing key, public JWK and thumbprint `kid`. */
export async function importSigningKey(der: Uint8Array): Promise<SigningKey> {
  const extractable = await crypto.subtle.importKey("pkcs8", der, { name: "Ed25519" }, true, ["sign"]);
  const jwk = (await crypto.subtle.exportKey("jwk", extractable)) as JsonWebKey;
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || !jwk.x) throw new ConfigError("CERTIFICATE_SIGNING_KEY is not an Ed25519 key");
  const kid = await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: jwk.x });
  const privateKey = await crypto.subtle.importKey("pkcs8", der, { name: "Ed25519" }, false, ["sign"]);
  return { kid, privateKey, publicJwk: { kty: "OKP", crv: "Ed25519", x: jwk.x, kid, alg: CERTIFICATE_ALGORITHM, use: "sig" } };
}

/**
 * The published key set: the current key and every recorded key not withdrawn, current first. A
 * withdrawn current key is not published (and `usableSigningKey` refuses it).
 */
export async function publishedKeys(env: Env, db: Db): Promise<PublicJwk[]> {
  const [current, rows] = await Promise.all([signingKey(env), certificateKeyRows(db)]);
  const withdrawn = new Set(rows.filter((r) => r.withdrawnAt !== null).map((r) => r.kid));
  const keys: PublicJwk[] = withdrawn.has(current.kid) ? [] : [current.publicJwk];
  for (const row of rows) {
    if (row.withdrawnAt !== null || row.kid === current.kid) continue;
    keys.push({ ...(row.publicJwk as Omit<PublicJwk, "kid" | "alg" | "use">), kid: row.kid, alg: CERTIFICATE_ALGORITHM, use: "sig" });
  }
  return keys;
}
