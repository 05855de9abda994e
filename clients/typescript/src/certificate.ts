import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet } from "jose";
import type { components } from "./schema.js";

/*
 * Verifying a certificate of the Verification Service, anywhere: in Node (the
 * `verification-certificate` command), in a browser (the certificate page), in a back-end. A
 * certificate is a compact JWS (a JWT with `typ: verification-certificate+jwt`, EdDSA/Ed25519) whose
 * payload says what the service saw and decided about one verification, with the SHA-256 of each
 * photo's bytes. Only this file and jose, so the certificate page bundles nothing else.
 */

/** A payload of `schema_version` 2: the tenant's id and verified domain, and each required signal's status and method. */
export type CertificatePayloadV2 = components["schemas"]["CertificatePayload"];
/** A payload of `schema_version` 1 (certificates signed before version 2): the tenant's declared name only, no signals. */
export type CertificatePayloadV1 = components["schemas"]["CertificatePayloadV1"];
/** Every payload this verifier reads: narrow on `schema_version`. */
export type CertificatePayload = CertificatePayloadV1 | CertificatePayloadV2;
export type CertifiedCapture = components["schemas"]["CertifiedCapture"];
export type CertifiedSignal = components["schemas"]["CertifiedSignal"];

/** The payload versions this verifier understands. */
export const SCHEMA_VERSIONS = [1, 2] as const;

export const CERTIFICATE_TYPE = "verification-certificate+jwt";
/** Where an issuer publishes its keys, below its base URL. */
export const JWKS_PATH = "/.well-known/jwks.json";

/**
 * Whose keys decide. `jwksUrl`: fetched (the issuer is that URL without `/.well-known/jwks.json`
 * unless given). `jwks`: a saved key set, offline; the issuer you trust must then be named.
 */
export type KeySource = { jwksUrl: string; issuer?: string } | { jwks: JSONWebKeySet; issuer: string };

export type CertificateProblem = "malformed" | "signature" | "unknown_key" | "issuer" | "type" | "expired" | "keys_unavailable";

export class CertificateError extends Error {
  override name = "CertificateError";
  readonly problem: CertificateProblem;
  constructor(problem: CertificateProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

export interface VerifiedCertificate {
  payload: CertificatePayload;
  /** The key that signed it (its RFC 7638 thumbprint). */
  kid: string;
}

/** The issuer a key set URL speaks for: `https://verify.example.com/.well-known/jwks.json` → `https://verify.example.com`. */
export function issuerOfJwksUrl(jwksUrl: string): string {
  const url = new URL(jwksUrl);
  if (!url.pathname.endsWith(JWKS_PATH)) throw new CertificateError("keys_unavailable", `${jwksUrl} is not a key set URL (it must end with ${JWKS_PATH}).`);
  return `${url.origin}${url.pathname.slice(0, -JWKS_PATH.length)}`;
}

export interface VerifyOptions {
  /** The time to check the expiry against (default: now). */
  currentDate?: Date;
}

/**
 * Checks the signature against the key set, that the certificate names the expected issuer, is a
 * certificate (not another token of that issuer) and has not expired (`exp`: certificates expire 7
 * days after they are signed, so one a revoked link gave out stops verifying; a certificate without
 * `exp` is refused), and its payload's shape. Throws `CertificateError` saying which check failed;
 * returns the payload when every check holds.
 */
export async function verifyCertificate(jws: string, source: KeySource, options: VerifyOptions = {}): Promise<VerifiedCertificate> {
  const issuer = source.issuer ?? issuerOfJwksUrl((source as { jwksUrl: string }).jwksUrl);
  const keys = "jwks" in source ? createLocalJWKSet(source.jwks) : createRemoteJWKSet(new URL(source.jwksUrl));
  try {
    const { payload, protectedHeader } = await jwtVerify(jws.trim(), keys, {
      issuer,
      typ: CERTIFICATE_TYPE,
      algorithms: ["EdDSA", "Ed25519"],
      requiredClaims: ["exp"],
      ...(options.currentDate ? { currentDate: options.currentDate } : {}),
    });
    if (!isPayload(payload)) throw new CertificateError("malformed", `The signature holds, but the payload is not a certificate this tool understands (schema_version ${SCHEMA_VERSIONS.join(" or ")}).`);
    return { payload, kid: protectedHeader.kid ?? "" };
  } catch (err) {
    throw asCertificateError(err, issuer);
  }
}

/**
 * The key set at `jwksUrl`, fetched past any cache (a browser may hold it for 5 minutes, and a
 * rotation's new key must be seen at once). For pages; `verifyCertificate({jwksUrl})` fetches itself.
 */
export async function fetchKeySet(jwksUrl: string): Promise<JSONWebKeySet> {
  let res: Response;
  try {
    res = await fetch(jwksUrl, { cache: "no-cache", headers: { Accept: "application/jwk-set+json, application/json" } });
  } catch (err) {
    throw new CertificateError("keys_unavailable", `The issuer's keys could not be fetched: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!res.ok) throw new CertificateError("keys_unavailable", `The issuer's keys could not be fetched (HTTP ${res.status}).`);
  const body = (await res.json().catch(() => null)) as JSONWebKeySet | null;
  if (!Array.isArray(body?.keys)) throw new CertificateError("keys_unavailable", "The issuer's key set is not a JWKS.");
  return body;
}

/** SHA-256 (hex) of a file's bytes, with the platform's WebCrypto (browsers, Node 20+, Workers). */
export async function sha256Hex(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The capture of a verified certificate whose bytes had this SHA-256, if any. */
export function captureWithDigest(payload: CertificatePayload, sha256: string): CertifiedCapture | undefined {
  const wanted = sha256.toLowerCase();
  return payload.verification.captures.find((c) => c.sha256 === wanted);
}

/**
 * Who asked for the verification, as a reader should be told: the domain the tenant proved (version
 * 2, when it has one), else the name it declared for itself, never checked by the issuer.
 */
export function requesterOf(payload: CertificatePayload): { kind: "verified_domain"; name: string } | { kind: "declared_name"; name: string } {
  const tenant = payload.verification.tenant;
  if ("verified_domain" in tenant && typeof tenant.verified_domain === "string") return { kind: "verified_domain", name: tenant.verified_domain };
  return { kind: "declared_name", name: tenant.display_name };
}

function isPayload(value: unknown): value is CertificatePayload {
  const p = value as { schema_version?: unknown; sequence?: unknown; verification?: Partial<CertificatePayloadV2["verification"]> } | null;
  if (typeof p !== "object" || p === null || typeof p.sequence !== "number") return false;
  const v = p.verification;
  const common = typeof v?.id === "string" && typeof v.tenant?.display_name === "string" && Array.isArray(v.captures) && v.captures.every((c) => typeof c?.sha256 === "string");
  if (!common) return false;
  if (p.schema_version === 1) return true;
  // Version 2 adds who (the tenant's id) and how (each required signal's status).
  return p.schema_version === 2 && typeof v!.tenant!.id === "string" && typeof v!.verdict?.signals === "object" && v!.verdict.signals !== null;
}

function asCertificateError(err: unknown, issuer: string): CertificateError {
  if (err instanceof CertificateError) return err;
  if (err instanceof errors.JWSSignatureVerificationFailed) return new CertificateError("signature", "The signature does not match: the certificate was altered, or another key signed it.");
  if (err instanceof errors.JWKSNoMatchingKey) return new CertificateError("unknown_key", "No published key of this issuer signed it (unknown or withdrawn key).");
  if (err instanceof errors.JWTClaimValidationFailed && err.claim === "iss") return new CertificateError("issuer", `It was not issued by ${issuer}.`);
  if (err instanceof errors.JOSEAlgNotAllowed) return new CertificateError("signature", "It is signed with an algorithm certificates do not use.");
  if (err instanceof errors.JWTClaimValidationFailed && err.claim === "typ") return new CertificateError("type", "It is a token of another kind, not a certificate.");
  if (err instanceof errors.JWTExpired) {
    const exp = (err.payload as { exp?: unknown }).exp;
    const on = typeof exp === "number" ? new Date(exp * 1000).toISOString() : "its expiry date";
    return new CertificateError("expired", `The certificate expired on ${on}: ask whoever shared it for a current one (a link that was not revoked serves one).`);
  }
  if (err instanceof errors.JWTClaimValidationFailed && err.claim === "exp") {
    return new CertificateError("expired", "It has no expiry (exp), as certificates signed before expiries were introduced: ask for a current one.");
  }
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || (err instanceof errors.JOSEError && /JSON Web Key Set/.test(err.message))) {
    return new CertificateError("keys_unavailable", `The issuer's keys could not be read: ${err.message}`);
  }
  if (err instanceof errors.JOSEError) return new CertificateError("malformed", `Not a readable certificate: ${err.message}`);
  if (err instanceof TypeError) return new CertificateError("keys_unavailable", `The issuer's keys could not be fetched: ${err.message}`);
  return new CertificateError("malformed", `Not a readable certificate: ${err instanceof Error ? err.message : String(err)}`);
}
