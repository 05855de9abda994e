import { describe, expect, it } from "vitest";
import { analyzeImage } from "../../src/analysis/analyze-image";
import { decodeImage } from "../../src/analysis/decoders";
import { imageFingerprint, MIN_TEXTURE, sameImage, type Fingerprint } from "../../src/analysis/signals/perceptual-hash";
import { astronautFlagJpeg, astronautJpeg, chelseaJpeg, coffeeJpeg } from "../fixtures/photos";
import { resizeArea } from "../helpers/recapture";
import { crop, decodeRgb, encodeJpeg, rng, type Rgb } from "../helpers/synth";

async function fingerprintOf(image: Rgb, quality = 90): Promise<Fingerprint> {
  return imageFingerprint((await decodeImage(encodeJpeg(image, quality), "image/jpeg"))!.overview);
}

/** A blank surface (a wall, a sheet) photographed with lens vignetting, a lighting gradient and noise. */
function blankSurface(width: number, height: number, o: { level: number[]; vignette: number; gradient: number; seed: number }): Rgb {
  const r = rng(o.seed);
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const dx = x / width - 0.5;
      const dy = y / height - 0.5;
      const light = (1 - o.vignette * (dx * dx + dy * dy) * 2) * (1 + o.gradient * dx);
      for (let c = 0; c < 3; c += 1) data[(y * width + x) * 3 + c] = Math.max(0, Math.min(255, o.level[c]! * light + (r() - 0.5) * 6));
    }
  }
  return { width, height, data };
}

const photos = [chelseaJpeg, coffeeJpeg, astronautJpeg, astronautFlagJpeg].map((jpeg) => decodeRgb(jpeg, "image/jpeg"));
const brightness = (image: Rgb, shift: number): Rgb => ({ ...image, data: image.data.map((v) => Math.max(0, Math.min(255, v + shift))) });

describe("near-duplicate fingerprint (pHash with a dHash vote, crop windows)", () => {
  it("real photographs are textured enough to match", async () => {
    for (const photo of photos) expect((await fingerprintOf(photo)).matchable).toBe(true);
  });

  it("a resized, recompressed, cropped (≤ 10 %) or brightness-shifted copy is the same picture", async () => {
    for (const photo of photos) {
      const original = await fingerprintOf(photo);
      const { width: w, height: h } = photo;
      const copies = [
        resizeArea(photo, Math.round(w / 2), Math.round(h / 2)),
        photo,
        crop(photo, Math.round(w * 0.05), Math.round(h * 0.05), Math.round(w * 0.9), Math.round(h * 0.9)),
        crop(photo, Math.round(w * 0.1), 0, Math.round(w * 0.9), h),
        crop(photo, Math.round(w * 0.03), Math.round(h * 0.03), Math.round(w * 0.94), Math.round(h * 0.94)),
        brightness(photo, 25),
        brightness(photo, -25),
      ];
      for (const copy of copies) expect(sameImage(original, await fingerprintOf(copy, 60))).toBe(true);
    }
  });

  it("different photographs are never the same picture", async () => {
    const prints = await Promise.all(photos.map((p) => fingerprintOf(p)));
    for (let i = 0; i < prints.length; i += 1) for (let j = i + 1; j < prints.length; j += 1) expect(sameImage(prints[i]!, prints[j]!)).toBe(false);
  });

  it("two different low-texture images with vignetting are refused, not matched", async () => {
    const wall = await fingerprintOf(blankSurface(320, 240, { level: [200, 200, 195], vignette: 0.5, gradient: 0.1, seed: 1 }));
    const sheet = await fingerprintOf(blankSurface(320, 240, { level: [120, 100, 80], vignette: 0.35, gradient: -0.2, seed: 2 }));
    for (const fp of [wall, sheet]) {
      expect(fp.matchable).toBe(false);
      expect(fp.texture).toBeLessThan(MIN_TEXTURE);
    }
    expect(sameImage(wall, sheet)).toBe(false);
    expect(sameImage(wall, wall)).toBe(false);
  });

  it("the analysis neither indexes nor matches a low-texture image, and says why", async () => {
    let lookups = 0;
    // Even a web search that finds nothing does not assess it: the index never compared it.
    const web = { name: "web", search: async () => ({ found: false, count: 0, evidence: [] }) };
    const deps = { searchHistory: async () => ((lookups += 1), { matches: [], shared: false }), vision: null, web, trustedSigners: [] };
    const bytes = encodeJpeg(blankSurface(320, 240, { level: [180, 180, 180], vignette: 0.5, gradient: 0, seed: 3 }));
    const result = await analyzeImage(
      { captureId: "cap_blank", tenantId: "tnt_a", bytes, mediaType: "image/jpeg", uploaded: false, depthPng: null, channel: "api", captureIntegrity: null, location: null, clientCapturedAt: null, required: ["reverse"] },
      deps,
    );
    expect(lookups).toBe(0);
    expect(result.phash).toMatchObject({ matchable: false });
    expect(result.signals.reverse_search).toEqual({ status: "not_assessed", reason: "low_texture" });
  });
});
