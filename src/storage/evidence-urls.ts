import { randomBase62, signToken, verifyToken } from "../lib/crypto";

/** How long a signed evidence URL works. */
export const EVIDENCE_URL_TTL_MS = 5 * 60 * 1000;
const PURPOSE = "evidence-get";

export const EVIDENCE_VARIANTS = ["image", "thumbnail", "depth_map", "credentials"] as const;
export type EvidenceVariant = (typeof EVIDENCE_VARIANTS)[number];

/**
 * One object of a capture: which capture, which of its objects, and the SHA-256 of its bytes (the
 * ETag); for `credentials` (the received image with the deployment's signed manifest), the SHA-256 of
 * the received image it signs.
 */
export interface EvidenceRef {
  captureId: string;
  variant: EvidenceVariant;
  sha256: string;
}

/**
 * A short-lived GET URL for one object of a capture, served by the Worker
 * (`GET /v1/evidence/{token}`). The token names the capture, the object and its digest with an
 * expiry, under an HMAC of the signing secret with its own purpose: it opens that object only, until
 * it expires, and no other signed token (upload URLs, cursors) is accepted in its place. The object
 * key stays on the server, since it holds the verification id, which is the capture flow's credential.
 */
export async function signEvidenceUrl(secret: string, baseUrl: string, ref: EvidenceRef, now: number): Promise<string> {
  // `n`: fresh randomness in every credential, so no two URLs are alike even within a millisecond.
  const token = await signToken(secret, PURPOSE, { c: ref.captureId, v: ref.variant, h: ref.sha256, exp: now + EVIDENCE_URL_TTL_MS, n: randomBase62(12) });
  return `${baseUrl}/v1/evidence/${token}`;
}

export type OpenedEvidenceToken = { ok: true; ref: EvidenceRef; expiresAt: number } | { ok: false; reason: "invalid" | "expired" };

export async function openEvidenceToken(secret: string, token: string, now: number): Promise<OpenedEvidenceToken> {
  const claims = (await verifyToken(secret, PURPOSE, token)) as { c?: unknown; v?: unknown; h?: unknown; exp?: unknown } | null;
  if (
    !claims ||
    typeof claims.c !== "string" ||
    !EVIDENCE_VARIANTS.includes(claims.v as EvidenceVariant) ||
    typeof claims.h !== "string" ||
    typeof claims.exp !== "number"
  ) {
    return { ok: false, reason: "invalid" };
  }
  if (claims.exp <= now) return { ok: false, reason: "expired" };
  return { ok: true, ref: { captureId: claims.c, variant: claims.v as EvidenceVariant, sha256: claims.h }, expiresAt: claims.exp };
}
