import { enforceRateLimit } from "../../durable-objects/rate-limiter-client";
import { settings } from "../../env";
import { ApiError } from "../../lib/errors";
import { openEvidenceToken } from "../../storage/evidence-urls";
import { openEvidence } from "../../storage/evidence";

/** Signed evidence URLs need no other credential: each client IP may fetch this many per minute. */
export const EVIDENCE_FETCHES_PER_MINUTE = 1200;

const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "image/heic": "heic",
  "image/heif": "heif",
};

export interface ServedEvidence {
  status: 200 | 304;
  headers: Record<string, string>;
  body: ReadableStream | null;
}

/**
 * Serves the object behind a signed evidence URL (storage/evidence-urls.ts): 403 when the
 * signature does not verify or the URL expired, 404 when the object is gone (redacted), 304 when
 * the client already holds these bytes (the ETag is their SHA-256).
 */
export async function serveSignedEvidence(env: Env, token: string, request: { clientIp: string; ifNoneMatch: string | undefined; now: number }): Promise<ServedEvidence> {
  await enforceRateLimit(env, `evidence:${request.clientIp}`, EVIDENCE_FETCHES_PER_MINUTE, 60_000, "Too many evidence downloads from this address; try again shortly.");
  const opened = await openEvidenceToken(settings(env).signingSecret, token, request.now);
  if (!opened.ok) {
    throw new ApiError(
      "forbidden",
      opened.reason === "expired" ? "This evidence URL has expired; read the capture again for a fresh one." : "This evidence URL is not valid.",
    );
  }
  const { object, expiresAt } = opened;
  const etag = `"${object.sha256}"`;
  const filename = `${object.key.slice(object.key.lastIndexOf("/") + 1).replace(/\.(jpg|png)$/, "")}.${EXTENSIONS[object.contentType] ?? "bin"}`;
  const headers: Record<string, string> = {
    ETag: etag,
    // The URL is a credential that dies within minutes: only the browser that fetched it may keep it, no longer.
    "Cache-Control": `private, max-age=${Math.max(0, Math.floor((expiresAt - request.now) / 1000))}`,
    "Content-Security-Policy": "default-src 'none'; sandbox",
  };
  const { ifNoneMatch } = request;
  if (ifNoneMatch !== undefined && ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) {
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
      "Content-Disposition": `inline; filename="${filename}"`,
    },
    body: stored.body,
  };
}
