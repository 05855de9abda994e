import canonicalize from "canonicalize";
import { decodeJwt, SignJWT } from "jose";
import { insertCertificate, signingSnapshot, type CertificateRow } from "../../db/certificates";
import type { Db } from "../../db/client";
import type { VerificationRecord } from "../../db/verifications";
import { apiSettings, ConfigError } from "../../env";
import { sha256Hex } from "../../lib/crypto";
import {
  CERTIFICATE_ALGORITHM,
  CERTIFICATE_LIFETIME_SECONDS,
  CERTIFICATE_RENEW_BEFORE_SECONDS,
  CERTIFICATE_SCHEMA_VERSION,
  CERTIFICATE_TYPE,
  certifiedContent,
  isCertifiable,
  type CertificatePayload,
  type CertifiedContent,
} from "./content";
import { signingKey, type SigningKey } from "./keys";

/*
 * Issuing certificates. `currentCertificate` is the one entry point: whoever needs the certificate
 * of a verification's current state (the events consumer on completed / reviewed / finalized /
 * redacted, a webhook delivery being made, a link created, an authenticated read) calls it, and it
 * either finds it stored or signs it. Idempotent and safe under any concurrency (queue redelivery,
 * two events of one verification handled at once, a read racing the consumer):
 *  - one D1 snapshot decides: the record, its latest certificate, the tenant's name;
 *  - a stored certificate is kept while it covers the content (same content hash) or a later state
 *    of the verification (its row `version`) than this snapshot, unless its key was withdrawn, it is
 *    of an earlier `schema_version`, or it has CERTIFICATE_RENEW_BEFORE_SECONDS or less before it
 *    expires (then the same state is signed again, as the next sequence). The content is compared,
 *    not only the verification's version: what the certificate says of the tenant (its declared
 *    name, the domain it proved) can change while the verification does not, and a domain whose
 *    proof lapsed (removed, or dropped by the re-check) must stop being claimed at the next serve;
 *  - otherwise the next sequence is signed and inserted only if no certificate with that sequence or
 *    a later state exists (one conditional INSERT); a loser of that race reads again and finds the
 *    winner's. So sequences are gapless and unique, and the latest always covers the latest state
 *    anyone has seen.
 */

export interface IssuedCertificate {
  verificationId: string;
  sequence: number;
  kid: string;
  jws: string;
  issuedAt: number;
}

export interface CertifiedRecord {
  /** The record as the certificate's snapshot read it. */
  record: VerificationRecord;
  certificate: IssuedCertificate;
}

const MAX_ROUNDS = 5;

/**
 * The certificate covering the verification's current state, signed now when there is none yet;
 * null when the verification does not exist or is not certifiable (not completed with a verdict).
 */
export async function currentCertificate(env: Env, db: Db, verificationId: string, now = Date.now()): Promise<CertifiedRecord | null> {
  const key = await signingKey(env);
  const issuer = apiSettings(env).baseUrl;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const snapshot = await signingSnapshot(db, verificationId, key.kid);
    const { record, latest } = snapshot;
    if (!record || !isCertifiable(record.row)) return null;
    const content = certifiedContent(record, snapshot.tenant, snapshot.analyses, issuer);
    const contentSha256 = await sha256Hex(canonical(content));
    if (latest && isCurrent(latest) && servable(latest.jws, now) && (latest.contentSha256 === contentSha256 || latest.stateVersion > record.row.version)) {
      return { record, certificate: issued(latest) };
    }
    if (snapshot.currentKeyWithdrawn) {
      throw new ConfigError(`the certificate signing key ${key.kid} was withdrawn: set a new CERTIFICATE_SIGNING_KEY`);
    }
    const row: CertificateRow = {
      verificationId,
      sequence: (latest?.sequence ?? 0) + 1,
      tenantId: record.row.tenantId,
      stateVersion: record.row.version,
      contentSha256,
      kid: key.kid,
      jws: await sign(content, (latest?.sequence ?? 0) + 1, now, key),
      issuedAt: now,
    };
    const { kid: _kid, alg: _alg, use: _use, ...publicJwk } = key.publicJwk;
    if (await insertCertificate(db, row, publicJwk)) return { record, certificate: issued(row) };
    // Another signer stored this sequence or a later state first: decide again on a fresh snapshot.
  }
  throw new Error(`certificate of ${verificationId}: no decision after ${MAX_ROUNDS} rounds of concurrent signing`);
}

/**
 * Whether a stored certificate may still be handed out: it has an expiry (those signed before
 * certificates had one verify for ever, so they are replaced) more than
 * CERTIFICATE_RENEW_BEFORE_SECONDS away.
 */
export function servable(jws: string, now: number): boolean {
  const { exp } = decodeJwt(jws);
  return typeof exp === "number" && exp - now / 1000 > CERTIFICATE_RENEW_BEFORE_SECONDS;
}

/** A compact JWS (a JWT with explicit `typ`) over the payload, signed with the deployment's key. */
export async function sign(content: CertifiedContent, sequence: number, now: number, key: SigningKey): Promise<string> {
  const iat = Math.floor(now / 1000);
  const payload: CertificatePayload = { ...content, iat, exp: iat + CERTIFICATE_LIFETIME_SECONDS, sequence };
  return new SignJWT({ ...payload }).setProtectedHeader({ alg: CERTIFICATE_ALGORITHM, kid: key.kid, typ: CERTIFICATE_TYPE }).sign(key.privateKey);
}

/** Signed with a key still published, in the current schema: servable as it is. */
export function isCurrent(certificate: Pick<CertificateRow, "jws"> & { keyWithdrawn: boolean }): boolean {
  return !certificate.keyWithdrawn && schemaVersionOf(certificate.jws) === CERTIFICATE_SCHEMA_VERSION;
}

function schemaVersionOf(jws: string): unknown {
  return (decodeJwt(jws) as { schema_version?: unknown }).schema_version;
}

function canonical(content: CertifiedContent): string {
  const text = canonicalize(content);
  if (text === undefined) throw new Error("certificate content is not serialisable");
  return text;
}

function issued(row: Pick<CertificateRow, "verificationId" | "sequence" | "kid" | "jws" | "issuedAt">): IssuedCertificate {
  return { verificationId: row.verificationId, sequence: row.sequence, kid: row.kid, jws: row.jws, issuedAt: row.issuedAt };
}
