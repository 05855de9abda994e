import { readC2pa, type C2paSummary } from "./c2pa";
import type { C2paTrust } from "./c2pa-trust";
import exifr from "./exif-reader";
import { pngMetadata, webpMetadata, type ContainerMetadata } from "./metadata-chunks";

/** What the file says about itself, parsed once per capture (exifr, PNG text chunks, C2PA). */
export interface ImageMetadata {
  make: string | null;
  model: string | null;
  software: string | null;
  /** EXIF DateTimeOriginal as written by the camera (local time, no zone: kept as text). */
  date_time_original: string | null;
  user_comment: string | null;
  gps: { lat: number; lng: number; accuracy_m: number | null } | null;
  /** IPTC/XMP `DigitalSourceType` values found in XMP packets. */
  digital_source_types: string[];
  /** XMP `CreatorTool`, a generator's self-declared name when present. */
  creator_tool: string | null;
  /** PNG tEXt/zTXt/iTXt chunks (keys as written), read without decoding the pixels. */
  png_text: Record<string, string>;
  c2pa: C2paSummary | null;
  /** JPEG COM segments (a documented test marker may ride here or in a PNG `vfy-test` chunk). */
  comments: string[];
  /** Metadata blocks that could not be parsed (the analysis goes on without them). */
  errors: string[];
}

/**
 * What exifr reads, one object for every parse: exifr caches its parsed options in a Map keyed by
 * this object (exifr/src/options.mjs `useCached`), so a fresh literal per photo stayed in the
 * isolate for good (about 3 KB a photo, found by `npm run bench:memory`).
 */
const EXIF_OPTIONS = {
  tiff: true,
  exif: true,
  gps: true,
  xmp: true,
  userComment: true,
  translateValues: false,
  reviveValues: false,
} as const;

/**
 * `trust`: the deployment's C2PA trust configuration, or a list of pinned SHA-256 fingerprints added
 * to the shipped C2PA Trust List.
 */
export async function readMetadata(bytes: Uint8Array, mediaType: string, trust: C2paTrust | readonly string[]): Promise<ImageMetadata> {
  const out: ImageMetadata = {
    make: null,
    model: null,
    software: null,
    date_time_original: null,
    user_comment: null,
    gps: null,
    digital_source_types: [],
    creator_tool: null,
    png_text: {},
    c2pa: null,
    comments: [],
    errors: [],
  };
  if (mediaType === "image/jpeg") out.comments = jpegComments(bytes);
  // PNG and WebP keep EXIF and XMP in chunks of their own; JPEG and HEIC are exifr's to read whole.
  const container: ContainerMetadata | null = mediaType === "image/png" ? pngMetadata(bytes) : mediaType === "image/webp" ? webpMetadata(bytes) : null;
  if (container) {
    out.png_text = container.text;
    out.errors.push(...container.errors);
  }
  const exifSource = container ? container.exif : bytes;
  if (exifSource) {
    try {
      const exif = await exifr.parse(exifSource, EXIF_OPTIONS);
      if (exif) applyExif(out, exif as Record<string, unknown>);
    } catch (err) {
      out.errors.push(`exif: ${String(err)}`);
    }
  }
  if (container?.xmp) collectXmp(out, container.xmp);
  try {
    out.c2pa = await readC2pa(bytes, trust);
  } catch (err) {
    out.errors.push(`c2pa: ${String(err)}`);
  }
  return out;
}

function text(value: unknown): string | null {
  if (typeof value === "string") return value.replace(/\0+$/, "").trim() || null;
  return null;
}

function applyExif(out: ImageMetadata, exif: Record<string, unknown>): void {
  out.make = text(exif.Make);
  out.model = text(exif.Model);
  out.software = text(exif.Software);
  out.date_time_original = text(exif.DateTimeOriginal) ?? text(exif.CreateDate);
  // 37510 (0x9286): UserComment outside the Exif IFD, where exifr leaves it unnamed (ComfyUI's
  // "SaveImage Plus" writes its graph in IFD0).
  out.user_comment = decodeUserComment(exif.UserComment ?? exif.userComment ?? exif[37510]);
  const lat = exif.latitude;
  const lng = exif.longitude;
  if (typeof lat === "number" && typeof lng === "number" && isFix(lat, lng, exif.GPSStatus)) {
    const accuracy = exif.GPSHPositioningError;
    out.gps = { lat, lng, accuracy_m: typeof accuracy === "number" && accuracy > 0 ? accuracy : null };
  }
  for (const [key, value] of deepEntries(exif)) {
    if (key === "DigitalSourceType" && typeof value === "string") out.digital_source_types.push(value.trim());
    if (key === "CreatorTool" && typeof value === "string") out.creator_tool = value.trim();
  }
}

/**
 * A GPS block is a fix only if the file does not call it void (GPSStatus "V": "measurement void")
 * and it is not 0°, 0°: cameras without a fix write zeros there, and a reading of exactly both is a
 * placeholder, not a place (a fix in the Gulf of Guinea would read as "device elsewhere").
 */
function isFix(lat: number, lng: number, status: unknown): boolean {
  if (typeof status === "string" && status.trim().toUpperCase() === "V") return false;
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) return false;
  return lat !== 0 || lng !== 0;
}

/** Regex reading of a raw XMP packet (PNG iTXt, WebP `XMP `), for the two properties the signals use. */
function collectXmp(out: ImageMetadata, xmp: string): void {
  for (const m of xmp.matchAll(/DigitalSourceType(?:="([^"]+)"|>([^<]+)<)/g)) out.digital_source_types.push((m[1] ?? m[2] ?? "").trim());
  const tool = /CreatorTool(?:="([^"]+)"|>([^<]+)<)/.exec(xmp);
  if (tool) out.creator_tool = (tool[1] ?? tool[2] ?? "").trim();
}

function* deepEntries(value: unknown, depth = 0): Generator<[string, unknown]> {
  if (depth > 4 || typeof value !== "object" || value === null || value instanceof Uint8Array) return;
  for (const [k, v] of Object.entries(value)) {
    yield [k, v];
    yield* deepEntries(v, depth + 1);
  }
}

/**
 * EXIF UserComment: 8-byte character-code header (`ASCII\0\0\0`, `UNICODE\0`, …) then the text.
 * A1111-style generators write their parameters here as UNICODE (UTF-16, byte order unknown).
 */
export function decodeUserComment(value: unknown): string | null {
  if (typeof value === "string") return text(value);
  if (!(value instanceof Uint8Array) && !Array.isArray(value)) return null;
  const bytes = value instanceof Uint8Array ? value : Uint8Array.from(value as number[]);
  if (bytes.length <= 8) return null;
  const header = String.fromCharCode(...bytes.subarray(0, 8)).replace(/\0+$/, "");
  const body = bytes.subarray(8);
  if (header === "UNICODE") {
    const bigEndian = body.length > 1 && body[0] === 0 && body[1] !== 0;
    return text(new TextDecoder(bigEndian ? "utf-16be" : "utf-16le").decode(body));
  }
  return text(new TextDecoder("utf-8").decode(body));
}

/** COM (0xFFFE) segments before the first scan, decoded as UTF-8. */
export function jpegComments(bytes: Uint8Array): string[] {
  const out: string[] = [];
  let i = 2;
  while (i + 4 <= bytes.length && bytes[i] === 0xff) {
    const marker = bytes[i + 1]!;
    if (marker === 0xda || marker === 0xd9) break;
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    if (length < 2) break;
    if (marker === 0xfe) out.push(new TextDecoder().decode(bytes.subarray(i + 4, i + 2 + length)));
    i += 2 + length;
  }
  return out;
}
