import { decodeImage } from "../../src/analysis/decoders";
import { imageFingerprint, sameImage, type Fingerprint } from "../../src/analysis/signals/perceptual-hash";
import { cropRgb, resizeArea } from "../../test/helpers/recapture";
import { encodeJpeg, mirror, rng, type Rgb } from "../../test/helpers/synth";
import type { Photo } from "./photos";
import type { Row } from "./stats";

/*
 * reverse_search's internal index on real photographs: copies that must be caught, unrelated pairs
 * that must not match (every pair), and low-texture images that must be refused.
 */

async function fingerprint(image: Rgb, quality: number): Promise<Fingerprint> {
  return imageFingerprint((await decodeImage(encodeJpeg(image, quality), "image/jpeg"))!.overview);
}

const shift = (image: Rgb, f: (v: number) => number): Rgb => ({ ...image, data: image.data.map((v) => Math.max(0, Math.min(255, Math.round(f(v))))) });
const part = (o: Rgb, l: number, t: number, r: number, b: number) =>
  cropRgb(o, Math.round(o.width * l), Math.round(o.height * t), Math.round(o.width * (1 - l - r)), Math.round(o.height * (1 - t - b)));

/** Several shots of one scene (stereo pairs, a calibration series) are related, not unrelated. */
const SERIES = /__(left|right)\d+$/;

/** A blank surface with vignetting, a lighting gradient and sensor noise. */
function blankSurface(seed: number): Rgb {
  const r = rng(seed);
  const level = [60 + r() * 160, 60 + r() * 160, 60 + r() * 160];
  const vignette = 0.2 + r() * 0.5;
  const gradient = (r() - 0.5) * 0.4;
  const width = 480;
  const height = 360;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const dx = x / width - 0.5;
      const dy = y / height - 0.5;
      const light = (1 - vignette * (dx * dx + dy * dy) * 2) * (1 + gradient * dx);
      for (let c = 0; c < 3; c += 1) data[(y * width + x) * 3 + c] = Math.max(0, Math.min(255, level[c]! * light + (r() - 0.5) * 8));
    }
  }
  return { width, height, data };
}

export async function evaluateReuse(photos: Photo[], record: (row: Row) => void): Promise<void> {
  const signal = "reverse_search";
  const originals = photos.map((p) => {
    const f = Math.min(1, 1024 / Math.max(p.rgb.width, p.rgb.height));
    return f < 1 ? resizeArea(p.rgb, Math.round(p.rgb.width * f), Math.round(p.rgb.height * f)) : p.rgb;
  });
  const base = await Promise.all(originals.map((o) => fingerprint(o, 92)));
  const copies: Array<[string, (o: Rgb) => Rgb, number]> = [
    ["recompressed (JPEG q60)", (o) => o, 60],
    ["resized to 50% (q80)", (o) => resizeArea(o, Math.round(o.width / 2), Math.round(o.height / 2)), 80],
    ["resized to 25% (q80)", (o) => resizeArea(o, Math.round(o.width / 4), Math.round(o.height / 4)), 80],
    ["cropped 5% off every side", (o) => part(o, 0.05, 0.05, 0.05, 0.05), 85],
    ["cropped 3% off every side", (o) => part(o, 0.03, 0.03, 0.03, 0.03), 85],
    ["cropped 10% off the right", (o) => part(o, 0, 0, 0.1, 0), 85],
    ["cropped 10% off the top and the left", (o) => part(o, 0.1, 0.1, 0, 0), 85],
    ["cropped 7% left, 3% top", (o) => part(o, 0.07, 0.03, 0, 0), 85],
    ["brighter (+25 levels)", (o) => shift(o, (v) => v + 25), 85],
    ["darker (× 0.75)", (o) => shift(o, (v) => v * 0.75), 85],
    ["gamma 0.8", (o) => shift(o, (v) => 255 * (v / 255) ** 0.8), 85],
  ];
  const caught = "real photographs: copies (resized, recompressed, cropped ≤ 10 %, brightness)";
  for (const [name, make, quality] of copies) {
    const hits = await Promise.all(originals.map(async (o, i) => sameImage(base[i]!, await fingerprint(make(o), quality))));
    record({ signal, case: `real photograph ${name}`, positive: true, n: hits.length, flagged: hits.filter(Boolean).length, summary: caught });
  }
  const misses = "known misses (not required)";
  const hard: Array<[string, (o: Rgb) => Rgb]> = [
    ["cropped 20% off every side", (o) => part(o, 0.2, 0.2, 0.2, 0.2)],
    ["mirrored", (o) => mirror(o)],
  ];
  for (const [name, make] of hard) {
    const hits = await Promise.all(originals.map(async (o, i) => sameImage(base[i]!, await fingerprint(make(o), 85))));
    record({ signal, case: `real photograph ${name}`, positive: true, n: hits.length, flagged: hits.filter(Boolean).length, summary: misses });
  }

  let pairs = 0;
  let matched = 0;
  for (let i = 0; i < base.length; i += 1) {
    for (let j = i + 1; j < base.length; j += 1) {
      if (SERIES.test(photos[i]!.name) && SERIES.test(photos[j]!.name)) continue;
      pairs += 1;
      if (sameImage(base[i]!, base[j]!)) matched += 1;
    }
  }
  const unrelated = "unrelated images";
  record({ signal, case: "unrelated real photographs, every pair (calibration series of one scene excluded)", positive: false, n: pairs, flagged: matched, summary: unrelated });
  const refused = await Promise.all(originals.map(async (_, i) => !base[i]!.matchable));
  record({ signal, case: "real photographs refused as low-texture", positive: false, n: refused.length, flagged: refused.filter(Boolean).length, summary: "real photographs refused (low texture)" });

  const blanks = await Promise.all(Array.from({ length: 24 }, (_, i) => fingerprint(blankSurface(500 + i), 85)));
  let blankPairs = 0;
  let blankMatches = 0;
  for (let i = 0; i < blanks.length; i += 1) {
    for (let j = i + 1; j < blanks.length; j += 1) {
      blankPairs += 1;
      if (sameImage(blanks[i]!, blanks[j]!)) blankMatches += 1;
    }
  }
  record({ signal, case: "different low-texture images with vignetting (blank surfaces), every pair", positive: false, n: blankPairs, flagged: blankMatches, summary: unrelated });
  record({ signal, case: "low-texture images with vignetting refused (not matchable)", positive: true, n: blanks.length, flagged: blanks.filter((b) => !b.matchable).length, summary: "low-texture images refused" });
}
