import type { CaptureRow } from "../../db/verifications";
import type { C2paSignerConfig } from "../../lib/c2pa-signer-config";
import { sha256Hex } from "../../lib/crypto";

/*
 * Whether a capture gets a `credentials_url`, decided without the C2PA library (the captures API
 * answers without loading it; only a download of the signed copy does).
 */

/**
 * Media types whose files carry an embedded manifest with the image data untouched: JPEG APP11, PNG
 * caBX, a WebP RIFF `C2PA` chunk (appended; the RIFF size grows by the chunk), a HEIC/HEIF `uuid`
 * box after `ftyp` (the boxes after it move, their item locations rewritten).
 */
export const SIGNABLE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"] as const;
export type SignableMediaType = (typeof SIGNABLE_MEDIA_TYPES)[number];

/**
 * The largest image signed: signing holds the received bytes and the signed copy at once (about
 * twice the image, docs/evidence.md "Content Credentials"), well inside a Worker's 128 MB. Every
 * image step accepts up to 25 MB; a larger upload step's file gets no signed copy.
 */
export const CREDENTIALS_MAX_BYTES = 25 * 1000 * 1000;

export function isSignable(mediaType: string): mediaType is SignableMediaType {
  return (SIGNABLE_MEDIA_TYPES as readonly string[]).includes(mediaType);
}

/**
 * An image within the bound, whose analysis completed and found no C2PA manifest of its own
 * (`result.metadata.c2pa`): a file that arrived signed by someone else would need that manifest kept
 * as the parent of this one, which is not built yet, and is never overwritten.
 */
export function credentialsOffered(capture: Pick<CaptureRow, "contentType" | "sizeBytes">, analysis: { status: string; result: unknown } | undefined): boolean {
  if (!analysis || analysis.status !== "completed") return false;
  const metadata = (analysis.result as { metadata?: { c2pa?: unknown } } | null)?.metadata;
  return isSignable(capture.contentType) && capture.sizeBytes <= CREDENTIALS_MAX_BYTES && metadata?.c2pa == null;
}

/** The signer's key id: SHA-256 of its certificate, 16 hex digits (names the stored copies it signed). */
export async function signerKid(config: C2paSignerConfig): Promise<string> {
  return (await sha256Hex(config.certs[0]!)).slice(0, 16);
}

/** The deployment's name, as the manifest states it (`DEPLOYMENT_NAME`; the signing certificate's subject should name the same). */
export function deploymentName(env: Env): string {
  return env.DEPLOYMENT_NAME?.trim() || "Verification service";
}
