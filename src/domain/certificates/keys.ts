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
 * (docs/certificates.md, "Certificate keys").
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

/** How long one isolate keeps the published key set before reading `certificate_keys` again. */
export const JWKS_ISOLATE_TTL_MS = 60_000;
/** How long any other cache (a verifier, a CDN) may keep it: `Cache-Control: public, max-age=…`. */
export const JWKS_MAX_AGE_SECONDS = 300;

/** The key set as this isolate last read it, by the current key's kid (a rotation is a new entry). */
const keySets = new Map<string, { at: number; keys: Promise<PublicJwk[]> }>();

/**
 * The published key set: the current key and every recorded key not withdrawn, current first. A
 * withdrawn current key is not published (and `usableSigningKey` refuses it). Read from D1 at most
 * once per JWKS_ISOLATE_TTL_MS per isolate and current key: a key rotated in (a new secret, a new
 * current key) is published at once, a withdrawal and an older key first recorded by another isolate
 * within that time.
 */
export async function publishedKeys(env: Env, db: Db, now = Date.now()): Promise<PublicJwk[]> {
  const current = await signingKey(env);
  const cached = keySets.get(current.kid);
  // An entry from the future (a clock stepped back) is as stale as an old one.
  if (cached && cached.at <= now && now - cached.at < JWKS_ISOLATE_TTL_MS) return cached.keys;
  const entry = { at: now, keys: readPublishedKeys(current, db) };
  keySets.set(current.kid, entry);
  entry.keys.catch(() => {
    if (keySets.get(current.kid) === entry) keySets.delete(current.kid);
  });
  return entry.keys;
}

async function readPublishedKeys(current: SigningKey, db: Db): Promise<PublicJwk[]> {
  const rows = await certificateKeyRows(db);
  const withdrawn = new Set(rows.filter((r) => r.withdrawnAt !== null).map((r) => r.kid));
  const keys: PublicJwk[] = withdrawn.has(current.kid) ? [] : [current.publicJwk];
  for (const row of rows) {
    if (row.withdrawnAt !== null || row.kid === current.kid) continue;
    keys.push({ ...(row.publicJwk as Omit<PublicJwk, "kid" | "alg" | "use">), kid: row.kid, alg: CERTIFICATE_ALGORITHM, use: "sig" });
  }
  return keys;
}
