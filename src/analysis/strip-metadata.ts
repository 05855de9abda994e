/*
 * The original image with what it says about itself removed and its coded image data kept byte for
 * byte, for a detection provider (docs/signals.md, "What each provider is sent"): a re-encode erases
 * the compression traces detectors read, and the metadata (EXIF with GPS, XMP, C2PA, PNG text with
 * prompts) is the capturer's, not the provider's to keep. A container walk, no decode:
 * - JPEG: every segment is kept but APPn and COM, except APP0 `JFIF` (no thumbnail), APP2
 *   `ICC_PROFILE` (the colours as captured) and APP14 `Adobe` (its colour transform decides how the
 *   components decode); the scans (headers and entropy-coded data) are kept as they are; anything
 *   after EOI (appended images, trailers) is dropped.
 * - PNG: the chunks that make the pixels (IHDR, PLTE, IDAT, IEND, tRNS and the colour chunks gAMA,
 *   cHRM, sRGB, iCCP, sBIT, cICP, mDCv, cLLi); every other chunk (tEXt, zTXt, iTXt, eXIf, caBX, tIME,
 *   pHYs, private ones) is dropped. Animated PNGs are refused (the analysis reads one frame).
 * - WebP: VP8, VP8L, ALPH, ICCP and VP8X with its EXIF and XMP flags cleared; EXIF, `XMP `, C2PA and
 *   unknown chunks are dropped, and the RIFF size is rewritten. Animated WebPs are refused.
 * - HEIC/HEIF is not stripped: its metadata items are addressed by offsets in `iloc` that a removal
 *   would have to rewrite; the caller sends the bounded re-encode instead.
 * A file whose structure does not hold (a length past the end, no IHDR first, no EOI) is refused: the
 * caller falls back to the re-encode. Bounded: one pass, at most MAX_PARTS pieces, and the result is
 * assembled only when it fits the caller's limit.
 */

export type StripResult =
  | { ok: true; bytes: Uint8Array; removed: string[] }
  /** The stripped image would be `size` bytes, over the limit: nothing was assembled. */
  | { ok: false; reason: "too_large"; size: number }
  | { ok: false; reason: "unsupported" | "malformed"; detail: string };

/** Pieces (kept runs and rewritten headers) a result may have: a file cut into more is refused. */
export const MAX_PARTS = 4096;

export function stripMetadata(bytes: Uint8Array, mediaType: string, maxBytes: number): StripResult {
  let plan: Plan;
  try {
    if (mediaType === "image/jpeg") plan = planJpeg(bytes);
    else if (mediaType === "image/png") plan = planPng(bytes);
    else if (mediaType === "image/webp") plan = planWebp(bytes);
    else return { ok: false, reason: "unsupported", detail: `${mediaType} is not stripped` };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, reason: err.reason, detail: err.message };
    throw err;
  }
  const size = plan.parts.reduce((sum, p) => sum + p.length, 0);
  if (size > maxBytes) return { ok: false, reason: "too_large", size };
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of plan.parts) {
    out.set(part, at);
    at += part.length;
  }
  return { ok: true, bytes: out, removed: plan.removed };
}

interface Plan {
  parts: Uint8Array[];
  removed: string[];
}

class Refused extends Error {
  constructor(
    readonly reason: "unsupported" | "malformed",
    message: string,
  ) {
    super(message);
  }
}

const malformed = (why: string) => new Refused("malformed", why);

/** Collects kept ranges of `bytes`, merging adjacent ones, within MAX_PARTS. */
class Parts {
  readonly parts: Uint8Array[] = [];
  readonly removed = new Set<string>();
  private drops = 0;
  private start = -1;
  private end = -1;
  constructor(private readonly bytes: Uint8Array) {}
  keep(from: number, to: number) {
    if (from === this.end) {
      this.end = to;
      return;
    }
    this.flush();
    this.start = from;
    this.end = to;
  }
  /** A dropped segment or chunk, by name. */
  drop(name: string) {
    if ((this.drops += 1) > MAX_PARTS) throw malformed(`more than ${MAX_PARTS} metadata segments`);
    this.removed.add(name);
  }
  plan(): Plan {
    return { parts: this.done(), removed: [...this.removed] };
  }
  insert(piece: Uint8Array) {
    this.flush();
    this.push(piece);
  }
  done(): Uint8Array[] {
    this.flush();
    return this.parts;
  }
  private flush() {
    if (this.start >= 0 && this.end > this.start) this.push(this.bytes.subarray(this.start, this.end));
    this.start = this.end = -1;
  }
  private push(piece: Uint8Array) {
    if (this.parts.length >= MAX_PARTS) throw malformed(`more than ${MAX_PARTS} pieces`);
    this.parts.push(piece);
  }
}

const ascii = (bytes: Uint8Array, at: number, length: number) => String.fromCharCode(...bytes.subarray(at, at + length));

// JPEG ----------------------------------------------------------------------------------------------

const SOS = 0xda;
const EOI = 0xd9;

/** Which APPn segments are kept, by marker and identifier: none of them describes the capture. */
function keptApp(bytes: Uint8Array, marker: number, body: number, length: number): boolean {
  if (marker === 0xe0) return ascii(bytes, body, 5) === "JFIF\0" && length >= 14 && bytes[body + 12] === 0 && bytes[body + 13] === 0;
  if (marker === 0xe2) return ascii(bytes, body, 12) === "ICC_PROFILE\0";
  if (marker === 0xee) return ascii(bytes, body, 5) === "Adobe";
  return false;
}

function appName(bytes: Uint8Array, marker: number, body: number): string {
  if (marker === 0xfe) return "COM";
  const id = ascii(bytes, body, 12).split("\0")[0]!.replace(/[^\x20-\x7e]/g, "");
  return `APP${marker - 0xe0}${id ? ` ${id}` : ""}`;
}

function planJpeg(bytes: Uint8Array): Plan {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) throw malformed("no JPEG SOI");
  const parts = new Parts(bytes);
  parts.keep(0, 2);
  let i = 2;
  let scans = 0;
  for (;;) {
    if (i + 2 > bytes.length) throw malformed("JPEG ends before EOI");
    if (bytes[i] !== 0xff) throw malformed(`JPEG: no marker at byte ${i}`);
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if (marker === EOI) {
      if (scans === 0) throw malformed("JPEG without a scan");
      parts.keep(i, i + 2);
      if (i + 2 < bytes.length) parts.drop("data after EOI");
      return parts.plan();
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) throw malformed(`JPEG: unexpected marker 0x${marker.toString(16)} at byte ${i}`);
    if (i + 4 > bytes.length) throw malformed("JPEG segment header past the end");
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    const end = i + 2 + length;
    if (length < 2 || end > bytes.length) throw malformed(`JPEG segment 0x${marker.toString(16)} runs past the end`);
    const isApp = (marker >= 0xe0 && marker <= 0xef) || marker === 0xfe;
    if (isApp && !keptApp(bytes, marker, i + 4, length - 2)) parts.drop(appName(bytes, marker, i + 4));
    else parts.keep(i, end);
    i = end;
    if (marker === SOS) {
      scans += 1;
      const next = entropyEnd(bytes, i);
      parts.keep(i, next);
      i = next;
    }
  }
}

/** Where a scan's entropy-coded data ends: the first marker that is neither a stuffed 0x00 nor RSTn. */
function entropyEnd(bytes: Uint8Array, from: number): number {
  let i = from;
  for (;;) {
    const ff = bytes.indexOf(0xff, i);
    if (ff < 0 || ff + 1 >= bytes.length) throw malformed("JPEG scan runs to the end without a marker");
    const next = bytes[ff + 1]!;
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) i = ff + 2;
    else if (next === 0xff) i = ff + 1;
    else return ff;
  }
}

// PNG -----------------------------------------------------------------------------------------------

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG_KEPT = new Set(["IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "cICP", "mDCv", "cLLi"]);

function planPng(bytes: Uint8Array): Plan {
  if (bytes.length < 8 || PNG_SIGNATURE.some((b, k) => bytes[k] !== b)) throw malformed("no PNG signature");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts = new Parts(bytes);
  parts.keep(0, 8);
  let i = 8;
  let first = true;
  for (;;) {
    if (i + 12 > bytes.length) throw malformed("PNG ends before IEND");
    const length = view.getUint32(i);
    const type = ascii(bytes, i + 4, 4);
    const end = i + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) throw malformed(`PNG chunk ${JSON.stringify(type)} runs past the end`);
    if (first && type !== "IHDR") throw malformed("PNG whose first chunk is not IHDR");
    if (type === "acTL") throw new Refused("unsupported", "animated PNG");
    if (PNG_KEPT.has(type)) parts.keep(i, end);
    else parts.drop(type);
    first = false;
    i = end;
    if (type === "IEND") {
      if (i < bytes.length) parts.drop("data after IEND");
      return parts.plan();
    }
  }
}

// WebP ----------------------------------------------------------------------------------------------

const WEBP_KEPT = new Set(["VP8 ", "VP8L", "ALPH", "ICCP", "VP8X"]);
const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;
const VP8X_ANIMATION = 0x02;

function planWebp(bytes: Uint8Array): Plan {
  if (bytes.length < 20 || ascii(bytes, 0, 4) !== "RIFF" || ascii(bytes, 8, 4) !== "WEBP") throw malformed("not a RIFF WEBP file");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const riffEnd = 8 + view.getUint32(4, true);
  if (riffEnd > bytes.length || riffEnd < 20) throw malformed("WebP RIFF size runs past the end");
  const parts = new Parts(bytes);
  const header = new Uint8Array(12);
  header.set(bytes.subarray(0, 12));
  parts.insert(header);
  let i = 12;
  let size = 4;
  let image = false;
  while (i < riffEnd) {
    if (i + 8 > riffEnd) throw malformed("WebP chunk header past the RIFF end");
    const fourcc = ascii(bytes, i, 4);
    const length = view.getUint32(i + 4, true);
    const end = i + 8 + length + (length & 1);
    if (i + 8 + length > riffEnd) throw malformed(`WebP chunk ${JSON.stringify(fourcc)} runs past the RIFF end`);
    const stop = Math.min(end, riffEnd);
    if (fourcc === "ANIM" || fourcc === "ANMF") throw new Refused("unsupported", "animated WebP");
    if (fourcc === "VP8X") {
      if (length < 10) throw malformed("WebP VP8X chunk too short");
      if (bytes[i + 8]! & VP8X_ANIMATION) throw new Refused("unsupported", "animated WebP");
      const vp8x = bytes.slice(i, stop);
      vp8x[8] = vp8x[8]! & ~(VP8X_EXIF | VP8X_XMP);
      parts.insert(vp8x);
      size += vp8x.length;
    } else if (WEBP_KEPT.has(fourcc)) {
      parts.keep(i, stop);
      size += stop - i;
      if (fourcc === "VP8 " || fourcc === "VP8L") image = true;
    } else {
      parts.drop(fourcc.trimEnd());
    }
    i = end;
  }
  if (!image) throw malformed("WebP without a VP8 or VP8L chunk");
  if (riffEnd < bytes.length) parts.drop("data after the RIFF chunk");
  new DataView(header.buffer).setUint32(4, size, true);
  return parts.plan();
}
