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
 * An image within the bound whose analysis completed. A file that arrived with a C2PA manifest store
 * gets one too (the deployment's manifest is added to that store, which is kept whole:
 * arrived-store.ts), unless the analysis could not read that store (`manifest.malformed`,
 * `asset.malformed`) or found no manifest in it: a store that cannot be read is not extended.
 */
export function credentialsOffered(capture: Pick<CaptureRow, "contentType" | "sizeBytes">, analysis: { status: string; result: unknown } | undefined): boolean {
  if (!analysis || analysis.status !== "completed") return false;
  const c2pa = (analysis.result as { metadata?: { c2pa?: { failures?: unknown; manifests?: unknown } | null } } | null)?.metadata?.c2pa;
  return isSignable(capture.contentType) && capture.sizeBytes <= CREDENTIALS_MAX_BYTES && (c2pa == null || storeReadable(c2pa));
}

function storeReadable(c2pa: { failures?: unknown; manifests?: unknown }): boolean {
  const failures = Array.isArray(c2pa.failures) ? c2pa.failures : [];
  const unreadable = failures.some((f) => typeof f === "string" && /^(manifest|asset)\.malformed/.test(f));
  return !unreadable && Array.isArray(c2pa.manifests) && c2pa.manifests.length > 0;
}

/** The signer's key id: SHA-256 of its certificate, 16 hex digits (names the stored copies it signed). */
export async function signerKid(config: C2paSignerConfig): Promise<string> {
  return (await sha256Hex(config.certs[0]!)).slice(0, 16);
}

/** The deployment's name, as the manifest states it (`DEPLOYMENT_NAME`; the signing certificate's subject should name the same). */
export function deploymentName(env: Env): string {
  return env.DEPLOYMENT_NAME?.trim() || "Verification service";
}
