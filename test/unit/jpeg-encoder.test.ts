import { describe, expect, it } from "vitest";
import { decodeImage } from "../../src/analysis/decoders";
import { encodeJpeg } from "../../src/analysis/jpeg-encoder";
import { decodeRgb, naturalScene, type Rgb } from "../helpers/synth";

/** Peak signal-to-noise ratio of two RGB images of the same size, in dB. */
function psnr(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i]! - b[i]!) ** 2;
  return 10 * Math.log10((255 * 255) / (sum / a.length));
}

function flat(width: number, height: number, rgb: [number, number, number]): Rgb {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i += 3) data.set(rgb, i);
  return { width, height, data };
}

describe("the analysis's JPEG encoder (baseline, 4:2:0)", () => {
  it("writes what libjpeg-turbo and jpeg-js both decode to the same picture, at any size", async () => {
    for (const [width, height] of [
      [256, 192],
      [97, 61],
      [1, 1],
      [17, 33],
    ] as const) {
      const scene = naturalScene(width, height, width);
      const jpeg = encodeJpeg(scene.data, width, height, 90);
      const byLibjpeg = await decodeImage(jpeg, "image/jpeg", { thumbnailMaxSide: Math.max(width, height) });
      expect({ width: byLibjpeg.width, height: byLibjpeg.height }).toEqual({ width, height });
      const byJpegJs = decodeRgb(jpeg, "image/jpeg");
      expect({ width: byJpegJs.width, height: byJpegJs.height }).toEqual({ width, height });
      // 4:2:0 loses chroma detail; the luma carries the picture.
      if (width >= 17) {
        expect(psnr(byLibjpeg.thumbnail!.rgb, scene.data)).toBeGreaterThan(30);
        expect(psnr(byJpegJs.data, scene.data)).toBeGreaterThan(30);
      }
    }
  });

  it("keeps flat colours (black, white, saturated) and makes files smaller as quality drops", () => {
    for (const colour of [
      [0, 0, 0],
      [255, 255, 255],
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
    ] as Array<[number, number, number]>) {
      const image = flat(40, 24, colour);
      const decoded = decodeRgb(encodeJpeg(image.data, 40, 24, 85), "image/jpeg");
      for (let c = 0; c < 3; c += 1) expect({ colour, c, v: Math.abs(decoded.data[c]! - colour[c]!) <= 3 }).toEqual({ colour, c, v: true });
    }
    const scene = naturalScene(128, 96, 3);
    const sizes = [95, 85, 50, 10].map((q) => encodeJpeg(scene.data, 128, 96, q).length);
    expect([...sizes].sort((a, b) => b - a)).toEqual(sizes);
  });
});
