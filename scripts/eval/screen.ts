import { decodeImage } from "../../src/analysis/pixels";
import { detectScreen, screenTileRects } from "../../src/analysis/signals/screen-moire";
import { cropRgb, displayRecapture, resizeArea, texturedScene, type SubpixelLayout, type TextureKind } from "../../test/helpers/recapture";
import { encodeJpeg, rng, type Rgb } from "../../test/helpers/synth";
import type { Photo } from "./photos";
import type { Row } from "./stats";

/*
 * screen_detection on real photographs (negatives), the same photographs with a periodic texture in
 * the scene (hard negatives) and the same photographs shown on a display and photographed again
 * (positives, simulated: test/helpers/recapture.ts).
 */

const FRAME = { width: 640, height: 480 };
const PITCHES = [1.5, 2, 2.5, 3, 4, 5.5];
const ANGLES = [0, 2, 6, 12, 25, 40];
const LAYOUTS: SubpixelLayout[] = ["rgb-stripe", "pentile"];
const BLURS = [0.5, 0.9, 1.4];
const QUALITIES = [95, 85, 75];
const RESCALES = [1, 1, 0.75];
const RECAPTURES_PER_PHOTO = 2;

async function flagged(bytes: Uint8Array, mediaType: string): Promise<boolean> {
  return detectScreen(await decodeImage(bytes, mediaType, { tiles: screenTileRects }), null).screen_detected;
}

/** The photograph scaled and centre-cropped to fill a frame. */
function cover(image: Rgb, width: number, height: number): Rgb {
  const s = Math.max(width / image.width, height / image.height);
  const scaled = resizeArea(image, Math.round(image.width * s), Math.round(image.height * s));
  return cropRgb(scaled, Math.floor((scaled.width - width) / 2), Math.floor((scaled.height - height) / 2), width, height);
}

export async function evaluateScreen(photos: Photo[], record: (row: Row) => void): Promise<void> {
  const signal = "screen_detection";
  // Negatives: the photographs as shipped, downscaled, and native-resolution crops at a lower quality.
  const asShipped: boolean[] = [];
  let undecodable = 0;
  const downscaled: boolean[] = [];
  const crops: boolean[] = [];
  for (const p of photos) {
    try {
      asShipped.push(await flagged(p.bytes, p.mediaType));
    } catch {
      undecodable += 1; // above the decoder's megapixel limit: the crops below still cover it
    }
    const f = Math.min(1, 1024 / Math.max(p.rgb.width, p.rgb.height));
    downscaled.push(await flagged(encodeJpeg(resizeArea(p.rgb, Math.round(p.rgb.width * f), Math.round(p.rgb.height * f)), 85), "image/jpeg"));
    const w = Math.min(768, p.rgb.width);
    const h = Math.min(576, p.rgb.height);
    crops.push(await flagged(encodeJpeg(cropRgb(p.rgb, Math.floor((p.rgb.width - w) / 3), Math.floor((p.rgb.height - h) / 3), w, h), 70), "image/jpeg"));
  }
  const real = "real photographs";
  const count = (xs: boolean[]) => ({ n: xs.length, flagged: xs.filter(Boolean).length });
  record({ signal, case: `real photographs as shipped (JPEG/PNG${undecodable ? `; ${undecodable} above 16 MP not decodable today` : ""})`, positive: false, ...count(asShipped), summary: real });
  record({ signal, case: "real photographs downscaled to ≤ 1024 px, JPEG q85", positive: false, ...count(downscaled), summary: real });
  record({ signal, case: "real photographs, native-resolution 768×576 crops, JPEG q70", positive: false, ...count(crops), summary: real });

  // Hard negatives: a periodic texture covering the whole scene, photographed (perfectly periodic,
  // fronto-parallel: harder than real textures, which perspective and wear make irregular).
  const textures: Array<[TextureKind, number[], number[]]> = [
    ["stripes", [4, 7, 12], [3, 10, 30]],
    ["tiles", [8, 16, 32], [0, 15]],
    ["checkerboard", [4, 8, 16, 32], [0, 20]],
    ["mesh", [3, 5, 8, 12], [0, 15]],
    ["weave", [4, 8, 16, 32], [0, 15]],
  ];
  let index = 0;
  for (const [kind, periods, angles] of textures) {
    const coarse: boolean[] = [];
    const fine: boolean[] = [];
    for (const period of periods) {
      for (const angleDeg of angles) {
        for (let k = 0; k < 2; k += 1) {
          const photo = photos[(index * 7 + k * 13) % photos.length]!;
          const scene = texturedScene(cover(photo.rgb, FRAME.width, FRAME.height), { kind, period, angleDeg, keystone: 0, blurSigma: 0.7, noise: 2, rescale: 1, seed: index * 2 + k });
          // The smallest repeat of the texture: half the period for weaves (over/under cells).
          const repeat = kind === "weave" ? period / 2 : kind === "checkerboard" ? period / Math.SQRT2 : period;
          (kind === "stripes" || repeat >= 8 ? coarse : fine).push(await flagged(encodeJpeg(scene, 85), "image/jpeg"));
        }
        index += 1;
      }
    }
    const label = kind === "stripes" ? `stripes at ${angles.join("/")}°, periods ${periods.join("/")} px` : kind;
    if (coarse.length) record({ signal, case: `${label}${kind === "stripes" ? "" : ", repeat ≥ 8 px"}, on real photographs`, positive: false, ...count(coarse), summary: "hard textures: stripes, and 2-D textures repeating every ≥ 8 px" });
    if (fine.length) record({ signal, case: `${label}, repeat < 8 px (a display's range), on real photographs`, positive: false, ...count(fine), summary: "hard textures: 2-D textures repeating every < 8 px" });
  }

  // Positives: each photograph shown full-screen and photographed, conditions drawn per shot.
  const byPitch = new Map<number, boolean[]>();
  const byLayout = new Map<string, boolean[]>();
  const byAngle = new Map<string, boolean[]>();
  const byRescale = new Map<string, boolean[]>();
  for (const [i, photo] of photos.entries()) {
    for (let k = 0; k < RECAPTURES_PER_PHOTO; k += 1) {
      const r = rng(1000 + i * RECAPTURES_PER_PHOTO + k);
      const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
      const o = { pitch: pick(PITCHES), angleDeg: pick(ANGLES), layout: pick(LAYOUTS), blurSigma: pick(BLURS), keystone: pick([0, 0.15]), noise: 2, rescale: pick(RESCALES), seed: i * 2 + k, ...FRAME };
      const hit = await flagged(encodeJpeg(displayRecapture(photo.rgb, o), pick(QUALITIES)), "image/jpeg");
      const push = <K>(map: Map<K, boolean[]>, key: K) => map.set(key, [...(map.get(key) ?? []), hit]);
      push(byPitch, o.pitch);
      push(byLayout, o.layout);
      push(byAngle, o.angleDeg <= 6 ? "0–6°" : "12–40°");
      push(byRescale, o.rescale === 1 ? "kept at capture size" : "resampled to 75 % after capture");
    }
  }
  const shots = "recaptures: photo shown on a display, photographed (lens blur, Bayer, JPEG q75–95)";
  for (const pitch of PITCHES) {
    const xs = byPitch.get(pitch) ?? [];
    record({ signal, case: `recapture, display pixel = ${pitch} camera px${pitch < 2 ? " (finer than the sensor: aliased)" : ""}`, positive: true, ...count(xs), summary: shots });
  }
  for (const [name, map] of [["sub-pixel layout", byLayout], ["angle", byAngle], ["after capture", byRescale]] as const) {
    for (const [key, xs] of [...map.entries()].sort()) record({ signal, case: `recapture by ${name}: ${key}`, positive: true, ...count(xs), summary: `recaptures by ${name} (same shots)` });
  }
}
