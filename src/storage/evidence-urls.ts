import { signToken, verifyToken } from "../lib/crypto";

/** How long a signed evidence URL works. */
export const EVIDENCE_URL_TTL_MS = 5 * 60 * 1000;
const PURPOSE = "evidence-get";

/** An object a signed URL serves: its key, the SHA-256 of its bytes (the ETag) and its media type. */
export interface EvidenceObject {
  key: string;
  sha256: string;
  contentType: string;
}

/**
 * A short-lived GET URL for one object of the evidence bucket, served by the Worker
 * (`GET /v1/evidence/{token}`). The token is the object key, digest, media type and expiry under an
 * HMAC of the signing secret with its own purpose, so it opens that object only, until it expires,
 * and no other signed token (upload URLs, cursors) is accepted in its place.
 */
export async function signEvidenceUrl(secret: string, baseUrl: string, object: EvidenceObject, now: number): Promise<string> {
  const token = await signToken(secret, PURPOSE, { k: object.key, h: object.sha256, t: object.contentType, exp: now + EVIDENCE_URL_TTL_MS });
  return `${baseUrl}/v1/evidence/${token}`;
}

export type OpenedEvidenceToken = { ok: true; object: EvidenceObject; expiresAt: number } | { ok: false; reason: "invalid" | "expired" };

export async function openEvidenceToken(secret: string, token: string, now: number): Promise<OpenedEvidenceToken> {
  const claims = (await verifyToken(secret, PURPOSE, token)) as { k?: unknown; h?: unknown; t?: unknown; exp?: unknown } | null;
  if (!claims || typeof claims.k !== "string" || typeof claims.h !== "string" || typeof claims.t !== "string" || typeof claims.exp !== "number") {
    return { ok: false, reason: "invalid" };
  }
  if (claims.exp <= now) return { ok: false, reason: "expired" };
  return { ok: true, object: { key: claims.k, sha256: claims.h, contentType: claims.t }, expiresAt: claims.exp };
}
