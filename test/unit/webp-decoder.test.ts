import { describe, expect, it } from "vitest";
import { DecodeFailure, OVERVIEW_MAX_SIDE, type DecodedImage, type DecodeRequest } from "../../src/analysis/pixels";
import { decodeWebp, planBands } from "../../src/analysis/decoders/webp";
import { screenTileRects } from "../../src/analysis/signals/screen-moire";
import { samplePhoto } from "../helpers/photos";

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

  it("a lossless WebP too large to hold whole as ARGB is image_too_large before anything is decoded", async () => {
    // RIFF header + VP8L chunk header of an 8160×6120 frame (14-bit width-1, height-1, no alpha, version 0).
    const bytes = new Uint8Array(64);
    const view = new DataView(bytes.buffer);
    bytes.set(Uint8Array.from("RIFF\0\0\0\0WEBPVP8L", (c) => c.charCodeAt(0)));
    view.setUint32(4, bytes.length - 8, true);
    view.setUint32(16, bytes.length - 20, true);
    bytes[20] = 0x2f;
    view.setUint32(21, (8160 - 1) | ((6120 - 1) << 14), true);
    expect(await outcome(bytes, {})).toBe("image_too_large");
  });
});
