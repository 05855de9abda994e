import type { MediaType } from "../../schemas/steps";

/*
 * What a file's bytes are, read from its first bytes alone. One function for the server (which never
 * takes the client's word for a type) and the capture page (which declares a picked file by its
 * bytes, not its name, so an honest file with the wrong extension is sent as what it is).
 */

/** Every type the sniffer names: what any step takes at most (schemas/steps.ts MEDIA_TYPES, without zod for the page). */
export const IMAGE_MEDIA_TYPES: readonly MediaType[] = ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"];

/** Bytes enough to sniff any type below: an ISO-BMFF `ftyp` box with its compatible brands. */
export const SNIFF_HEAD_BYTES = 256;

const HEIC_BRANDS = new Set(["heic", "heix", "hevc", "hevx", "heim", "heis"]);
const HEIF_BRANDS = new Set(["mif1", "msf1", "heif"]);

function ascii(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length));
}

/**
 * The media type the bytes actually are (never the client's claim): JPEG, PNG, WebP, or HEIC/HEIF
 * from the ISO-BMFF `ftyp` brands. Null for anything else.
 */
export function sniffMediaType(bytes: Uint8Array): MediaType | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.length >= 8 && ascii(bytes, 0, 8) === "\x89PNG\r\n\x1a\n") return "image/png";
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return "image/webp";
  if (bytes.length >= 12 && ascii(bytes, 4, 4) === "ftyp") {
    const boxSize = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
    const major = ascii(bytes, 8, 4);
    if (HEIC_BRANDS.has(major)) return "image/heic";
    const end = Math.min(boxSize, bytes.length);
    const compatible: string[] = [];
    for (let i = 16; i + 4 <= end; i += 4) compatible.push(ascii(bytes, i, 4));
    if (compatible.some((b) => HEIC_BRANDS.has(b))) return "image/heic";
    // AVIF shares the HEIF container but is image/avif, which no step accepts.
    if (major === "avif" || major === "avis" || compatible.includes("avif")) return null;
    if (HEIF_BRANDS.has(major) || compatible.some((b) => HEIF_BRANDS.has(b))) return "image/heif";
  }
  return null;
}
