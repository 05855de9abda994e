import CRC32 from "crc-32";
import { sha256Hex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { BURST_LIMITS, type CaptureIntegrityUpload, type CaptureIntegrityV2 } from "../../schemas/capture-integrity";
import { burstKeysFor, putEvidence } from "../../storage/evidence";
import { decodeBase64Image } from "./media";

/*
 * A live capture's burst at the door (CONTRACT.md, fifth release): both PNG strips decoded from
 * base64 within their byte budgets, their header the declared shape (8-bit greyscale, not
 * interlaced, the declared frame size times the frame count), or 400 naming the field; then stored
 * beside the photo (R2, keyed by digest) and recorded on the capture without their bytes. Their
 * pixels are the analysis's to read and measure (analysis/burst/: a strip whose data does not
 * inflate reads `burst_unreadable`), as a photo's are: no decoder runs in the Worker that serves
 * capture links (scripts/check-bundle.ts).
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
  const refused = stripShapeProblem(bytes, width, height * count);
  if (refused) throw ApiError.invalid({ [field]: `Not a burst strip: ${refused}.` });
  return { bytes, sha256: await sha256Hex(bytes) };
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * Why `bytes` is not a PNG whose first chunk declares an 8-bit greyscale, non-interlaced `width` ×
 * `height` image, made of whole chunks, each with its CRC, with image data (IDAT only, nothing else)
 * up to an empty IEND that ends the file, as the page writes it (null: it is). A strip is stored as evidence: one whose chunk
 * claimed 4 GiB (forge probe of 2026-12-04), and one with corrupted bytes (probe of 2026-12-05), were
 * stored and measured. Whether the data inflates is the analysis's (`burst_unreadable`).
 */
function stripShapeProblem(bytes: Uint8Array, width: number, height: number): string | null {
  if (bytes.length < 33 || PNG_SIGNATURE.some((b, i) => bytes[i] !== b)) return "not a PNG";
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = String.fromCharCode(...bytes.subarray(12, 16));
  if (view.getUint32(8) !== 13 || type !== "IHDR") return "its first chunk is not a PNG header";
  // IHDR: width, height, bit depth, colour type, compression, filter, interlace.
  const [w, h, depth, colour, compression, filter, interlace] = [view.getUint32(16), view.getUint32(20), bytes[24], bytes[25], bytes[26], bytes[27], bytes[28]];
  if (depth !== 8 || colour !== 0 || compression !== 0 || filter !== 0 || interlace !== 0) return `not 8-bit greyscale and not interlaced (depth ${depth}, colour type ${colour}, interlace ${interlace})`;
  if (w !== width || h !== height) return `${w}x${h}, not the ${width}x${height} its frames declare`;
  return chunksProblem(bytes, view);
}

/**
 * Each chunk is at least 12 bytes, so the walk ends within bytes.length / 12 steps of a budgeted
 * strip, and the CRCs read each byte once.
 */
function chunksProblem(bytes: Uint8Array, view: DataView): string | null {
  let imageData = false;
  for (let at = 8; at + 12 <= bytes.length; ) {
    const end = at + 12 + view.getUint32(at);
    if (end > bytes.length) return `its chunk at byte ${at} runs past the end of the file`;
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    // The CRC covers the chunk's type and data (PNG, section 5.3).
    if (CRC32.buf(bytes.subarray(at + 4, end - 4)) >>> 0 !== view.getUint32(end - 4)) return `its chunk at byte ${at}${/^[A-Za-z]{4}$/.test(type) ? ` (${type})` : ""} fails its CRC`;
    // Only the chunks the page writes: a strip carries frames, not text or private data (probe of 2026-12-06).
    const allowed = at === 8 ? type === "IHDR" : type === "IDAT" || type === "IEND";
    if (!allowed) return `it holds a ${/^[A-Za-z]{4}$/.test(type) ? type : "non-PNG"} chunk at byte ${at}: a strip is IHDR, then IDAT and IEND only`;
    if (type === "IDAT") imageData = true;
    if (type === "IEND") {
      if (!imageData) return "it holds no image data";
      if (end - at !== 12) return "its IEND chunk carries data (an IEND is empty)";
      return end === bytes.length ? null : "bytes follow its IEND chunk";
    }
    at = end;
  }
  return "it ends without an IEND chunk";
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
