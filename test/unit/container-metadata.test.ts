import { deflate } from "pako";
import { describe, expect, it, vi } from "vitest";
import exifr from "../../src/analysis/exif-reader";
import { readMetadata } from "../../src/analysis/metadata";
import { pngMetadata, TEXT_CHUNK_MAX, TEXT_CHUNKS_MAX, TEXT_TOTAL_MAX } from "../../src/analysis/metadata-chunks";
import { decodeImage } from "../../src/analysis/decoders";
import { evidenceThumbnail } from "../../src/analysis/thumbnail";
import { samplePhoto } from "../helpers/photos";
import { concat, encodeJpeg, encodePngRgb, exifTiff, heifWithExif, naturalScene, orientationTiff, xmpWithSourceType } from "../helpers/synth";

const ascii = (s: string) => new TextEncoder().encode(s);
const scene = naturalScene(96, 64, 5);

function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function pngChunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  out.set(ascii(type), 4);
  out.set(body, 8);
  view.setUint32(8 + body.length, crc32(out.subarray(4, 8 + body.length)));
  return out;
}

/** The PNG with `chunks` inserted right after its IHDR (signature 8 bytes + IHDR 25). */
function withChunks(png: Uint8Array, ...chunks: Uint8Array[]): Uint8Array {
  return concat(png.subarray(0, 33), ...chunks, png.subarray(33));
}

const iTXt = (keyword: string, text: string, compressed: boolean) =>
  pngChunk("iTXt", concat(ascii(`${keyword}\0`), new Uint8Array([compressed ? 1 : 0, 0]), ascii("\0\0"), compressed ? deflate(ascii(text)) : ascii(text)));
const zTXt = (keyword: string, body: Uint8Array) => pngChunk("zTXt", concat(ascii(`${keyword}\0`), new Uint8Array([0]), deflate(body)));
const eXIf = (tiff: Uint8Array) => pngChunk("eXIf", tiff);

/** A WebP in the extended format carrying `EXIF` and `XMP ` chunks after the image's own chunks. */
function webpWithMetadata(webp: Uint8Array, exif: Uint8Array, xmp: string): Uint8Array {
  const chunk = (fourcc: string, body: Uint8Array) => {
    const head = new Uint8Array(8);
    head.set(ascii(fourcc));
    new DataView(head.buffer).setUint32(4, body.length, true);
    return concat(head, body, body.length % 2 ? new Uint8Array(1) : new Uint8Array(0));
  };
  const body = concat(webp.subarray(12), chunk("EXIF", concat(ascii("Exif\0\0"), exif)), chunk("XMP ", ascii(xmp)));
  const head = new Uint8Array(12);
  head.set(ascii("RIFF"));
  new DataView(head.buffer).setUint32(4, body.length + 4, true);
  head.set(ascii("WEBP"), 8);
  return concat(head, body);
}

describe("metadata kept in PNG and WebP chunks", () => {
  it("reads PNG tEXt, zTXt and iTXt (plain and compressed) and the EXIF of an eXIf chunk", async () => {
    const png = withChunks(
      encodePngRgb(scene, { parameters: "a red car, photo\nSteps: 20, Sampler: Euler a" }),
      zTXt("Comment", ascii("zipped note")),
      iTXt("XML:com.adobe.xmp", xmpWithSourceType("http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"), true),
      iTXt("Title", "Überschrift", false),
      eXIf(exifTiff({ make: "Canon", model: "EOS R5", dateTimeOriginal: "2026:11:20 10:00:00" })),
    );
    const meta = await readMetadata(png, "image/png", []);
    expect(meta.png_text).toMatchObject({ parameters: "a red car, photo\nSteps: 20, Sampler: Euler a", Comment: "zipped note", Title: "Überschrift" });
    expect(meta.digital_source_types).toContain("http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia");
    expect([meta.make, meta.model, meta.date_time_original]).toEqual(["Canon", "EOS R5", "2026:11:20 10:00:00"]);
    expect(meta.errors).toEqual([]);
  });

  it("reads the text of a PNG without decoding its pixels (a frame too damaged to decode still has its chunks)", async () => {
    const png = encodePngRgb(scene, { parameters: "Steps: 30, Sampler: DPM++ 2M" });
    const damaged = png.slice();
    // Overwrite the IDAT payload (it starts after the signature, IHDR, tEXt and the IDAT header).
    const idat = findChunk(damaged, "IDAT");
    damaged.fill(0x55, idat + 8, idat + 40);
    await expect(decodeImage(damaged, "image/png")).rejects.toThrow();
    const meta = await readMetadata(damaged, "image/png", []);
    expect(meta.png_text.parameters).toBe("Steps: 30, Sampler: DPM++ 2M");
  });

  it("stops a compressed text chunk that inflates beyond the limit and keeps the other chunks", () => {
    const png = withChunks(encodePngRgb(scene, { Software: "camera" }), zTXt("bomb", new Uint8Array(TEXT_CHUNK_MAX + 1)), zTXt("small", ascii("ok")));
    const meta = pngMetadata(png);
    expect(meta.text.bomb).toBeUndefined();
    expect(meta.text).toMatchObject({ Software: "camera", small: "ok" });
    expect(meta.errors).toEqual([expect.stringContaining("png zTXt")]);
  });

  it("bounds the text of all chunks together: a thousand chunks each just under the limit, or a hundred thousand tiny ones", () => {
    // 1 000 zTXt chunks of 1 KB, each inflating to the per-chunk limit: 1 GiB of text from a 1 MB file.
    const oneMiB = zTXt("kk", new Uint8Array(TEXT_CHUNK_MAX).fill(0x41));
    const many = Array.from({ length: 1000 }, (_, i) => {
      const chunk = oneMiB.slice();
      chunk[8] = 0x61 + (i % 26); // distinct keywords, so nothing overwrites
      chunk[9] = 0x61 + Math.floor(i / 26) % 26;
      return chunk;
    });
    const start = performance.now();
    const inflated = pngMetadata(withChunks(encodePngRgb(scene, { Software: "camera" }), ...many));
    const kept = Object.values(inflated.text).reduce((n, t) => n + t.length, 0);
    expect(kept).toBeLessThanOrEqual(TEXT_TOTAL_MAX + "camera".length);
    expect(inflated.errors).toEqual([expect.stringMatching(/^png text: \d+ chunks beyond/)]);
    // 100 000 tEXt chunks of one byte each: keywords are kept up to the chunk count.
    const tiny = Array.from({ length: 100_000 }, (_, i) => pngChunk("tEXt", ascii(`k${i}\0x`)));
    const joined = new Uint8Array(tiny.reduce((n, c) => n + c.length, 0));
    tiny.reduce((at, c) => (joined.set(c, at), at + c.length), 0);
    const counted = pngMetadata(withChunks(encodePngRgb(scene), joined));
    expect(Object.keys(counted.text).length).toBe(TEXT_CHUNKS_MAX);
    // Liveness, not speed: both end within a second or two of inflating (1 GiB would take far longer).
    expect(performance.now() - start).toBeLessThan(5_000);
  });

  it("reads a WebP's EXIF and XMP chunks", async () => {
    const webp = webpWithMetadata(await samplePhoto("dune.webp"), exifTiff({ make: "Google", model: "Pixel 9" }), xmpWithSourceType("http://cv.iptc.org/newscodes/digitalsourcetype/compositeSynthetic"));
    const meta = await readMetadata(webp, "image/webp", []);
    expect([meta.make, meta.model]).toEqual(["Google", "Pixel 9"]);
    expect(meta.digital_source_types).toEqual(["http://cv.iptc.org/newscodes/digitalsourcetype/compositeSynthetic"]);
    expect((await decodeImage(webp, "image/webp")).width).toBeGreaterThan(0);
  });

  it("turns a PNG's evidence thumbnail upright by the orientation in its eXIf chunk", async () => {
    const png = withChunks(encodePngRgb(naturalScene(800, 600, 3)), eXIf(orientationTiff(6)));
    const decoded = await decodeImage(png, "image/png", { thumbnailMaxSide: 480 });
    const thumb = await evidenceThumbnail(decoded.thumbnail!, png);
    expect([thumb.width, thumb.height]).toEqual([360, 480]);
  });
});

function findChunk(png: Uint8Array, type: string): number {
  const view = new DataView(png.buffer, png.byteOffset);
  for (let i = 8; i + 8 <= png.length; i += 12 + view.getUint32(i)) {
    if (String.fromCharCode(...png.subarray(i + 4, i + 8)) === type) return i;
  }
  throw new Error(`no ${type} chunk`);
}

// Probe of 2026-12-04: a HEIC made by libheif (heif-enc) from a Nikon JPEG lost its GPS, time and
// camera (exifr read the item's extent without the item's base_offset).
describe("EXIF in a HEIF file", () => {
  const tiff = exifTiff({ make: "NIKON CORPORATION", model: "NIKON D2H", dateTimeOriginal: "2003:11:23 18:07:37", gps: { lat: 39.9156, lng: 116.3908 } });

  it("is read where the item's location says: base_offset plus the extent's offset", async () => {
    const meta = await readMetadata(heifWithExif(tiff), "image/heic", []);
    expect(meta.errors).toEqual([]);
    expect([meta.make, meta.model, meta.date_time_original]).toEqual(["NIKON CORPORATION", "NIKON D2H", "2003:11:23 18:07:37"]);
    expect(meta.gps?.lat).toBeCloseTo(39.9156, 4);
    expect(meta.gps?.lng).toBeCloseTo(116.3908, 4);
  });

  it("an iloc cut short is read as no EXIF, never a thrown error", async () => {
    const heif = heifWithExif(tiff);
    const meta = await readMetadata(heif.subarray(0, 120), "image/heic", []);
    expect([meta.make, meta.gps]).toEqual([null, null]);
  });
});

describe("an EXIF GPS block that is not a fix", () => {
  const photo = (gps: { lat: number; lng: number; status?: "A" | "V" }) => encodeJpeg(naturalScene(64, 48, 3), 90, exifTiff({ make: "Canon", gps }));

  it("is no location when the file calls it void (GPSStatus V) or it reads exactly 0°, 0°", async () => {
    expect((await readMetadata(photo({ lat: 48.8584, lng: 2.2945, status: "V" }), "image/jpeg", [])).gps).toBeNull();
    expect((await readMetadata(photo({ lat: 0, lng: 0 }), "image/jpeg", [])).gps).toBeNull();
    expect((await readMetadata(photo({ lat: 0, lng: 0, status: "A" }), "image/jpeg", [])).gps).toBeNull();
  });

  it("a fix the camera measured, on the equator or the prime meridian too, is kept", async () => {
    expect((await readMetadata(photo({ lat: 48.8584, lng: 2.2945, status: "A" }), "image/jpeg", [])).gps?.lat).toBeCloseTo(48.8584, 4);
    expect((await readMetadata(photo({ lat: 0, lng: 32.58 }), "image/jpeg", [])).gps?.lng).toBeCloseTo(32.58, 4);
    expect((await readMetadata(photo({ lat: 51.4779, lng: 0 }), "image/jpeg", [])).gps?.lat).toBeCloseTo(51.4779, 4);
  });
});

// Issue 33 (bench:memory): exifr keeps the options of every parse in a Map keyed by the options
// object itself (exifr/src/options.mjs, `useCached`), so a fresh object per call grew the analysis
// isolate by about 3 KB per photo (an Options, 11 SubOptions, 33 Sets), for as long as it lived.
describe("the EXIF reader keeps nothing per photo", () => {
  it("every parse hands exifr the same options object, which its cache holds once", async () => {
    const parse = vi.spyOn(exifr, "parse");
    try {
      const jpeg = encodeJpeg(naturalScene(64, 48, 9), 90, exifTiff({ make: "Google", model: "Pixel 9" }));
      for (let i = 0; i < 3; i += 1) expect((await readMetadata(jpeg, "image/jpeg", [])).make).toBe("Google");
      const options = parse.mock.calls.map((call) => call[1]);
      expect(options).toHaveLength(3);
      expect(new Set(options).size).toBe(1);
    } finally {
      parse.mockRestore();
    }
  });
});
