import canonicalize from "canonicalize";
import { captureOwner } from "../../db/captures";
import type { Db } from "../../db/client";
import { loadTenantRecord } from "../../db/verifications";
import { settings } from "../../env";
import { c2paSignerConfig, type C2paSignerConfig } from "../../lib/c2pa-signer-config";
import { sha256Hex, toHex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { noneMatchHits } from "../../lib/http";
import { withCredentialsSigningTurn } from "../public-limits";
import { FILE_EXTENSIONS } from "../../schemas/steps";
import { credentialsKeyFor, openEvidence } from "../../storage/evidence";
import type { EvidenceRef } from "../../storage/evidence-urls";
import { capturesForReport } from "../evidence/captures";
import { captureFacts, type CaptureFacts } from "./facts";
import { takesCaptures } from "../../model/verification/capture-credential";
import { deploymentName, isSignable, signerKid, type SignableMediaType } from "./offer";
import { UnextendableStoreError } from "./arrived-store";
import { embedCredentials } from "./manifest";
import { credentialsSigner } from "./signer";

export const SOFTWARE_AGENT = { name: "verification-service", version: "0.1.0" };

export interface ServedCredentials {
  status: 200 | 304;
  headers: Record<string, string>;
  body: ReadableStream | Uint8Array | null;
}

/**
 * The received image with the deployment's signed manifest (domain/credentials/manifest.ts), behind
 * a verified `credentials` evidence token. Signed on the first request and kept in R2 under the
 * verification's prefix (so redaction and retention delete it with the rest), keyed by the signer
 * and a digest of the facts: a rotated signer or facts that changed sign a new copy, the same ones
 * serve the stored copy. 404 when there is nothing to sign (redacted, another image, analysis not
 * completed, a format that cannot carry a manifest in place, too large, a manifest store it arrived
 * with that cannot be extended). A signing takes its isolate's turn (CREDENTIALS_SIGNINGS: 429 while
 * its queue is full); a stored copy or a 304 never waits.
 */
export async function serveCredentials(env: Env, db: Db, ref: EvidenceRef, request: { ifNoneMatch: string | undefined; cacheControl: string }): Promise<ServedCredentials> {
  const config = c2paSignerConfig(env);
  const owner = config ? await captureOwner(db, ref.captureId) : null;
  const record = owner ? await loadTenantRecord(db, owner.tenantId, owner.verificationId) : null;
  const capture = record?.captures.find((c) => c.id === ref.captureId);
  if (!config || !owner || !record || !capture || record.row.redactedAt !== null || capture.sha256 !== ref.sha256) throw ApiError.notFound("evidence object");
  const [reported] = await capturesForReport(db, { ...record, captures: [capture] });
  const { baseUrl } = settings(env);
  const open = takesCaptures({ status: record.row.status, expiresAt: record.row.expiresAt, redacted: false }, Date.now());
  const facts = captureFacts(reported!.view, { tenantId: owner.tenantId, serviceName: deploymentName(env), serviceUrl: baseUrl, takesCaptures: open });
  const mediaType = capture.contentType;
  if (!facts || !reported!.credentialsOffered || !isSignable(mediaType)) throw ApiError.notFound("evidence object");

  const kid = await signerKid(config);
  const factsDigest = await sha256Hex(`${kid}\n${canonicalize(facts)}`);
  const key = credentialsKeyFor(owner.verificationId, capture.id, mediaType, factsDigest);
  const headersOf = (sha256: string, size: number) => ({
    ETag: `"${sha256}"`,
    "Cache-Control": request.cacheControl,
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Content-Type": capture.contentType,
    "Content-Length": String(size),
    "Content-Disposition": `attachment; filename="${capture.id}.c2pa.${FILE_EXTENSIONS[mediaType]}"`,
  });
  const notModified = (sha256: string) => noneMatchHits(request.ifNoneMatch, `"${sha256}"`);

  // The stored copy's SHA-256 (recorded by R2 at the put) is its ETag: a 304 reads no body.
  const storedCopy = async (): Promise<ServedCredentials | null> => {
    const head = await env.EVIDENCE.head(key);
    const storedSha256 = head?.checksums.sha256 ? toHex(head.checksums.sha256) : null;
    if (!storedSha256) return null;
    if (notModified(storedSha256)) return { status: 304, headers: { ETag: `"${storedSha256}"`, "Cache-Control": request.cacheControl }, body: null };
    const stored = await openEvidence(env.EVIDENCE, key);
    return stored ? { status: 200, headers: headersOf(storedSha256, stored.size), body: stored.body } : null;
  };
  const served = await storedCopy();
  if (served) return served;

  // Only a signing takes the isolate's turn (CREDENTIALS_SIGNINGS); once it comes, another request
  // may have signed this very copy while this one waited: serve that one, never sign it twice.
  return withCredentialsSigningTurn(async () => {
    const signedMeanwhile = await storedCopy();
    if (signedMeanwhile) return signedMeanwhile;
    const ours = await signAndStore(env.EVIDENCE, { imageKey: capture.imageKey, sizeBytes: capture.sizeBytes, mediaType }, facts, config, kid, key);
    if (!ours) {
      // Another isolate stored its copy first: that one is served (streamed; ours is no longer held).
      const theirs = await storedCopy();
      if (!theirs) throw new Error(`credentials copy ${key}: another signing stored it, yet it cannot be read`);
      return theirs;
    }
    const { signed, sha256 } = ours;
    if (notModified(sha256)) return { status: 304, headers: { ETag: `"${sha256}"`, "Cache-Control": request.cacheControl }, body: null };
    return { status: 200, headers: headersOf(sha256, signed.length), body: signed };
  });
}

/**
 * Reads the received image from R2, signs a copy and stores it under `key`: the part of a download
 * that holds the image in memory (bench/credentials.ts measures it inside workerd at the 25 MB bound).
 * Null when a copy was stored under `key` first (another isolate's signing): serve that one.
 */
export async function signAndStore(
  bucket: R2Bucket,
  capture: { imageKey: string; sizeBytes: number; mediaType: SignableMediaType },
  facts: CaptureFacts,
  config: C2paSignerConfig,
  kid: string,
  key: string,
): Promise<{ signed: Uint8Array; sha256: string } | null> {
  const original = await openEvidence(bucket, capture.imageKey);
  if (!original) throw ApiError.notFound("evidence object");
  // Bounded before a byte is buffered (credentialsOffered checked the recorded size; the object is checked too).
  if (original.size !== capture.sizeBytes) {
    await original.body.cancel().catch(() => undefined);
    throw ApiError.notFound("evidence object");
  }
  const bytes = new Uint8Array(await original.arrayBuffer());
  const { signer } = await credentialsSigner(config, kid);
  let signed: Uint8Array;
  try {
    signed = await embedCredentials(bytes, capture.mediaType, facts, signer, SOFTWARE_AGENT);
  } catch (err) {
    if (err instanceof UnextendableStoreError) throw ApiError.notFound("evidence object");
    throw err;
  }
  const sha256 = await sha256Hex(signed);
  // Two isolates may both have found no copy and signed one (random ids make the two differ): the
  // first stored stays, so every download of this key is the same file.
  const stored = await bucket.put(key, signed, { httpMetadata: { contentType: capture.mediaType }, sha256, onlyIf: { etagDoesNotMatch: "*" } });
  return stored ? { signed, sha256 } : null;
}
