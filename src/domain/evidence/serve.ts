import { captureObjects } from "../../db/captures";
import type { Db } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { noneMatchHits } from "../../lib/http";
import { openEvidence, thumbnailKeyFor } from "../../storage/evidence";
import { openEvidenceToken, type EvidenceRef } from "../../storage/evidence-urls";
import { clientKey, enforceLimit, PUBLIC_LIMITS } from "../public-limits";
import { signingKey } from "../../lib/signing-keys";
import { FILE_EXTENSIONS, type MediaType } from "../../schemas/steps";

export interface ServedEvidence {
  status: 200 | 304;
  headers: Record<string, string>;
  body: ReadableStream | Uint8Array | null;
}

/** The stored object behind a reference: key, media type, download name; null when it is gone. */
async function locate(db: Db, ref: EvidenceRef): Promise<{ key: string; contentType: string; filename: string } | null> {
  const capture = await captureObjects(db, ref.captureId);
  if (!capture || capture.redactedAt !== null) return null;
  switch (ref.variant) {
    case "image":
      return { key: capture.imageKey, contentType: capture.contentType, filename: `${ref.captureId}.${FILE_EXTENSIONS[capture.contentType as MediaType] ?? "bin"}` };
    case "thumbnail":
      return { key: thumbnailKeyFor(capture.verificationId, ref.captureId), contentType: "image/jpeg", filename: `${ref.captureId}.thumb.jpg` };
    case "depth_map":
      return capture.forensicBufferKey ? { key: capture.forensicBufferKey, contentType: "image/png", filename: `${ref.captureId}.depth.png` } : null;
    case "credentials":
      return null;
  }
}

/**
 * Serves the object behind a signed evidence URL (storage/evidence-urls.ts): 401 when the
 * signature does not verify, 410 when the URL expired, 404 when the object is gone (redacted), 304 when
 * the client already holds these bytes (the ETag is their SHA-256). A `credentials` URL serves the
 * received image with the deployment's signed manifest (domain/credentials/serve.ts).
 */
export async function serveSignedEvidence(
  env: Env,
  db: Db,
  token: string,
  request: { clientIp: string | undefined; ifNoneMatch: string | undefined; now: number },
): Promise<ServedEvidence> {
  // Per client, an IPv6 one by its /64 (a subscriber holds the whole prefix), like every public door.
  await enforceLimit(env, PUBLIC_LIMITS.evidenceDownload, clientKey(request.clientIp));
  const opened = await openEvidenceToken(await signingKey(env, "evidence_urls"), token, request.now);
  // The URL is the credential: one that has expired is 410 `expired` (as every dead link), one that
  // does not verify is a bad credential, 401 `unauthorized` (never 403: nobody is authenticated).
  if (!opened.ok) {
    throw opened.reason === "expired"
      ? new ApiError("expired", "This evidence URL has expired; read the capture again for a fresh one.")
      : new ApiError("unauthorized", "This evidence URL is not valid.");
  }
  const { ref, expiresAt } = opened;
  const etag = `"${ref.sha256}"`;
  const headers: Record<string, string> = {
    ETag: etag,
    // The URL is a credential that dies within minutes: only the browser that fetched it may keep it, no longer.
    "Cache-Control": `private, max-age=${Math.max(0, Math.floor((expiresAt - request.now) / 1000))}`,
    "Content-Security-Policy": "default-src 'none'; sandbox",
  };
  if (ref.variant === "credentials") {
    // The C2PA library loads only for this download, never at a cold start of the API Worker.
    const { serveCredentials } = await import("../credentials/serve");
    return serveCredentials(env, db, ref, { ifNoneMatch: request.ifNoneMatch, cacheControl: headers["Cache-Control"]! });
  }
  const object = await locate(db, ref);
  if (!object) throw ApiError.notFound("evidence object");
  const { ifNoneMatch } = request;
  if (noneMatchHits(ifNoneMatch, etag)) {
    return { status: 304, headers, body: null };
  }
  const stored = await openEvidence(env.EVIDENCE, object.key);
  if (!stored) throw ApiError.notFound("evidence object");
  return {
    status: 200,
    headers: {
      ...headers,
      "Content-Type": object.contentType,
      "Content-Length": String(stored.size),
      "Content-Disposition": `inline; filename="${object.filename}"`,
    },
    body: stored.body,
  };
}
