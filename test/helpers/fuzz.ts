import { greyStripPng } from "../../client/capture-page/integrity/png-strip";
import { readGreyStrip } from "../../src/analysis/burst/strip";
import { readC2pa } from "../../src/analysis/c2pa";
import { decodeImage, DecodeFailure, type DecodeRequest } from "../../src/analysis/decoders";
import { frameLayout } from "../../src/analysis/decoders/header";
import { decodeProgressiveJpeg } from "../../src/analysis/decoders/progressive-jpeg";
import exifr, { exifSourceOf } from "../../src/analysis/exif-reader";
import { readMetadata } from "../../src/analysis/metadata";
import { pngMetadata, webpMetadata } from "../../src/analysis/metadata-chunks";
import { analyzeDepthPng } from "../../src/analysis/signals/depth-plane";
import { screenTileRects } from "../../src/analysis/signals/screen-moire";
import { DigitalSourceType, makeTestSigner, signJpeg } from "./c2pa";
import { concat, encodeDepthPng, encodeJpeg, encodePngRgb, exifTiff, naturalScene, xmpWithSourceType } from "./synth";
import { pngChunk } from "./bombs";
import { deflate } from "pako";

/*
 * Seeded fuzzing of every decoder and metadata reader (issue 26): real inputs (the committed
 * samples, test/fixtures/photos, and metadata blocks as cameras write them) cut short, overwritten,
 * and given headers and lengths that lie. Input `i` of a run is a pure function of (run seed, i),
 * so a finding is reproduced from its two numbers. Used by test/unit/decoder-fuzz.test.ts (a few
 * hundred inputs per target, in the suite) and bench/fuzz.ts (thousands, with CPU and memory
 * measured per input inside workerd).
 */

export const FUZZ_TARGETS = ["jpeg", "progressive-jpeg", "png", "webp-lossy", "webp-lossless", "heif", "depth-map", "burst-strip", "exif", "png-chunks", "webp-chunks", "c2pa"] as const;
export type FuzzTarget = (typeof FUZZ_TARGETS)[number];

const MEDIA_TYPES: Record<FuzzTarget, string> = {
  jpeg: "image/jpeg",
  "progressive-jpeg": "image/jpeg",
  png: "image/png",
  "webp-lossy": "image/webp",
  "webp-lossless": "image/webp",
  heif: "image/heic",
  "depth-map": "image/png",
  "burst-strip": "image/png",
  exif: "image/jpeg",
  "png-chunks": "image/png",
  "webp-chunks": "image/webp",
  c2pa: "image/jpeg",
};

/** The committed samples each decoder target starts from. */
const SAMPLES: Partial<Record<FuzzTarget, string[]>> = {
  jpeg: ["dune.jpg", "dune-progressive.jpg", "dune-progressive-gray.jpg"],
  "progressive-jpeg": ["dune-progressive.jpg", "dune-progressive-444.jpg", "dune-progressive-420.jpg", "dune-progressive-gray.jpg", "dune-progressive-restart.jpg"],
  png: ["dune.png", "dune-interlaced.png", "dune-palette.png"],
  "webp-lossy": ["dune.webp", "dune-alpha.webp", "dune-wide.webp"],
  "webp-lossless": ["dune-lossless.webp"],
  heif: ["dune.heic"],
  "png-chunks": ["dune-interlaced.png"],
};

const ascii = (s: string) => new TextEncoder().encode(s);

/** A WebP in the extended layout with `EXIF` and `XMP ` chunks after the image's own. */
function webpWithChunks(webp: Uint8Array, exif: Uint8Array, xmp: string): Uint8Array {
  const chunk = (fourcc: string, body: Uint8Array) => {
    const head = new Uint8Array(8);
    head.set(ascii(fourcc));
    new DataView(head.buffer).setUint32(4, body.length, true);
    return concat(head, body, body.length % 2 ? new Uint8Array(1) : new Uint8Array(0));
  };
  const body = concat(ascii("WEBP"), webp.subarray(12), chunk("EXIF", concat(ascii("Exif\0\0"), exif)), chunk("XMP ", ascii(xmp)));
  const head = new Uint8Array(8);
  head.set(ascii("RIFF"));
  new DataView(head.buffer).setUint32(4, body.length, true);
  return concat(head, body);
}

const CAMERA = {
  make: "Google",
  model: "Pixel 9",
  software: "HDR+ 1.0",
  dateTimeOriginal: "2026:11:20 10:00:00",
  userComment: "a comment",
  gps: { lat: 48.8566, lng: 2.3522, accuracy_m: 5 },
};

/** Every target's seeds: samples loaded by `sample` (the suite fetches them, the bench reads them) and metadata as written by cameras. */
export async function fuzzSeeds(sample: (name: string) => Promise<Uint8Array>): Promise<Record<FuzzTarget, Uint8Array[]>> {
  const load = async (target: FuzzTarget) => Promise.all((SAMPLES[target] ?? []).map(sample));
  const scene = naturalScene(64, 48, 7);
  const tiff = exifTiff(CAMERA);
  const png = encodePngRgb(scene, { Software: "camera", Comment: "a comment" });
  const textChunks = concat(
    pngChunk("zTXt", concat(ascii("Description\0"), Uint8Array.of(0), deflate(ascii("a compressed description ".repeat(20))))),
    pngChunk("iTXt", concat(ascii("XML:com.adobe.xmp\0"), Uint8Array.of(1, 0), ascii("\0\0"), deflate(ascii(xmpWithSourceType("http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"))))),
    pngChunk("eXIf", tiff),
  );
  const signer = await makeTestSigner("Fuzz Capture App");
  return {
    jpeg: await load("jpeg"),
    "progressive-jpeg": await load("progressive-jpeg"),
    png: await load("png"),
    "webp-lossy": await load("webp-lossy"),
    "webp-lossless": await load("webp-lossless"),
    heif: await load("heif"),
    // Depth maps as the capture API takes them (forensic buffers): a tilted plane, a scene with relief, a sparse map.
    "depth-map": [
      encodeDepthPng(96, 72, (x, y) => 420 + x + y * 0.5),
      encodeDepthPng(128, 96, (x, y) => 900 - Math.max(0, 80 - Math.hypot(x - 64, y - 48) * 3)),
      encodeDepthPng(64, 48, (x, y) => (x < 20 ? 0 : 600 + y)),
    ],
    // A live capture's burst as the capture page writes it: STRIP_TILES frames of STRIP_WIDTH × STRIP_HEIGHT.
    "burst-strip": await Promise.all([1, 2].map((seed) => greyStripPng(stripTiles(seed), STRIP_WIDTH, STRIP_HEIGHT))),
    exif: [encodeJpeg(scene, 90, tiff), encodeJpeg(scene, 90, exifTiff({ make: "Canon", model: "EOS R5" }))],
    "png-chunks": [concat(png.subarray(0, 33), textChunks, png.subarray(33)), ...(await load("png-chunks"))],
    "webp-chunks": [webpWithChunks(await sample("dune.webp"), tiff, xmpWithSourceType("http://cv.iptc.org/newscodes/digitalsourcetype/compositeSynthetic"))],
    // A signed JPEG (JUMBF in APP11), and the containers c2pa-ts also parses looking for one (PNG, ISOBMFF).
    c2pa: [await signJpeg(encodeJpeg(scene, 90, tiff), signer, DigitalSourceType.TrainedAlgorithmicMedia), await sample("dune.png"), await sample("dune.heic")],
  };
}

const [STRIP_WIDTH, STRIP_HEIGHT, STRIP_TILES] = [64, 48, 6];

/** Grey tiles of a natural-looking scene moving a pixel a frame. */
function stripTiles(seed: number): Uint8Array[] {
  const scene = naturalScene(STRIP_WIDTH + STRIP_TILES, STRIP_HEIGHT, seed);
  return Array.from({ length: STRIP_TILES }, (_, k) =>
    Uint8Array.from({ length: STRIP_WIDTH * STRIP_HEIGHT }, (_, i) => scene.data[((Math.floor(i / STRIP_WIDTH) * (STRIP_WIDTH + STRIP_TILES)) + (i % STRIP_WIDTH) + k) * 3]!),
  );
}

/** xorshift32: a seeded stream of [0, 1). */
export function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** Where a format states its frame's dimensions: offset, bytes, endianness (PNG IHDR, JPEG SOF, WebP VP8/VP8L/VP8X, HEIF ispe). */
function sizeFields(bytes: Uint8Array, mediaType: string): Array<{ at: number; size: 2 | 3 | 4; le: boolean }> {
  const ascii4 = (at: number) => String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
  if (mediaType === "image/png") return [{ at: 16, size: 4, le: false }, { at: 20, size: 4, le: false }];
  if (mediaType === "image/jpeg") {
    const layout = frameLayout(bytes);
    return layout ? [{ at: layout.sofOffset + 5, size: 2, le: false }, { at: layout.sofOffset + 7, size: 2, le: false }] : [];
  }
  if (mediaType === "image/webp") {
    const out: Array<{ at: number; size: 2 | 3 | 4; le: boolean }> = [];
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 12; at + 8 <= bytes.length; ) {
      const type = ascii4(at);
      if (type === "VP8X") out.push({ at: at + 12, size: 3, le: true }, { at: at + 15, size: 3, le: true });
      if (type === "VP8 ") out.push({ at: at + 14, size: 2, le: true }, { at: at + 16, size: 2, le: true });
      if (type === "VP8L") out.push({ at: at + 9, size: 4, le: true });
      const size = view.getUint32(at + 4, true);
      at += 8 + size + (size & 1);
    }
    return out;
  }
  const out: Array<{ at: number; size: 2 | 3 | 4; le: boolean }> = [];
  for (let at = 4; at + 16 <= bytes.length; at += 1) if (ascii4(at) === "ispe") out.push({ at: at + 8, size: 4, le: false }, { at: at + 12, size: 4, le: false });
  return out;
}

/** Where a format's containers state lengths: PNG chunks, JPEG segments, RIFF chunks, ISOBMFF boxes. */
function lengthFields(bytes: Uint8Array, mediaType: string): Array<{ at: number; size: 2 | 4; le: boolean }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Array<{ at: number; size: 2 | 4; le: boolean }> = [];
  if (mediaType === "image/png") {
    for (let at = 8; at + 8 <= bytes.length && out.length < 64; at += 12 + view.getUint32(at)) out.push({ at, size: 4, le: false });
  } else if (mediaType === "image/jpeg") {
    for (let at = 2; at + 4 <= bytes.length && bytes[at] === 0xff && bytes[at + 1] !== 0xda && out.length < 64; at += 2 + view.getUint16(at + 2)) out.push({ at: at + 2, size: 2, le: false });
  } else if (mediaType === "image/webp") {
    out.push({ at: 4, size: 4, le: true });
    for (let at = 12; at + 8 <= bytes.length && out.length < 64; ) {
      out.push({ at: at + 4, size: 4, le: true });
      const size = view.getUint32(at + 4, true);
      at += 8 + size + (size & 1);
    }
  } else {
    const walk = (start: number, end: number, depth: number) => {
      for (let at = start; at + 8 <= end && out.length < 128; ) {
        const size = view.getUint32(at);
        const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
        out.push({ at, size: 4, le: false });
        if (size < 8 || at + size > end) return;
        if (depth < 3 && (type === "meta" || type === "iprp" || type === "ipco" || type === "iinf" || type === "iref" || type === "dinf")) {
          walk(at + (type === "meta" ? 12 : type === "iinf" ? 14 : type === "iref" ? 12 : 8), at + size, depth + 1);
        }
        at += size;
      }
    };
    walk(0, bytes.length, 0);
  }
  return out;
}

const LYING_VALUES = [0, 1, 2, 7, 255, 256, 4095, 16_383, 65_535, 65_536, 2 ** 24 - 1, 2 ** 31 - 1, 2 ** 32 - 1];

function write(bytes: Uint8Array, field: { at: number; size: number; le: boolean }, value: number): void {
  if (field.at + field.size > bytes.length) return;
  const v = value % 2 ** (8 * field.size);
  for (let k = 0; k < field.size; k += 1) {
    const byte = Math.floor(v / 2 ** (8 * k)) & 0xff;
    bytes[field.le ? field.at + k : field.at + field.size - 1 - k] = byte;
  }
}

/** Fuzz input `index` of the run seeded `runSeed` for one target: a seed with one to three mutations. */
export function fuzzInput(seeds: Uint8Array[], mediaType: string, runSeed: number, index: number): { bytes: Uint8Array; mutations: string[] } {
  const random = xorshift((Math.imul(runSeed, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35)) >>> 0);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  let bytes: Uint8Array = pick(seeds).slice();
  const mutations: string[] = [];
  const count = 1 + Math.floor(random() * 3);
  for (let m = 0; m < count && bytes.length > 0; m += 1) {
    const kind = pick(["truncate", "overwrite", "overwrite-header", "lie-size", "lie-size", "lie-length", "splice", "zero-run"] as const);
    switch (kind) {
      case "truncate":
        bytes = bytes.slice(0, Math.floor(random() * bytes.length));
        break;
      case "overwrite":
      case "overwrite-header": {
        const span = kind === "overwrite" ? bytes.length : Math.min(bytes.length, 1024);
        for (let k = 1 + Math.floor(random() * 8); k > 0; k -= 1) bytes[Math.floor(random() * span)] = Math.floor(random() * 256);
        break;
      }
      case "lie-size":
      case "lie-length": {
        const fields = kind === "lie-size" ? sizeFields(bytes, mediaType) : lengthFields(bytes, mediaType);
        if (fields.length === 0) break;
        const field = pick(fields);
        write(bytes, field, random() < 0.75 ? pick(LYING_VALUES) : Math.floor(random() * 2 ** 32));
        break;
      }
      case "splice": {
        const from = Math.floor(random() * bytes.length);
        const length = Math.floor(random() * Math.min(4096, bytes.length - from));
        const at = Math.floor(random() * bytes.length);
        bytes = concat(bytes.subarray(0, at), bytes.slice(from, from + length), bytes.subarray(at));
        break;
      }
      case "zero-run": {
        const at = Math.floor(random() * bytes.length);
        bytes.fill(0, at, at + Math.floor(random() * 4096));
        break;
      }
    }
    mutations.push(kind);
  }
  return { bytes, mutations };
}

export const FUZZ_REQUEST: DecodeRequest = { tiles: screenTileRects, thumbnailMaxSide: 1024 };

/**
 * Runs one input through a target: "decoded", or the DecodeFailure's reason, for the decoders (the
 * depth map reader included: "decoded" is a depth result, assessed or not);
 * "read" for the metadata readers (which report what they could not parse instead of throwing), or
 * "refused" when C2PA's reader throws (readMetadata records that as an error). Anything else is
 * "other: …", which no input may give: a trap, a RangeError, an exception outside the error model.
 */
export async function runFuzzTarget(target: FuzzTarget, bytes: Uint8Array): Promise<string> {
  const mediaType = MEDIA_TYPES[target];
  const decoded = (work: () => unknown) =>
    Promise.resolve()
      .then(work)
      .then(
        () => "decoded",
        (err: unknown) => (err instanceof DecodeFailure ? err.reason : `other: ${String(err).slice(0, 200)}`),
      );
  switch (target) {
    case "progressive-jpeg":
      return decoded(() => decodeProgressiveJpeg(bytes, FUZZ_REQUEST));
    case "jpeg":
    case "png":
    case "webp-lossy":
    case "webp-lossless":
    case "heif":
      return decoded(() => decodeImage(bytes, mediaType, FUZZ_REQUEST));
    case "depth-map":
      return decoded(() => analyzeDepthPng(bytes));
    case "burst-strip":
      return decoded(() => readGreyStrip(bytes, STRIP_WIDTH, STRIP_HEIGHT, STRIP_TILES));
    case "exif":
    case "png-chunks":
    case "webp-chunks":
      try {
        await readMetadata(bytes, mediaType, []);
        if (target === "png-chunks") pngMetadata(bytes);
        if (target === "webp-chunks") webpMetadata(bytes);
        const source = exifSourceOf(bytes);
        if (source) await exifr.orientation(source).catch(() => null);
        return "read";
      } catch (err) {
        return `other: ${String(err).slice(0, 200)}`;
      }
    case "c2pa":
      return readC2pa(bytes, []).then(
        () => "read",
        () => "refused",
      );
  }
}

export function mediaTypeOf(target: FuzzTarget): string {
  return MEDIA_TYPES[target];
}
