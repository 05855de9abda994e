import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cropRgb, displayRecapture, resizeArea, texturedScene, type SubpixelLayout, type TextureKind } from "../../test/helpers/recapture";
import { rng, type Rgb } from "../../test/helpers/synth";
import { encodeJpeg420 } from "./jpeg420";
import type { Photo } from "./photos";

/*
 * The screen detector's labelled cases, built from the real photographs: the photographs themselves
 * (negatives), the same photographs with a periodic texture covering the scene (hard negatives), and
 * the same photographs shown on a simulated display and photographed again (positives,
 * test/helpers/recapture.ts). Every synthetic case goes through one camera model: sensor-area
 * integration, lens blur, Bayer mosaic with noise, bilinear demosaicing, an optional resize, and a
 * camera's JPEG (baseline, 4:2:0, q75–95). Encoded cases are cached in .cache/eval-screen/.
 *
 * Each photograph, and every case made from it, belongs to one split (a hash of its name): the
 * detector's rules and thresholds are chosen on `train` and the rates in docs/signals.md are
 * measured on `test` only.
 */

export type Split = "train" | "test";
export type Group = "real" | "texture-coarse" | "texture-fine" | "recapture";

export interface ScreenCase {
  id: string;
  photo: string;
  split: Split;
  group: Group;
  positive: boolean;
  /** The table row the case is counted in. */
  row: string;
  /** For recaptures: what the per-condition rows break down by. */
  conditions?: { pitch: number; layout: SubpixelLayout; angle: number; blur: number; rescale: number };
  /** For textures: how the scene was textured and photographed. */
  texture?: { kind: TextureKind; period: number; angle: number; blur: number; rescale: number; keystone: number };
  mediaType: "image/jpeg" | "image/png";
  bytes: () => Promise<Uint8Array>;
}

const CACHE = new URL("../../.cache/eval-screen/", import.meta.url);
/** Bump when the generation changes, so stale cached images are not reused. */
const GENERATION = 3;

const FRAME = { width: 640, height: 480 };
export const PITCHES = [1.5, 2, 2.5, 3, 4, 5.5];
const ANGLES = [0, 2, 6, 12, 25, 40];
const LAYOUTS: SubpixelLayout[] = ["rgb-stripe", "pentile"];
const BLURS = [0.5, 0.9, 1.4];
const QUALITIES = [95, 85, 75];
const RESCALES = [1, 1, 0.75];
const RECAPTURES_PER_PHOTO = 4;
const TEXTURES_PER_PHOTO = 6;
/** Periods (camera px) per texture kind; the smallest repeat decides the group (below). */
const TEXTURES: Array<[TextureKind, number[]]> = [
  ["stripes", [3, 4, 5, 7, 12]],
  ["tiles", [8, 12, 16, 32]],
  ["checkerboard", [4, 6, 8, 11, 16, 32]],
  ["mesh", [3, 4, 5, 6, 8, 12]],
  ["weave", [4, 6, 8, 12, 16, 32]],
];
const TEXTURE_ANGLES = [0, 3, 10, 15, 20, 30, 45];

export function splitOf(name: string): Split {
  let h = 2166136261;
  for (let i = 0; i < name.length; i += 1) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return (h >>> 0) % 2 === 0 ? "train" : "test";
}

/** The smallest repeat of a texture: half the period for weaves (over/under cells), period/√2 for a checkerboard's diagonal. */
export function textureRepeat(kind: TextureKind, period: number): number {
  return kind === "weave" ? period / 2 : kind === "checkerboard" ? period / Math.SQRT2 : period;
}

function cached(id: string, make: () => Promise<Uint8Array>): () => Promise<Uint8Array> {
  return async () => {
    const file = new URL(`${id}.jpg`, CACHE);
    if (existsSync(file)) return new Uint8Array(readFileSync(file));
    const bytes = await make();
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(file, bytes);
    return bytes;
  };
}

/** The photograph scaled and centre-cropped to fill a frame. */
function cover(image: Rgb, width: number, height: number): Rgb {
  const s = Math.max(width / image.width, height / image.height);
  const scaled = resizeArea(image, Math.round(image.width * s), Math.round(image.height * s));
  return cropRgb(scaled, Math.floor((scaled.width - width) / 2), Math.floor((scaled.height - height) / 2), width, height);
}

export function screenCases(photos: Photo[]): ScreenCase[] {
  const cases: ScreenCase[] = [];
  for (const [i, p] of photos.entries()) {
    const split = splitOf(p.name);
    const base = { photo: p.name, split };
    // Negatives: the photograph as shipped, downscaled, and a native-resolution crop at a lower quality.
    cases.push({ ...base, id: `${GENERATION}-shipped-${p.name}`, group: "real", positive: false, row: "real photographs as shipped (JPEG/PNG)", mediaType: p.mediaType, bytes: async () => p.bytes });
    cases.push({
      ...base,
      id: `${GENERATION}-down-${p.name}`,
      group: "real",
      positive: false,
      row: "real photographs downscaled to ≤ 1024 px, JPEG q85",
      mediaType: "image/jpeg",
      bytes: cached(`${GENERATION}-down-${p.name}`, () => {
        const f = Math.min(1, 1024 / Math.max(p.rgb.width, p.rgb.height));
        return encodeJpeg420(resizeArea(p.rgb, Math.round(p.rgb.width * f), Math.round(p.rgb.height * f)), 85);
      }),
    });
    cases.push({
      ...base,
      id: `${GENERATION}-crop-${p.name}`,
      group: "real",
      positive: false,
      row: "real photographs, native-resolution 768×576 crops, JPEG q70",
      mediaType: "image/jpeg",
      bytes: cached(`${GENERATION}-crop-${p.name}`, () => {
        const w = Math.min(768, p.rgb.width);
        const h = Math.min(576, p.rgb.height);
        return encodeJpeg420(cropRgb(p.rgb, Math.floor((p.rgb.width - w) / 3), Math.floor((p.rgb.height - h) / 3), w, h), 70);
      }),
    });

    // Hard negatives: a periodic texture covering the whole scene (perfectly periodic and flat:
    // harder than real textures, which perspective and wear make irregular), photographed.
    for (let k = 0; k < TEXTURES_PER_PHOTO; k += 1) {
      const r = rng(5000 + i * TEXTURES_PER_PHOTO + k);
      const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
      const [kind, periods] = TEXTURES[(i * TEXTURES_PER_PHOTO + k) % TEXTURES.length]!;
      const o = { kind, period: pick(periods), angleDeg: pick(TEXTURE_ANGLES), keystone: pick([0, 0.1]), blurSigma: pick(BLURS), noise: 2, rescale: pick(RESCALES), seed: i * TEXTURES_PER_PHOTO + k };
      const quality = pick(QUALITIES);
      // The repeat in the image as delivered (after any resampling) decides the group.
      const fine = kind !== "stripes" && textureRepeat(kind, o.period) * o.rescale < 8;
      const id = `${GENERATION}-texture-${p.name}-${k}`;
      cases.push({
        ...base,
        id,
        group: fine ? "texture-fine" : "texture-coarse",
        positive: false,
        row: kind === "stripes" ? "stripes (periods 3–12 px, 0–45°)" : `${kind}, repeat ${fine ? "< 8 px (a display's range)" : "≥ 8 px"}`,
        texture: { kind, period: o.period, angle: o.angleDeg, blur: o.blurSigma, rescale: o.rescale, keystone: o.keystone },
        mediaType: "image/jpeg",
        bytes: cached(id, () => encodeJpeg420(texturedScene(cover(p.rgb, FRAME.width, FRAME.height), o), quality)),
      });
    }

    // Positives: the photograph shown full-screen and photographed; the pitch cycles so each gets
    // the same share, the other conditions are drawn per shot.
    for (let k = 0; k < RECAPTURES_PER_PHOTO; k += 1) {
      const r = rng(1000 + i * RECAPTURES_PER_PHOTO + k);
      const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
      const o = { pitch: PITCHES[(i * RECAPTURES_PER_PHOTO + k) % PITCHES.length]!, angleDeg: pick(ANGLES), layout: pick(LAYOUTS), blurSigma: pick(BLURS), keystone: pick([0, 0.15]), noise: 2, rescale: pick(RESCALES), seed: i * RECAPTURES_PER_PHOTO + k, ...FRAME };
      const quality = pick(QUALITIES);
      const id = `${GENERATION}-recapture-${p.name}-${k}`;
      cases.push({
        ...base,
        id,
        group: "recapture",
        positive: true,
        row: `recapture, display pixel = ${o.pitch} camera px`,
        conditions: { pitch: o.pitch, layout: o.layout, angle: o.angleDeg, blur: o.blurSigma, rescale: o.rescale },
        mediaType: "image/jpeg",
        bytes: cached(id, () => encodeJpeg420(displayRecapture(p.rgb, o), quality)),
      });
    }
  }
  return cases;
}
