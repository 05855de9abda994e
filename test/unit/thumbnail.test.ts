import jpeg from "jpeg-js";
import { describe, expect, it } from "vitest";
import { evidenceThumbnail, fit, orient, EVIDENCE_THUMBNAIL_MAX_SIDE } from "../../src/analysis/thumbnail";
import { decodeImage } from "../../src/analysis/decoders";
import { encodeJpeg, naturalScene, orientationTiff } from "../helpers/synth";

/** A w×h RGB image whose every pixel encodes its own position (r = x, g = y). */
function positions(width: number, height: number) {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) for (let x = 0; x < width; x += 1) rgb.set([x, y, 7], (y * width + x) * 3);
  return { width, height, rgb };
}

const at = (img: { width: number; rgb: Uint8Array }, x: number, y: number) => [...img.rgb.subarray((y * img.width + x) * 3, (y * img.width + x) * 3 + 3)];

describe("evidence thumbnail", () => {
  it("fits the longest side to 480 px by area average and never upscales", () => {
    const big = fit({ width: 1024, height: 768, rgb: new Uint8Array(1024 * 768 * 3).fill(200) }, EVIDENCE_THUMBNAIL_MAX_SIDE);
    expect([big.width, big.height]).toEqual([480, 360]);
    expect(big.rgb.every((v) => v === 200)).toBe(true);
    const tall = fit({ width: 300, height: 1000, rgb: new Uint8Array(300 * 1000 * 3) }, 480);
    expect([tall.width, tall.height]).toEqual([144, 480]);
    const small = { width: 320, height: 240, rgb: new Uint8Array(320 * 240 * 3) };
    expect(fit(small, 480)).toBe(small);
  });

  it("turns each EXIF orientation upright", () => {
    const img = positions(4, 3);
    // 6: the camera was turned clockwise; displayed, the stored left column becomes the top row reversed.
    const six = orient(img, 6);
    expect([six.width, six.height]).toEqual([3, 4]);
    expect(at(six, 0, 0)).toEqual([0, 2, 7]);
    expect(at(six, 2, 0)).toEqual([0, 0, 7]);
    const three = orient(img, 3);
    expect(at(three, 0, 0)).toEqual([3, 2, 7]);
    const eight = orient(img, 8);
    expect(at(eight, 0, 0)).toEqual([3, 0, 7]);
    expect(orient(img, 1)).toBe(img);
  });

  it("encodes the analysis' decoded thumbnail as an upright ≤ 480 px JPEG (EXIF orientation 6 swaps the sides)", async () => {
    const scene = naturalScene(800, 600, 11);
    const bytes = encodeJpeg(scene, 90, orientationTiff(6));
    const decoded = (await decodeImage(bytes, "image/jpeg", { thumbnailMaxSide: EVIDENCE_THUMBNAIL_MAX_SIDE }))!;
    const thumb = await evidenceThumbnail(decoded.thumbnail!, bytes);
    expect([thumb.width, thumb.height]).toEqual([360, 480]);
    const back = jpeg.decode(thumb.jpeg, { useTArray: true });
    expect([back.width, back.height]).toEqual([360, 480]);
  });
});
