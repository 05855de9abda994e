import { captureWithDigest, sha256Hex, type CertificatePayload, type CertifiedCapture } from "../../clients/typescript/src/certificate";

/** Photos larger than this are not read (the service takes at most 25 MB per file). */
export const MAX_PHOTO_BYTES = 64 * 1024 * 1024;

export type PhotoCheck =
  | { file: string; outcome: "match"; capture: CertifiedCapture; sha256: string }
  | { file: string; outcome: "match_with_credentials"; capture: CertifiedCapture; sha256: string }
  | { file: string; outcome: "not_in_certificate"; sha256: string }
  | { file: string; outcome: "too_large" };

/**
 * Hashes a dropped or chosen file in this browser (nothing leaves it) and finds its capture in the
 * certificate. A file that does not match is hashed again without the segments a C2PA manifest
 * lives in (JPEG APP11, PNG caBX, WebP `C2PA` with the RIFF size put back): a copy downloaded with
 * Content Credentials (a capture's `credentials_url`) is the certified photo plus those, and matches
 * that way. A HEIC/HEIF copy cannot (its boxes moved, their locations rewritten). The manifest
 * itself is not validated here (a C2PA validator does that).
 */
export async function checkPhoto(file: File, payload: CertificatePayload): Promise<PhotoCheck> {
  if (file.size > MAX_PHOTO_BYTES) return { file: file.name, outcome: "too_large" };
  const bytes = new Uint8Array(await file.arrayBuffer());
  const sha256 = await sha256Hex(bytes);
  const capture = captureWithDigest(payload, sha256);
  if (capture) return { file: file.name, outcome: "match", capture, sha256 };
  const stripped = withoutC2pa(bytes);
  const credentialed = stripped ? captureWithDigest(payload, await sha256Hex(stripped)) : undefined;
  return credentialed ? { file: file.name, outcome: "match_with_credentials", capture: credentialed, sha256 } : { file: file.name, outcome: "not_in_certificate", sha256 };
}

/** The file without its C2PA segments (JPEG APP11 before the scan, PNG `caBX`, WebP `C2PA` chunks), or null when it has none or is none of those formats. */
export function withoutC2pa(bytes: Uint8Array): Uint8Array | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    const parts: Uint8Array[] = [bytes.subarray(0, 2)];
    let i = 2;
    let removed = false;
    // Marker segments up to the first scan (SOS): each is FF xx and a two-byte length that counts itself.
    while (i + 4 <= bytes.length && bytes[i] === 0xff && bytes[i + 1] !== 0xda) {
      const end = i + 2 + ((bytes[i + 2]! << 8) | bytes[i + 3]!);
      if (end > bytes.length) return null;
      if (bytes[i + 1] === 0xeb) removed = true;
      else parts.push(bytes.subarray(i, end));
      i = end;
    }
    return removed ? concat([...parts, bytes.subarray(i)]) : null;
  }
  const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (PNG.every((b, k) => bytes[k] === b)) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const parts: Uint8Array[] = [bytes.subarray(0, 8)];
    let removed = false;
    for (let i = 8; i + 12 <= bytes.length; ) {
      const end = i + 12 + view.getUint32(i);
      if (end > bytes.length) return null;
      if (String.fromCharCode(...bytes.subarray(i + 4, i + 8)) === "caBX") removed = true;
      else parts.push(bytes.subarray(i, end));
      i = end;
    }
    return removed ? concat(parts) : null;
  }
  if (ascii(bytes, 0) === "RIFF" && ascii(bytes, 8) === "WEBP") {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const parts: Uint8Array[] = [bytes.subarray(0, 12)];
    let removed = false;
    for (let i = 12; i + 8 <= bytes.length; ) {
      const length = view.getUint32(i + 4, true);
      const end = i + 8 + length + (length & 1);
      if (end > bytes.length) return null;
      if (ascii(bytes, i) === "C2PA") removed = true;
      else parts.push(bytes.subarray(i, end));
      i = end;
    }
    if (!removed) return null;
    // The RIFF size grew by the chunk: put it back.
    const out = concat(parts);
    new DataView(out.buffer).setUint32(4, out.length - 8, true);
    return out;
  }
  return null;
}

function ascii(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + 4));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
