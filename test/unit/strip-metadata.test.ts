import { describe, expect, it } from "vitest";
import { decodeImage } from "../../src/analysis/decoders";
import { pngChunks } from "../../src/analysis/decoders/header";
import { readMetadata } from "../../src/analysis/metadata";
import { MAX_PARTS, stripMetadata } from "../../src/analysis/strip-metadata";
import { samplePhoto } from "../helpers/photos";
import { concat, encodeJpeg, encodePngRgb, exifTiff, insertSegment, naturalScene, xmpSegment, xmpWithSourceType } from "../helpers/synth";

/* The original image for a detection provider: metadata out, coded image data byte for byte (src/analysis/strip-metadata.ts). */

const ascii = (s: string) => new TextEncoder().encode(s);
const LIMIT = 10 * 1024 * 1024;
const GENERATED = xmpWithSourceType("http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia");
const CAMERA = exifTiff({ make: "Canon", model: "EOS R5", dateTimeOriginal: "2026:11:20 10:00:00", gps: { lat: 48.8566, lng: 2.3522 } });

function stripped(bytes: Uint8Array, mediaType: string): { bytes: Uint8Array; removed: string[] } {
  const result = stripMetadata(bytes, mediaType, LIMIT);
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
  return result;
}

const contains = (haystack: Uint8Array, needle: string) => Buffer.from(haystack).includes(Buffer.from(needle, "latin1"));

/** The bytes from the first SOS marker to EOI: every scan header and its entropy-coded data. */
function scans(jpeg: Uint8Array): Uint8Array {
  let i = 2;
  while (!(jpeg[i] === 0xff && jpeg[i + 1] === 0xda)) i += 2 + ((jpeg[i + 2]! << 8) | jpeg[i + 3]!);
  const eoi = Buffer.from(jpeg).lastIndexOf(Buffer.from([0xff, 0xd9]));
  return jpeg.subarray(i, eoi + 2);
}

async function sameOverview(a: Uint8Array, b: Uint8Array, mediaType: string) {
  const [x, y] = await Promise.all([decodeImage(a, mediaType), decodeImage(b, mediaType)]);
  expect([y.width, y.height]).toEqual([x.width, x.height]);
  expect(Buffer.from(y.overview.data).equals(Buffer.from(x.overview.data))).toBe(true);
}

function pngChunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  new DataView(out.buffer).setUint32(0, body.length);
  out.set(ascii(type), 4);
  out.set(body, 8);
  return out; // CRC left zero: the stripper keeps or drops chunks whole, it never reads one.
}

function riffChunk(fourcc: string, body: Uint8Array): Uint8Array {
  const head = new Uint8Array(8);
  head.set(ascii(fourcc));
  new DataView(head.buffer).setUint32(4, body.length, true);
  return concat(head, body, body.length % 2 ? new Uint8Array(1) : new Uint8Array(0));
}

/** A simple-format WebP turned into the extended one with EXIF, XMP and C2PA chunks (and their VP8X flags). */
function webpWithMetadata(webp: Uint8Array, width: number, height: number): Uint8Array {
  const vp8x = new Uint8Array(10);
  vp8x[0] = 0x08 | 0x04;
  vp8x.set([(width - 1) & 0xff, ((width - 1) >> 8) & 0xff, (width - 1) >> 16, (height - 1) & 0xff, ((height - 1) >> 8) & 0xff, (height - 1) >> 16], 4);
  const body = concat(ascii("WEBP"), riffChunk("VP8X", vp8x), webp.subarray(12), riffChunk("EXIF", CAMERA), riffChunk("XMP ", ascii(GENERATED)), riffChunk("C2PA", ascii("jumbf manifest store")));
  const head = new Uint8Array(8);
  head.set(ascii("RIFF"));
  new DataView(head.buffer).setUint32(4, body.length, true);
  return concat(head, body);
}

describe("stripping metadata from the original image", () => {
  it("JPEG: EXIF (GPS), XMP, C2PA, IPTC, comments and appended data go; JFIF, the ICC profile and every scan stay byte for byte", async () => {
    const base = encodeJpeg(naturalScene(320, 240, 3), 90);
    let jpeg = insertSegment(base, 0xe1, concat(ascii("Exif\0\0"), CAMERA));
    jpeg = insertSegment(jpeg, 0xe1, xmpSegment(GENERATED));
    jpeg = insertSegment(jpeg, 0xeb, ascii("JP\0\0jumbc2pa manifest"));
    jpeg = insertSegment(jpeg, 0xed, ascii("Photoshop 3.0\x008BIM iptc"));
    jpeg = insertSegment(jpeg, 0xfe, ascii("a comment naming the capturer"));
    jpeg = insertSegment(jpeg, 0xe2, concat(ascii("ICC_PROFILE\0"), new Uint8Array([1, 1]), new Uint8Array(64).fill(7)));
    jpeg = concat(jpeg, ascii("trailing motion-photo bytes"));
    const before = await readMetadata(jpeg, "image/jpeg", []);
    expect([before.make, before.gps !== null, before.digital_source_types.length]).toEqual(["Canon", true, 1]);

    const out = stripped(jpeg, "image/jpeg");
    expect(out.removed).toEqual(["COM", "APP13 Photoshop 3.", "APP11 JP", "APP1 http://ns.ad", "APP1 Exif", "data after EOI"]);
    for (const gone of ["Exif", "Canon", "ns.adobe.com", "c2pa", "8BIM", "capturer", "motion-photo"]) expect(contains(out.bytes, gone), gone).toBe(false);
    expect(contains(out.bytes, "ICC_PROFILE")).toBe(true);
    expect(contains(out.bytes, "JFIF")).toBe(true);
    expect(Buffer.from(scans(out.bytes)).equals(Buffer.from(scans(base)))).toBe(true);
    // The file without the metadata is exactly the encoder's output with the ICC segment it was given.
    expect(out.bytes.length).toBe(base.length + 4 + 12 + 2 + 64);
    const after = await readMetadata(out.bytes, "image/jpeg", []);
    expect([after.make, after.gps, after.digital_source_types]).toEqual([null, null, []]);
    await sameOverview(jpeg, out.bytes, "image/jpeg");
  });

  it("JPEG: progressive and restart-interval scans are kept whole (real samples)", async () => {
    for (const name of ["dune.jpg", "dune-progressive.jpg", "dune-progressive-restart.jpg", "dune-progressive-gray.jpg"]) {
      const sample = await samplePhoto(name);
      const marked = insertSegment(insertSegment(sample, 0xe1, concat(ascii("Exif\0\0"), CAMERA)), 0xe1, xmpSegment(GENERATED));
      const out = stripped(marked, "image/jpeg");
      expect(Buffer.from(scans(out.bytes)).equals(Buffer.from(scans(sample))), name).toBe(true);
      expect(contains(out.bytes, "Exif") || contains(out.bytes, "ns.adobe.com"), name).toBe(false);
      await sameOverview(sample, out.bytes, "image/jpeg");
    }
  });

  it("PNG: text, eXIf, caBX, tIME and private chunks go; IHDR, the colour chunks and IDAT stay byte for byte", async () => {
    const png = encodePngRgb(naturalScene(200, 150, 4), { parameters: "a red car\nSteps: 20, Sampler: Euler a", Software: "ComfyUI" });
    const ihdrEnd = 33;
    const marked = concat(
      png.subarray(0, ihdrEnd),
      pngChunk("gAMA", new Uint8Array([0, 0, 0xb1, 0x8f])),
      pngChunk("eXIf", CAMERA),
      pngChunk("caBX", ascii("c2pa store")),
      pngChunk("tIME", new Uint8Array(7)),
      pngChunk("prVt", ascii("private")),
      png.subarray(ihdrEnd),
      ascii("after IEND"),
    );
    const out = stripped(marked, "image/png");
    expect(out.removed.sort()).toEqual(["caBX", "data after IEND", "eXIf", "prVt", "tEXt", "tIME"]);
    for (const gone of ["Steps:", "ComfyUI", "Canon", "c2pa", "private", "after IEND"]) expect(contains(out.bytes, gone), gone).toBe(false);
    const idat = (b: Uint8Array) => Buffer.concat([...pngChunks(b)].filter((c) => c.type === "IDAT").map((c) => c.body));
    expect(idat(png).length).toBeGreaterThan(0);
    expect(idat(out.bytes).equals(idat(png))).toBe(true);
    expect([...pngChunks(out.bytes)].map((c) => c.type)).toEqual(["IHDR", "gAMA", ...[...pngChunks(png)].map((c) => c.type).filter((t) => t === "IDAT"), "IEND"]);
    expect(contains(out.bytes, "gAMA")).toBe(true);
    expect((await readMetadata(out.bytes, "image/png", [])).png_text).toEqual({});
    await sameOverview(png, out.bytes, "image/png");
  });

  it("WebP: EXIF, XMP and C2PA chunks go, VP8X loses their flags, the RIFF size is rewritten, the VP8 data stays byte for byte", async () => {
    for (const name of ["dune.webp", "dune-lossless.webp"]) {
      const sample = await samplePhoto(name);
      const { width, height } = await decodeImage(sample, "image/webp");
      const marked = webpWithMetadata(sample, width, height);
      expect((await readMetadata(marked, "image/webp", [])).make).toBe("Canon");
      const out = stripped(marked, "image/webp");
      expect(out.removed).toEqual(["EXIF", "XMP", "C2PA"]);
      expect(new DataView(out.bytes.buffer).getUint32(4, true)).toBe(out.bytes.length - 8);
      expect(out.bytes[20]! & 0x0c).toBe(0);
      expect(Buffer.from(out.bytes.subarray(30)).equals(Buffer.from(sample.subarray(12))), name).toBe(true);
      const after = await readMetadata(out.bytes, "image/webp", []);
      expect([after.make, after.digital_source_types]).toEqual([null, []]);
      await sameOverview(sample, out.bytes, "image/webp");
    }
  });

  it("refuses what it cannot strip safely: HEIC, animations, and says when the result would be over the limit without assembling it", async () => {
    expect(stripMetadata(await samplePhoto("dune.heic"), "image/heic", LIMIT)).toMatchObject({ ok: false, reason: "unsupported" });
    expect(stripMetadata(await samplePhoto("animated.webp"), "image/webp", LIMIT)).toMatchObject({ ok: false, reason: "unsupported", detail: "animated WebP" });
    const jpeg = encodeJpeg(naturalScene(64, 48, 1), 90);
    expect(stripMetadata(jpeg, "image/jpeg", 100)).toEqual({ ok: false, reason: "too_large", size: jpeg.length });
    // Metadata is not counted: a file over the limit only because of it is sent without it.
    const padded = insertSegment(jpeg, 0xe1, concat(ascii("Exif\0\0"), new Uint8Array(60_000)));
    expect(stripMetadata(padded, "image/jpeg", jpeg.length)).toMatchObject({ ok: true, bytes: jpeg });
  });

  it("refuses malformed files (a fallback, never a half-stripped file): truncations, lengths past the end, a PNG without IHDR first", () => {
    const jpeg = encodeJpeg(naturalScene(64, 48, 1), 90);
    const png = encodePngRgb(naturalScene(32, 32, 1));
    const cases: Array<[string, Uint8Array, string]> = [
      ["truncated JPEG", jpeg.subarray(0, jpeg.length - 200), "image/jpeg"],
      ["JPEG without EOI", jpeg.subarray(0, jpeg.length - 2), "image/jpeg"],
      ["JPEG segment past the end", concat(jpeg.subarray(0, 2), new Uint8Array([0xff, 0xe1, 0xff, 0xff]), ascii("Exif")), "image/jpeg"],
      ["not a JPEG", png, "image/jpeg"],
      ["truncated PNG", png.subarray(0, png.length - 20), "image/png"],
      ["PNG chunk past the end", concat(png.subarray(0, 33), new Uint8Array([0x7f, 0, 0, 0]), ascii("tEXt")), "image/png"],
      ["PNG whose first chunk is not IHDR", concat(png.subarray(0, 8), pngChunk("tEXt", ascii("k\0v")), png.subarray(8)), "image/png"],
      ["WebP RIFF size past the end", concat(ascii("RIFF"), new Uint8Array([0xff, 0xff, 0, 0]), ascii("WEBP"), new Uint8Array(12)), "image/webp"],
    ];
    for (const [name, bytes, type] of cases) expect(stripMetadata(bytes, type, LIMIT), name).toMatchObject({ ok: false, reason: "malformed" });
  });

  it("is bounded on hostile input: a JPEG of tens of thousands of metadata segments is refused in one pass", () => {
    const jpeg = encodeJpeg(naturalScene(64, 48, 1), 90);
    const comment = new Uint8Array([0xff, 0xfe, 0, 3, 0x41]);
    const many = concat(jpeg.subarray(0, 2), ...Array.from({ length: MAX_PARTS * 10 }, () => comment), jpeg.subarray(2));
    const started = Date.now();
    expect(stripMetadata(many, "image/jpeg", LIMIT)).toMatchObject({ ok: false, reason: "malformed", detail: expect.stringContaining("metadata segments") });
    expect(Date.now() - started).toBeLessThan(1000);
    // A scan of fill bytes and stuffed zeros is read in one pass too.
    const scanFill = concat(jpeg.subarray(0, jpeg.length - 2), new Uint8Array(4_000_000).fill(0xff), new Uint8Array([0xff, 0xd9]));
    expect(stripMetadata(scanFill, "image/jpeg", LIMIT)).toMatchObject({ ok: true });
  });
});
