import { describe, expect, it } from "vitest";
import { PATCH_SIDE } from "../../src/analysis/burst/measures";
import { patchAgreement, photoCentre } from "../../src/analysis/burst/patch-agreement";
import { decodeImage } from "../../src/analysis/decoders";
import { screenTileRects } from "../../src/analysis/signals/screen-moire";
import { encodeJpeg, rng, type Rgb } from "../helpers/synth";

/*
 * The first native patch against the photo's centre (analysis/burst/patch-agreement.ts): the page
 * cuts both from one drawing, so a genuine patch is the photo's centre up to JPEG rounding, and a
 * real camera's patch of something else is not.
 */

/** The centre PATCH_SIDE² of a grey `width`-wide image, cut as the page cuts its first patch. */
function pageCentre(grey: Uint8Array, width: number, height: number): Uint8Array {
  const x0 = (width - PATCH_SIDE) >> 1;
  const y0 = (height - PATCH_SIDE) >> 1;
  const out = new Uint8Array(PATCH_SIDE * PATCH_SIDE);
  for (let y = 0; y < PATCH_SIDE; y += 1) out.set(grey.subarray((y0 + y) * width + x0, (y0 + y) * width + x0 + PATCH_SIDE), y * PATCH_SIDE);
  return out;
}

/** A photo with texture at every scale from 6 px up (leaves, gravel, fabric), in colour. */
function texturedScene(width: number, height: number, seed: number): Rgb {
  const r = rng(seed);
  const waves = Array.from({ length: 40 }, () => {
    const period = 6 + r() * 60;
    const angle = r() * Math.PI;
    return { kx: (Math.cos(angle) * 2 * Math.PI) / period, ky: (Math.sin(angle) * 2 * Math.PI) / period, p: r() * 6.28, a: 3 + r() * 6 };
  });
  const tint = [0.8 + 0.2 * r(), 0.8 + 0.2 * r(), 0.8 + 0.2 * r()];
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      let v = 0;
      for (const w of waves) v += w.a * Math.sin(w.kx * x + w.ky * y + w.p);
      for (let ch = 0; ch < 3; ch += 1) data[(y * width + x) * 3 + ch] = Math.max(0, Math.min(255, Math.round(128 + tint[ch]! * v)));
    }
  }
  return { width, height, data };
}

const lumaOf = (rgb: Uint8Array) => Uint8Array.from({ length: rgb.length / 3 }, (_, i) => (rgb[i * 3]! * 77 + rgb[i * 3 + 1]! * 150 + rgb[i * 3 + 2]! * 29) >> 8);

async function decoded(width: number, height: number, seed: number) {
  const scene = texturedScene(width, height, seed);
  const pixels = await decodeImage(encodeJpeg(scene, 90), "image/jpeg", { tiles: screenTileRects });
  return { pixels, grey: lumaOf(scene.data) };
}

describe("the first native patch against the photo's centre", () => {
  it.each([
    [640, 480],
    [321, 241],
    [1280, 960],
  ])("a %i × %i photo: its own centre agrees, through its JPEG", async (width, height) => {
    const { pixels, grey } = await decoded(width, height, 7100 + width);
    const centre = photoCentre(pixels);
    expect(centre).not.toBeNull();
    const first = pageCentre(grey, width, height);
    const agreement = patchAgreement(centre, [first]);
    expect(agreement).toMatchObject({ measured: true });
    expect((agreement as { score: number }).score).toBeGreaterThanOrEqual(0.98);
  });

  it("a crop of another scene (a real camera's, of anything) does not", async () => {
    const { pixels } = await decoded(640, 480, 7201);
    const other = await decoded(640, 480, 7202);
    const agreement = patchAgreement(photoCentre(pixels), [pageCentre(other.grey, 640, 480)]);
    expect(agreement).toMatchObject({ measured: true });
    expect((agreement as { score: number }).score).toBeLessThan(0.9);
  });

  it("a crop of the same photo a few pixels off centre does not either (it is not the page's cut)", async () => {
    const { pixels, grey } = await decoded(640, 480, 7203);
    const shifted = pageCentre(grey.subarray(6 * 640 + 6), 640, 480 - 7);
    const score = (patchAgreement(photoCentre(pixels), [shifted]) as { score: number }).score;
    expect(score).toBeLessThan(0.9);
  });

  it("a plain centre, or a photo smaller than a patch, is not compared", async () => {
    const r = rng(7204);
    const plain = new Uint8Array(PATCH_SIDE * PATCH_SIDE).map(() => 120 + Math.round(r() * 2));
    expect(patchAgreement(plain, [plain])).toMatchObject({ measured: false, why: "plain" });
    expect(photoCentre({ width: 40, height: 30, tiles: [] })).toBeNull();
    expect(patchAgreement(null, [plain])).toMatchObject({ measured: false, why: "no_centre" });
  });
});
