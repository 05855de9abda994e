import type { UploadRow } from "../../db/uploads";
import type { VerificationRecord } from "../../db/verifications";
import { errorResult, invalidResult, type ErrorResult } from "../../lib/errors";
import { maxEvidenceBytes, type VerificationConfig } from "./config";
import { CAPTURE_WINDOW_MS } from "./orphan-sweep";
import { checkUploadMint } from "./transitions";

/*
 * The rules of upload slots: how many open upload URLs a verification may hold, what a capture may
 * take, and what the verification's Durable Object keeps of a slot it minted. Pure: the inserts and
 * reads are durable-objects/verification/upload-slots.ts and db/uploads.ts.
 */

/** How long an upload URL may be used. */
export const UPLOAD_TTL_MS = 5 * 60 * 1000;
/** A depth map is small (a 16-bit PNG at sensor resolution); 10 MB leaves ample room. */
export const FORENSIC_BUFFER_MAX_BYTES = 10 * 1024 * 1024;
export type UploadKind = UploadRow["kind"];

/** Open upload URLs a verification may hold per kind: twice the captures it can still take. */
export function openUploadCap(config: VerificationConfig, capturesCount: number): number {
  return 2 * Math.max(0, config.max_captures - capturesCount);
}

/**
 * What a capture needs to know of an upload: the columns of its row that the capture checks and,
 * once the bytes were read (by the Worker's upload route, or by the capture that took them), their
 * digest. The verification's Durable Object keeps the slots it minted (`VerificationObject#uploadFor`).
 */
export type UploadSlot = Pick<
  UploadRow,
  "id" | "verificationId" | "kind" | "objectKey" | "contentType" | "maxBytes" | "expiresAt" | "status" | "sizeBytes" | "sha256" | "sniffedType"
>;

/** An "uploading" claim older than this was abandoned (the Worker died mid-upload): the URL may be used again. */
export const STALE_CLAIM_MS = 60 * 1000;

/**
 * A slot as the verification's object keeps it (durable-objects/verification/upload-slots.ts): the
 * row's columns, and when the Worker-proxied PUT now storing its bytes claimed it (`claimSlot`).
 */
export type KeptSlot = UploadSlot & { claimedAt?: number | null };

/** A row as its object keeps it (a slot minted before the object kept every slot). */
export function keptSlotOf(row: UploadRow): KeptSlot {
  const { id, verificationId, kind, objectKey, contentType, maxBytes, expiresAt, status, sizeBytes, sha256, sniffedType, claimedAt } = row;
  return { id, verificationId, kind, objectKey, contentType, maxBytes, expiresAt, status, sizeBytes, sha256, sniffedType, claimedAt };
}

/** What a PUT's body would store: its media type and the size it declares. */
export interface UploadFit {
  contentType: string;
  sizeBytes: number;
}

/** The digest of a PUT's bytes, as the upload route stored them. */
export interface StoredDigest {
  sizeBytes: number;
  sha256: string;
  sniffedType: string | null;
}

/**
 * The claim of a PUT on a slot (single use): only a free slot (minted, or its claim abandoned:
 * older than `STALE_CLAIM_MS`) that the body fits (its media type, its size); null otherwise, and
 * for a body that cannot be stored at all (`fits` null).
 */
export function claimSlot(slot: KeptSlot, fits: UploadFit | null, now: number): KeptSlot | null {
  const free = slot.status === "minted" || (slot.status === "uploading" && (slot.claimedAt ?? 0) <= now - STALE_CLAIM_MS);
  if (!free || !fits || fits.contentType !== slot.contentType || fits.sizeBytes > slot.maxBytes) return null;
  return { ...slot, status: "uploading", claimedAt: now };
}

/** An upload about to be minted: its row, and what its insert checks (`insertUpload`). */
export interface UploadMint {
  slot: UploadSlot;
  /** open uploads of this kind the verification may hold (`openUploadCap`) */
  cap: number;
  /** presigned straight to R2: the Worker never sees the bytes before the capture reads them */
  direct: boolean;
  now: number;
}

/** An upload URL asked for: what the request alone decides (the route's part), completed from the verification by `planUpload`. */
export interface UploadRequest {
  /** the upload's id (a capture id: the capture that takes the bytes gets it) */
  id: string;
  kind: UploadKind;
  /** where its bytes go (`objectKeyFor`, under the verification's prefix) */
  objectKey: string;
  /** already accepted for `kind` (a refused type is the request body's 415) */
  contentType: string;
  direct: boolean;
  now: number;
}

/** The verification's part of a mint: the columns `planUpload` reads (a row, or the record its object holds). */
type MintableState = Parameters<typeof checkUploadMint>[0] & { id: string };

/**
 * The upload a request may mint in this verification as it stands: refused with 410 once the link is
 * dead, 409 `step_full` once every slot is used, 409 `invalid_state` once finished or submitted
 * (`checkUploadMint`); else its slot (no URL outlives the verification's `expires_at`; its size bound
 * is the verification's largest evidence step's) and its cap of open uploads (`openUploadCap`).
 */
export function planUpload(state: MintableState, request: UploadRequest): { ok: true; mint: UploadMint } | ErrorResult {
  const { id, kind, objectKey, contentType, direct, now } = request;
  const refused = checkUploadMint(state, now);
  if (refused) return refused;
  const slot: UploadSlot = {
    id,
    verificationId: state.id,
    kind,
    objectKey,
    contentType,
    maxBytes: kind === "image" ? maxEvidenceBytes(state.config) : FORENSIC_BUFFER_MAX_BYTES,
    expiresAt: Math.min(now + UPLOAD_TTL_MS, state.expiresAt),
    status: "minted",
    sizeBytes: null,
    sha256: null,
    sniffedType: null,
  };
  return { ok: true, mint: { slot, cap: openUploadCap(state.config, state.capturesCount), direct, now } };
}

/** Where an upload key is named: which kind of upload it must be, and the request field for errors. */
export interface UploadUse {
  verificationId: string;
  kind: UploadKind;
  field: string;
  now: number;
  /** A capture already holds this key: a retry, taken whenever it comes (the window does not apply). */
  persisted?: boolean;
}

/**
 * Whether an upload key may be captured: it names an upload of this verification and kind (400
 * otherwise) whose bytes are not orphaned yet (`CAPTURE_WINDOW_MS` after its URL expired: 409
 * `upload_expired`; 410 is the dead link's alone), unless a capture already holds it (a retry).
 */
export function checkSlot(slot: UploadSlot | null, use: UploadUse): ErrorResult | null {
  if (!slot || slot.verificationId !== use.verificationId || slot.kind !== use.kind) {
    return invalidResult({ [use.field]: `Unknown ${use.field} for this verification; mint one with captures/upload-url.` });
  }
  if (!use.persisted && use.now >= slot.expiresAt + CAPTURE_WINDOW_MS) {
    return errorResult("upload_expired", `This ${use.field} was not captured within an hour of its upload URL's expiry; upload the image again with a new upload URL.`);
  }
  return null;
}

/** A kept slot as the capture that took its bytes left it: their digest, so a retry reads nothing. */
export function withDigest(slot: UploadSlot, record: VerificationRecord): UploadSlot {
  const capture = record.captures.find((c) => c.imageKey === slot.objectKey);
  if (!capture) return slot;
  return { ...slot, status: "uploaded", sizeBytes: capture.sizeBytes, sha256: capture.sha256, sniffedType: capture.contentType };
}

/**
 * Where single use is decided for an upload URL: its verification's object
 * (`VerificationObject#claimUpload` and the two after it), which keeps the slot's claim. The upload
 * route (domain/capture/uploads.ts#receiveUpload) uses one per PUT.
 */
export interface UploadDesk {
  claim(claim: { uploadId: string; fits: UploadFit | null; now: number }): Promise<{ ok: true; slot: UploadSlot; claimed: boolean } | ErrorResult>;
  finish(done: { objectKey: string; claimedAt: number; digest: StoredDigest; now: number }): Promise<{ ok: true; slot: UploadSlot } | ErrorResult>;
  release(objectKey: string, claimedAt: number): Promise<void>;
}

/** The desk of each verification, and how an upload URL that does not name its verification finds it. */
export interface UploadDesks {
  at(verificationId: string): UploadDesk;
  locate(uploadId: string): Promise<string | null>;
}
