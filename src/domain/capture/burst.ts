import { readGreyStrip } from "../../analysis/burst/strip";
import { DecodeFailure } from "../../analysis/decoders/types";
import { sha256Hex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { BURST_LIMITS, type CaptureIntegrityUpload, type CaptureIntegrityV2 } from "../../schemas/capture-integrity";
import { burstKeysFor, putEvidence } from "../../storage/evidence";
import { decodeBase64Image } from "./media";

/*
 * A live capture's burst at the door (CONTRACT.md, fifth release): both PNG strips decoded from
 * base64 within their byte budgets and read whole (their size is the declared frame size times the
 * frame count, so reading them is bounded), or 400 naming the field; then stored beside the photo
 * (R2, keyed by digest) and recorded on the capture without their bytes. What they show is the
 * analysis's to measure (analysis/burst/).
 */

export interface ReceivedBurst {
  /** What the capture stores: the record without the PNG bytes, with their digests. */
  record: CaptureIntegrityV2;
  frames: Uint8Array;
  patches: Uint8Array;
}

const FIELD = "capture_integrity";

async function strip(text: string, field: string, maxBytes: number, width: number, height: number, count: number) {
  const bytes = decodeBase64Image(text);
  if (!bytes || bytes.length === 0) throw ApiError.invalid({ [field]: "Not valid base64." });
  if (bytes.length > maxBytes) throw ApiError.invalid({ [field]: `At most ${maxBytes} bytes decoded.` });
  try {
    readGreyStrip(bytes, width, height, count);
  } catch (err) {
    if (err instanceof DecodeFailure) throw ApiError.invalid({ [field]: `Not a readable burst strip: ${err.message}.` });
    throw err;
  }
  return { bytes, sha256: await sha256Hex(bytes) };
}

export async function receiveBurst(upload: CaptureIntegrityUpload): Promise<ReceivedBurst> {
  const { frames, patches } = upload;
  const [f, p] = await Promise.all([
    strip(frames.png_base64, `${FIELD}.frames.png_base64`, BURST_LIMITS.maxFramesBytes, frames.width, frames.height, frames.times_ms.length),
    strip(patches.png_base64, `${FIELD}.patches.png_base64`, BURST_LIMITS.maxPatchesBytes, patches.side, patches.side, patches.times_ms.length),
  ]);
  return {
    record: {
      schema_version: 2,
      nonce: upload.nonce,
      device: upload.device,
      preview: upload.preview,
      frames: { width: frames.width, height: frames.height, count: frames.times_ms.length, times_ms: frames.times_ms, sha256: f.sha256, bytes: f.bytes.length },
      patches: { side: patches.side, count: patches.times_ms.length, times_ms: patches.times_ms, sha256: p.sha256, bytes: p.bytes.length },
    },
    frames: f.bytes,
    patches: p.bytes,
  };
}

/** Stores the strips beside the capture's photo; returns their keys (an inline capture refused deletes them). */
export async function storeBurst(bucket: R2Bucket, verificationId: string, captureId: string, burst: ReceivedBurst): Promise<string[]> {
  const keys = burstKeysFor(verificationId, captureId, { frames: burst.record.frames.sha256, patches: burst.record.patches.sha256 });
  await Promise.all([
    putEvidence(bucket, keys.frames, burst.frames, "image/png", burst.record.frames.sha256),
    putEvidence(bucket, keys.patches, burst.patches, "image/png", burst.record.patches.sha256),
  ]);
  return [keys.frames, keys.patches];
}
