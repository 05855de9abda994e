import { describe, expect, it } from "vitest";
import { decodeImage, DecodeFailure, type DecodedImage } from "../../src/analysis/decoders";
import { decodeJpeg, ONE_PASS_LUMA_BYTES, planStrips } from "../../src/analysis/decoders/jpeg";
import { screenTileRects } from "../../src/analysis/signals/screen-moire";
import { encode as encodePng } from "fast-png";
import { samplePhoto } from "../helpers/photos";

/** The same PNG with its image data re-split into IDAT chunks of `size` bytes (CRCs are not checked). */
function rechunkIdat(png: Uint8Array, size: number): Uint8Array {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const head: Uint8Array[] = [png.subarray(0, 8)];
  const data: Uint8Array[] = [];
  let tail: Uint8Array = new Uint8Array(0);
  for (let i = 8; i < png.length; ) {
    const length = view.getUint32(i);
    const type = String.fromCharCode(...png.subarray(i + 4, i + 8));
    const chunk = png.subarray(i, i + 12 + length);
    if (type === "IDAT") data.push(chunk.subarray(8, 8 + length));
    else if (type === "IEND") tail = chunk;
    else head.push(chunk);
    i += 12 + length;
  }
  const all = new Uint8Array(data.reduce((n, d) => n + d.length, 0));
  data.reduce((at, d) => (all.set(d, at), at + d.length), 0);
  const parts = [...head];
  for (let i = 0; i < all.length; i += size) {
    const body = all.subarray(i, i + size);
    const chunk = new Uint8Array(12 + body.length);
    new DataView(chunk.buffer).setUint32(0, body.length);
    chunk.set([73, 68, 65, 84], 4);
    chunk.set(body, 8);
    parts.push(chunk);
  }
  parts.push(tail);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

// Each codec path on a small real photograph (a 192×128 crop of a camera photo; the PNG is 96×64).
const request = { tiles: screenTileRects, thumbnailMaxSide: 96 };

function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

async function decodeSample(name: string, type: string): Promise<DecodedImage> {
  return decodeImage(await samplePhoto(name), type, request);
}

describe("decoders inside workerd (real photographs)", () => {
  it("JPEG, progressive JPEG, WebP and grid HEIC decode to the same picture", async () => {
    const jpeg = await decodeSample("dune.jpg", "image/jpeg");
    expect(jpeg).toMatchObject({ width: 192, height: 128, overview: { width: 192, height: 128 }, thumbnail: { width: 96, height: 64 } });
    // Native-resolution tiles where screenTileRects put them: 128 px squares inside the frame.
    expect(jpeg.tiles.map(({ x, y, width, height }) => ({ x, y, width, height }))).toEqual(screenTileRects(192, 128));
    const textured = jpeg.overview.data.reduce((max, v) => Math.max(max, v), 0) - jpeg.overview.data.reduce((min, v) => Math.min(min, v), 255);
    expect(textured).toBeGreaterThan(60);
    for (const [name, type] of [
      ["dune-progressive.jpg", "image/jpeg"],
      ["dune.webp", "image/webp"],
      ["dune.heic", "image/heic"],
    ] as const) {
      const other = await decodeSample(name, type);
      expect({ name, width: other.width, height: other.height }).toEqual({ name, width: 192, height: 128 });
      // Lossy codecs of one crop: close, never identical to a constant or a shifted picture.
      expect(meanAbsDiff(other.overview.data, jpeg.overview.data)).toBeLessThan(4);
      expect(meanAbsDiff(other.tiles[0]!.data, jpeg.tiles[0]!.data)).toBeLessThan(5);
      expect(meanAbsDiff(other.thumbnail!.rgb, jpeg.thumbnail!.rgb)).toBeLessThan(5);
    }
  });

  it("JPEG tiles cut from luma strips equal the same regions of a whole-frame decode, baseline and progressive", async () => {
    for (const name of ["dune.jpg", "dune-progressive.jpg"]) {
      const bytes = await samplePhoto(name);
      const whole = (await decodeImage(bytes, "image/jpeg", { tiles: (w, h) => [{ x: 0, y: 0, width: w, height: h }] })).tiles[0]!;
      expect(whole).toMatchObject({ width: 192, height: 128 });
      // Left, middle, right and bottom-edge regions: the plan reads them as a top-down and a bottom-up strip.
      const rects = [
        { x: 0, y: 0, width: 32, height: 32 },
        { x: 80, y: 40, width: 33, height: 20 },
        { x: 150, y: 90, width: 42, height: 38 },
        { x: 170, y: 10, width: 22, height: 10 },
      ];
      // One top-down strip (a frame this small fits ONE_PASS_LUMA_BYTES), and with no one-pass
      // budget the least-memory plan: a top-down and a bottom-up strip.
      expect(planStrips(192, rects)).toHaveLength(1);
      expect(planStrips(192, rects, 0).map((s) => s.bottomUp)).toEqual([false, true]);
      for (const onePassBytes of [undefined, 0]) {
        const tiles = (await decodeJpeg(bytes, { tiles: () => rects }, onePassBytes)).tiles;
        for (const [i, tile] of tiles.entries()) {
          const rect = rects[i]!;
          const expected = new Uint8Array(rect.width * rect.height);
          for (let y = 0; y < rect.height; y += 1) expected.set(whole.data.subarray((rect.y + y) * 192 + rect.x, (rect.y + y) * 192 + rect.x + rect.width), y * rect.width);
          expect({ name, onePassBytes, ...rect, same: tile.data.every((v, k) => v === expected[k]) }).toEqual({ name, onePassBytes, ...rect, same: true });
        }
      }
    }
  });

  it("tiles take one entropy pass up to 16 MP of luma, and the least memory beyond", () => {
    // The phone photo's 12 MP: one strip of the rows down to the lowest tile.
    expect(planStrips(4000, screenTileRects(4000, 3000))).toEqual([{ rows: expect.any(Number), pitch: expect.any(Number), bottomUp: false }]);
    const rects = screenTileRects(8160, 6120);
    const onePass = Math.max(...rects.map((r) => r.y + r.height)) * Math.max(...rects.map((r) => r.x + r.width));
    expect(onePass).toBeGreaterThan(ONE_PASS_LUMA_BYTES);
    const huge = planStrips(8160, rects);
    expect(huge).toHaveLength(2);
    expect(Math.max(...huge.map((s) => s.rows * s.pitch))).toBeLessThan(onePass * 0.7);
    expect(planStrips(100, [])).toEqual([]);
  });

  it("PNG streams losslessly across many IDAT chunks and output buffers: tiles are the exact luma", async () => {
    // 320×240 RGB, 225 KB raw: a pattern split into 997-byte IDAT chunks, and a nearly flat image
    // whose single small chunk inflates to more than one 64 KB output buffer at once.
    const [width, height] = [320, 240];
    const pattern = new Uint8Array(width * height * 3);
    const flat = new Uint8Array(width * height * 3).fill(200);
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) pattern.set([x & 255, y, (x * y) & 255], (y * width + x) * 3);
    }
    flat.set([10, 20, 30], (239 * width + 319) * 3);
    for (const [rgb, chunk] of [
      [pattern, 997],
      [flat, 1 << 20],
    ] as const) {
      const bytes = rechunkIdat(encodePng({ width, height, data: rgb, channels: 3 }), chunk);
      const png = await decodeImage(bytes, "image/png", { tiles: screenTileRects, thumbnailMaxSide: 64 });
      const luma = (p: number) => (77 * rgb[p]! + 150 * rgb[p + 1]! + 29 * rgb[p + 2]! + 128) >> 8;
      expect(png.tiles.length).toBeGreaterThan(1);
      for (const tile of png.tiles) {
        const expected = new Uint8Array(tile.width * tile.height);
        for (let y = 0; y < tile.height; y += 1) {
          for (let x = 0; x < tile.width; x += 1) expected[y * tile.width + x] = luma(((tile.y + y) * width + tile.x + x) * 3);
        }
        expect({ chunk, x: tile.x, y: tile.y, same: tile.data.every((v, k) => v === expected[k]) }).toEqual({ chunk, x: tile.x, y: tile.y, same: true });
      }
      // 320 px fit the 1024 px overview: it is the luma itself, down to the last pixel.
      expect(png.overview).toMatchObject({ width, height });
      expect(png.overview.data[239 * width + 319]).toBe(luma((239 * width + 319) * 3));
      expect(png.thumbnail).toMatchObject({ width: 64, height: 48 });
    }
  });

  it("PNG streams through pako's inflater and matches the JPEG at its scale", async () => {
    const png = await decodeSample("dune.png", "image/png");
    expect(png).toMatchObject({ width: 96, height: 64, thumbnail: { width: 96, height: 64 } });
    const jpeg = await decodeImage(await samplePhoto("dune.jpg"), "image/jpeg", { thumbnailMaxSide: 96 });
    expect(meanAbsDiff(png.thumbnail!.rgb, jpeg.thumbnail!.rgb)).toBeLessThan(6);
  });

  it("without a tile request no native-resolution pass is made, and no thumbnail without a size", async () => {
    const plain = await decodeImage(await samplePhoto("dune.jpg"), "image/jpeg");
    expect(plain).toMatchObject({ width: 192, height: 128, overview: { width: 192, height: 128 }, tiles: [], thumbnail: null });
  });

  it("corrupt, truncated and unknown inputs are DecodeFailures with a reason, never pixels", async () => {
    const jpeg = await samplePhoto("dune.jpg");
    const cases: Array<[Uint8Array, string, string]> = [
      [jpeg.slice(0, 600), "image/jpeg", "undecodable_image"],
      [Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 1, 2]), "image/jpeg", "undecodable_image"],
      [(await samplePhoto("dune.webp")).slice(0, 200), "image/webp", "undecodable_image"],
      [(await samplePhoto("dune.heic")).slice(0, 300), "image/heic", "undecodable_image"],
      [(await samplePhoto("dune.png")).slice(0, 400), "image/png", "undecodable_image"],
      [jpeg, "image/gif", "undecodable_image"],
    ];
    for (const [bytes, type, reason] of cases) {
      const outcome = await decodeImage(bytes, type, request).then(
        () => "decoded",
        (err: unknown) => (err instanceof DecodeFailure ? err.reason : `other: ${String(err)}`),
      );
      expect({ type, size: bytes.length, outcome }).toEqual({ type, size: bytes.length, outcome: reason });
    }
  });
});
