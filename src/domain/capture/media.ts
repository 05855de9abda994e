import type { MediaType } from "../../schemas/steps";

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

/** `image/JPEG; charset=x` → `image/jpeg`. */
export function normalizeContentType(value: string): string {
  return value.split(";")[0]!.trim().toLowerCase();
}

export const INLINE_MAX_BYTES = 6 * 1024 * 1024;

/** Decodes the inline shape's base64 (a `data:` URL prefix and whitespace are tolerated). */
export function decodeBase64Image(text: string): Uint8Array | null {
  const body = text.replace(/^data:[^,]*;base64,/, "").replace(/\s+/g, "");
  if (body.length === 0 || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(body)) return null;
  try {
    const binary = atob(body.replace(/-/g, "+").replace(/_/g, "/"));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** Upper bound on base64 characters that can decode to at most `bytes` bytes (plus a data-URL prefix). */
export function base64LengthLimit(bytes: number): number {
  return Math.ceil(bytes / 3) * 4 + 256;
}
