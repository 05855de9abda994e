import { describe, expect, it } from "vitest";
import { DecodeFailure, OVERVIEW_MAX_SIDE, type DecodedImage, type DecodeRequest } from "../../src/analysis/decoders";
import { analyzeImage } from "../../src/analysis/analyze-image";
import { decodeWebp, planBands } from "../../src/analysis/decoders/webp";
import { compiledWasm } from "../../src/analysis/decoders/wasm";
import { screenTileRects } from "../../src/analysis/signals/screen-moire";
import { preparedPhoto, samplePhoto } from "../helpers/photos";

/**
 * A whole large photo decoded in the suite (up to 24.7 MiB of lossless WebP) takes 40–90 s on a
 * quiet 2-core machine and twice that beside the rest of the suite on a slower one (CI of 2026-12-07:
 * over 120 s). A guard against a hang, not a speed check: speed is bench/'s (bench/RESULTS.md).
 */
const WHOLE_PHOTO_MS = 240_000;

// libwebp's scaled and cropped decodes (src/analysis/decoders/webp.ts) on small real photographs
// (test/fixtures/photos): a budget below the frame's RGB sends a small image down the path a 50 MP
// photo takes.

function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

function mean(a: Uint8Array): number {
  return a.reduce((sum, v) => sum + v, 0) / a.length;
}

async function outcome(bytes: Uint8Array, request: DecodeRequest, budget?: number): Promise<string> {
  return decodeWebp(bytes, request, budget).then(
    (image) => `decoded ${image.width}x${image.height}`,
    (err: unknown) => (err instanceof DecodeFailure ? err.reason : `other: ${String(err)}`),
  );
}

/** The whole frame's luma at native resolution, as one tile. */
async function wholeFrame(bytes: Uint8Array): Promise<DecodedImage["tiles"][number]> {
  return (await decodeWebp(bytes, { tiles: (w, h) => [{ x: 0, y: 0, width: w, height: h }] })).tiles[0]!;
}

describe("WebP through libwebp's advanced API (scaled and cropped decodes)", () => {
  it("a lossy WebP over the output budget: overview scaled by libwebp, tiles cropped, each pixel the whole-frame decode's", async () => {
    const bytes = await samplePhoto("dune-wide.webp");
    const whole = await wholeFrame(bytes);
    expect(whole).toMatchObject({ width: 1152, height: 128 });
    const reference = await decodeWebp(bytes, {});
    // One crop per tile (50 kB), then two tiles merged into one crop (250 kB), both below the frame's 442 kB of RGB.
    for (const budget of [50_000, 250_000]) {
      const image = await decodeWebp(bytes, { tiles: screenTileRects, thumbnailMaxSide: 256 }, budget);
      expect(image).toMatchObject({ width: 1152, height: 128, overview: { width: OVERVIEW_MAX_SIDE, height: 114 }, thumbnail: { width: 256, height: 29 } });
      expect(planBands(1152, 128, screenTileRects(1152, 128), budget).length).toBe(budget === 50_000 ? 3 : 2);
      // libwebp's rescaler against our area average of the full decode: the same picture, its cells
      // phased a fraction of a pixel apart (which this fine sand texture shows). (The thumbnail is
      // reduced from the overview-sized decode, hence 29 rows where the frame's 28.4 rounds to 28.)
      expect(reference.overview).toMatchObject({ width: OVERVIEW_MAX_SIDE, height: 114 });
      expect(meanAbsDiff(image.overview.data, reference.overview.data)).toBeLessThan(4);
      expect(Math.abs(mean(image.overview.data) - mean(reference.overview.data))).toBeLessThan(1);
      expect(image.tiles.map(({ x, y, width, height }) => ({ x, y, width, height }))).toEqual(screenTileRects(1152, 128));
      for (const tile of image.tiles) {
        const expected = new Uint8Array(tile.width * tile.height);
        for (let y = 0; y < tile.height; y += 1) expected.set(whole.data.subarray((tile.y + y) * whole.width + tile.x, (tile.y + y) * whole.width + tile.x + tile.width), y * tile.width);
        expect({ x: tile.x, equal: tile.data.every((v, i) => v === expected[i]) }).toEqual({ x: tile.x, equal: true });
      }
    }
  });

  it("a lossy WebP with alpha (VP8X + ALPH) decodes its colour only, as the same picture without alpha", async () => {
    const plain = await decodeWebp(await samplePhoto("dune.webp"), { tiles: screenTileRects, thumbnailMaxSide: 96 });
    const alpha = await decodeWebp(await samplePhoto("dune-alpha.webp"), { tiles: screenTileRects, thumbnailMaxSide: 96 });
    expect(alpha).toMatchObject({ width: 192, height: 128 });
    // cwebp spends its bits a little differently with alpha beside the colour: close, not identical.
    expect(meanAbsDiff(alpha.overview.data, plain.overview.data)).toBeLessThan(3);
    expect(meanAbsDiff(alpha.tiles[0]!.data, plain.tiles[0]!.data)).toBeLessThan(3);
  });

  it("truncated, corrupt and animated WebPs are undecodable_image on both paths", async () => {
    const wide = await samplePhoto("dune-wide.webp");
    // A lossy stream's coefficients cannot be told from noise, its frame header can: break the key
    // frame's start code (9d 01 2a after the "VP8 " chunk header and the 3-byte frame tag).
    const corrupt = wide.slice();
    expect([...corrupt.subarray(23, 26)]).toEqual([0x9d, 0x01, 0x2a]);
    corrupt[24] = 0x02;
    for (const budget of [undefined, 50_000]) {
      const request = { tiles: screenTileRects, thumbnailMaxSide: 256 };
      expect(await outcome(wide.slice(0, Math.floor(wide.length * 0.6)), request, budget)).toBe("undecodable_image");
      expect(await outcome(wide.slice(0, 40), request, budget)).toBe("undecodable_image");
      expect(await outcome(corrupt, request, budget)).toBe("undecodable_image");
      expect(await outcome(await samplePhoto("animated.webp"), request, budget)).toBe("undecodable_image");
    }
    // The untouched bytes decode: the cases above fail for what was done to them.
    expect(await outcome(wide, {}, 50_000)).toBe("decoded 1152x128");
  });

  it("a lossless WebP's frame size no longer decides: an 8160×6120 header is decoded, and its missing data is undecodable_image", async () => {
    // RIFF header + VP8L chunk header of an 8160×6120 frame (14-bit width-1, height-1, no alpha, version
    // 0), no data: libwebp once had to hold its 191 MiB of ARGB and it was refused before decoding.
    const bytes = new Uint8Array(64);
    const view = new DataView(bytes.buffer);
    bytes.set(Uint8Array.from("RIFF\0\0\0\0WEBPVP8L", (c) => c.charCodeAt(0)));
    view.setUint32(4, bytes.length - 8, true);
    view.setUint32(16, bytes.length - 20, true);
    bytes[20] = 0x2f;
    view.setUint32(21, (8160 - 1) | ((6120 - 1) << 14), true);
    const failure = await decodeWebp(bytes, {}).catch((err: unknown) => err);
    expect(failure).toMatchObject({ reason: "undecodable_image", message: expect.stringMatching(/VP8 status 3\)$/) });
  });
});

// Lossless (VP8L) frames larger than the patched libwebp's sliding window (1 048 456 pixels behind the
// current one + 262 144 ahead; scripts/webp-wasm/vp8l-sliding-window.patch): real photographs encoded
// by ImageMagick's libwebp, made on first use (scripts/real-photos.ts), each beside its pixels as
// Debian's unpatched libwebp decodes them.
describe("lossless WebP through the sliding window", () => {
  interface LibWebp {
    memory: WebAssembly.Memory;
    malloc(size: number): number;
    features(data: number, size: number, out: number): number;
    decode_rgb(data: number, size: number, cropX: number, cropY: number, cropW: number, cropH: number, outW: number, outH: number, out: number, stride: number, outSize: number): number;
  }

  /** The module's RGB of a region of the frame (all of it by default), or its VP8 status. */
  async function libwebpRgb(bytes: Uint8Array, crop?: { x: number; y: number; width: number; height: number }): Promise<{ width: number; height: number; rgb: Uint8Array } | number> {
    const module = await compiledWasm(() => import("../../src/analysis/decoders/libwebp-decoder.wasm"), "../../src/analysis/decoders/libwebp-decoder.wasm");
    const webp = (await WebAssembly.instantiate(module, {})).exports as unknown as LibWebp;
    const src = webp.malloc(bytes.length);
    new Uint8Array(webp.memory.buffer, src, bytes.length).set(bytes);
    const info = webp.malloc(20);
    const status = webp.features(src, bytes.length, info);
    if (status !== 0) return status;
    const [width = 0, height = 0, , , format] = new Int32Array(webp.memory.buffer, info, 5);
    expect(format).toBe(2);
    const { x, y, width: w, height: h } = crop ?? { x: 0, y: 0, width, height };
    const out = webp.malloc(w * h * 3);
    const code = webp.decode_rgb(src, bytes.length, x, y, w, h, w, h, out, w * 3, w * h * 3);
    return code !== 0 ? code : { width: w, height: h, rgb: new Uint8Array(webp.memory.buffer, out, w * h * 3).slice() };
  }

  /** Where two RGB buffers first differ (-1: nowhere). */
  function firstDifference(a: Uint8Array, b: Uint8Array): number {
    if (a.length !== b.length) return Math.min(a.length, b.length);
    for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return i;
    return -1;
  }

  it(
    "gives every pixel the unpatched decoder gives: photo, colour-indexed photo, references from 1 048 456 pixels back; whole and cropped low",
    async () => {
      for (const [name, width, height] of [
        ["webp-5mp-lossless", 2560, 1920],
        ["webp-6mp-lossless-palette", 3000, 2000],
        ["webp-3mp-lossless-reach", 1579, 1992],
      ] as const) {
        const bytes = await preparedPhoto(`${name}.webp`);
        const expected = await preparedPhoto(`${name}.rgb`);
        expect(expected.length).toBe(width * height * 3);
        // Larger than the window, so the decode slides it (several times).
        expect(width * height).toBeGreaterThan(1_048_456 + 262_144);
        const whole = await libwebpRgb(bytes);
        expect(typeof whole === "number" ? whole : { name, width: whole.width, height: whole.height, firstDifference: firstDifference(whole.rgb, expected) }).toEqual({ name, width, height, firstDifference: -1 });
        // A crop near the bottom: decoded to its bottom row, output from its top row only.
        const crop = { x: 101, y: height - 333, width: width - 202, height: 222 };
        const cropped = await libwebpRgb(bytes, crop);
        const expectedCrop = new Uint8Array(crop.width * crop.height * 3);
        for (let row = 0; row < crop.height; row += 1) {
          const from = ((crop.y + row) * width + crop.x) * 3;
          expectedCrop.set(expected.subarray(from, from + crop.width * 3), row * crop.width * 3);
        }
        expect(typeof cropped === "number" ? cropped : { name, firstDifference: firstDifference(cropped.rgb, expectedCrop) }).toEqual({ name, firstDifference: -1 });
      }
    },
    WHOLE_PHOTO_MS,
  );

  it(
    "the largest lossless photo the upload cap admits (5504×4128, 24.7 MiB) is assessed: every pixel signal ran",
    async () => {
      const bytes = await preparedPhoto("webp-23mp-lossless.webp");
      expect(bytes.length).toBeLessThanOrEqual(25 * 1024 * 1024);
      const result = await analyzeImage(
        { captureId: "cap_1", tenantId: "tnt_a", bytes, mediaType: "image/webp", uploaded: false, depthPng: null, channel: "api", captureIntegrity: null, location: null, clientCapturedAt: null, required: ["screen", "ai"] },
        { searchHistory: async () => ({ matches: [], shared: false }), vision: null, web: null, trustedSigners: [] },
      );
      expect(result.dimensions).toEqual({ width: 5504, height: 4128 });
      expect(result.decode_error).toBeNull();
      expect(result.phash?.hash).toMatch(/^[0-9a-f]{16}$/);
      expect(result.signals.screen_detection).toMatchObject({ provider: "offline-moire", screen_detected: expect.any(Boolean) });
      expect(result.notes).toEqual([]);
    },
    WHOLE_PHOTO_MS,
  );

  it(
    "seeded corruptions and truncations of a lossless photo end in libwebp's own refusal (undecodable_image) or other pixels, never a trap",
    async () => {
      const photo = await preparedPhoto("webp-5mp-lossless.webp");
      const request: DecodeRequest = { tiles: screenTileRects, thumbnailMaxSide: 256 };
      const outcome = async (bytes: Uint8Array) =>
        decodeWebp(bytes, request).then(
          () => "decoded",
          // A trap inside the module would read "WebP decode failed: RuntimeError…": libwebp itself, or
          // the header check before it, must refuse.
          (err: unknown) => (err instanceof DecodeFailure && (/\(VP8 status \d\)$/.test(err.message) || /^WebP (?!decode failed)/.test(err.message)) ? err.reason : `other: ${String(err)}`),
        );
      // A bitstream cut short, inside a container that says so (it runs out in the middle of the frame,
      // after the window has slid), and the same cut inside the photo's own container (refused by size).
      for (const fraction of [0.05, 0.3, 0.6, 0.9, 0.99]) {
        const cut = photo.slice(0, Math.floor(photo.length * fraction));
        const view = new DataView(cut.buffer);
        view.setUint32(4, cut.length - 8, true);
        view.setUint32(16, cut.length - 20, true);
        expect({ fraction, outcome: await outcome(cut) }).toEqual({ fraction, outcome: "undecodable_image" });
        expect({ fraction, outcome: await outcome(photo.slice(0, Math.floor(photo.length * fraction))) }).toEqual({ fraction, outcome: "undecodable_image" });
      }
      // Four bytes overwritten at random (a seeded xorshift): in the transforms' and Huffman codes'
      // headers, refused; in the entropy-coded pixels, which carry no redundancy, mostly other pixels
      // decoded to the end of the frame through the window. Either way the decode ends, in libwebp's hands.
      let seed = 0x9e3779b9;
      const random = () => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) / 2 ** 32;
      };
      const outcomes: string[] = [];
      for (let i = 0; i < 24; i += 1) {
        const corrupt = photo.slice();
        const at = 25 + Math.floor(random() * (i < 8 ? 200 : corrupt.length - 29));
        for (let k = 0; k < 4; k += 1) corrupt[at + k] = Math.floor(random() * 256);
        outcomes.push(`${i < 8 ? "headers" : "pixels"}: ${await outcome(corrupt)}`);
      }
      expect(outcomes.slice(0, 8)).toEqual(Array(8).fill("headers: undecodable_image"));
      expect(outcomes.slice(8).filter((o) => o !== "pixels: decoded" && o !== "pixels: undecodable_image")).toEqual([]);
      // The untouched photo decodes.
      expect(await outcome(photo)).toBe("decoded");
    },
    WHOLE_PHOTO_MS,
  );
});
