import { rng, type Rgb } from "./synth";

/*
 * A camera's view of a scene, for the screen detector's evaluation and tests: either a photograph
 * shown on a display (positives) or a photograph with a periodic texture in the scene (hard
 * negatives). Both pass the same camera chain: sensor-area integration, lens blur, a Bayer colour
 * filter with noise, bilinear demosaicing, an optional resampling. JPEG encoding is the caller's.
 */

export type SubpixelLayout = "rgb-stripe" | "pentile";

export interface CameraChain {
  /** Lens blur (Gaussian sigma, camera pixels). */
  blurSigma: number;
  /** Sensor noise (standard deviation, 8-bit units). */
  noise: number;
  /** Resampling after capture (area average), e.g. 0.75 for a messenger's resize; 1 keeps the frame. */
  rescale: number;
  seed: number;
}

export interface DisplayOptions extends CameraChain {
  /** Camera pixels per display pixel at the frame's centre (distance and zoom). */
  pitch: number;
  /** Display rotation against the sensor, degrees. */
  angleDeg: number;
  layout: SubpixelLayout;
  /** Perspective: the pitch grows by this fraction from the left edge of the frame to the right. */
  keystone: number;
  width: number;
  height: number;
}

/**
 * The photograph displayed full-screen (resampled to the display's pixels) and photographed: each
 * display pixel emits through its sub-pixels (RGB stripes with a black matrix, or a PenTile diamond
 * of a green sub-pixel per pixel and alternating red/blue), integrated over each sensor pixel's area.
 */
export function displayRecapture(photo: Rgb, o: DisplayOptions): Rgb {
  const { width, height, pitch } = o;
  const cols = Math.ceil(width / pitch) + 1;
  const rows = Math.ceil(height / pitch) + 1;
  const shown = resizeArea(photo, cols, rows);
  const cos = Math.cos((o.angleDeg * Math.PI) / 180);
  const sin = Math.sin((o.angleDeg * Math.PI) / 180);
  const samples = pitch < 2.5 ? 5 : 3;
  const gain = o.layout === "rgb-stripe" ? 3 / (0.8 * 0.85) : 2.6;
  const sensed = new Float32Array(width * height * 3);
  const acc = new Float64Array(3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      acc.fill(0);
      const scale = pitch * (1 + o.keystone * (x / width - 0.5));
      for (let sy = 0; sy < samples; sy += 1) {
        for (let sx = 0; sx < samples; sx += 1) {
          const dx = x + (sx + 0.5) / samples - width / 2;
          const dy = y + (sy + 0.5) / samples - height / 2;
          const u = (dx * cos + dy * sin) / scale + cols / 2;
          const v = (-dx * sin + dy * cos) / scale + rows / 2;
          const i = Math.floor(u);
          const j = Math.floor(v);
          const sub = subpixelAt(o.layout, u - i, v - j, i, j);
          if (sub < 0) continue;
          const ci = Math.min(cols - 1, Math.max(0, i));
          const cj = Math.min(rows - 1, Math.max(0, j));
          acc[sub]! += shown.data[(cj * cols + ci) * 3 + sub]!;
        }
      }
      const n = samples * samples;
      const q = (y * width + x) * 3;
      sensed[q] = (acc[0]! / n) * gain;
      sensed[q + 1] = (acc[1]! / n) * gain;
      sensed[q + 2] = (acc[2]! / n) * gain;
    }
  }
  return cameraChain(sensed, width, height, o);
}

/** The lit sub-pixel at (fu, fv) inside display pixel (i, j): channel * 4 + weight code, or -1. */
function subpixelAt(layout: SubpixelLayout, fu: number, fv: number, i: number, j: number): number {
  if (layout === "rgb-stripe") {
    if (fv > 0.85) return -1;
    const sub = Math.min(2, Math.floor(fu * 3));
    return fu * 3 - sub > 0.8 ? -1 : sub;
  }
  // PenTile diamond: a green sub-pixel in the upper half of every pixel, red or blue (alternating in
  // a checkerboard) in the lower half.
  if (Math.abs(fu - 0.5) + Math.abs(fv - 0.27) < 0.22) return 1;
  if (Math.abs(fu - 0.5) + Math.abs(fv - 0.72) < 0.3) return ((i + j) & 1) === 0 ? 0 : 2;
  return -1;
}

export type TextureKind = "stripes" | "weave" | "tiles" | "mesh" | "checkerboard";

export interface TextureOptions extends CameraChain {
  kind: TextureKind;
  /** Period of the texture in camera pixels. */
  period: number;
  angleDeg: number;
  /** Perspective, as for displays. */
  keystone: number;
  /**
   * How unevenly the texture shows across the frame (0: everywhere at full contrast): a worn
   * fabric, decking, a weave seen under raking light. Its contrast falls by up to this fraction,
   * smoothly over the frame.
   */
  wear?: number;
}

/**
 * A photograph with a periodic texture in the scene (a fence, fabric, tiles, a fly screen, a
 * chessboard) covering the whole frame: the texture multiplies the scene, is integrated over each
 * sensor pixel and goes through the same camera chain as a recapture.
 */
export function texturedScene(photo: Rgb, o: TextureOptions): Rgb {
  const { width, height } = photo;
  const cos = Math.cos((o.angleDeg * Math.PI) / 180);
  const sin = Math.sin((o.angleDeg * Math.PI) / 180);
  const samples = 4;
  const shade = rng(o.seed * 7 + 1);
  const tileShade = Array.from({ length: 4096 }, () => 0.85 + 0.15 * shade());
  const sensed = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      let m = 0;
      for (let sy = 0; sy < samples; sy += 1) {
        for (let sx = 0; sx < samples; sx += 1) {
          const dx = x + (sx + 0.5) / samples - width / 2;
          const dy = y + (sy + 0.5) / samples - height / 2;
          const scale = o.period * (1 + o.keystone * (x / width - 0.5));
          const u = (dx * cos + dy * sin) / scale;
          const v = (-dx * sin + dy * cos) / scale;
          m += textureAt(o.kind, u, v, tileShade);
        }
      }
      m /= samples * samples;
      if (o.wear) m = 1 - (1 - m) * (1 - o.wear * (0.5 + 0.5 * Math.sin((2.6 * Math.PI * x) / width + o.seed) * Math.cos((1.8 * Math.PI * y) / height)));
      const p = (y * width + x) * 3;
      for (let k = 0; k < 3; k += 1) sensed[p + k] = photo.data[p + k]! * m;
    }
  }
  return cameraChain(sensed, width, height, o);
}

/** The texture's reflectance at (u, v) in periods. */
function textureAt(kind: TextureKind, u: number, v: number, tileShade: number[]): number {
  const fu = u - Math.floor(u);
  const fv = v - Math.floor(v);
  switch (kind) {
    case "stripes":
      return fu < 0.5 ? 1 : 0.5;
    case "checkerboard":
      return (Math.floor(u * 2) + Math.floor(v * 2)) % 2 === 0 ? 1 : 0.45;
    case "mesh":
      return fu < 0.25 || fv < 0.25 ? 0.35 : 1;
    case "tiles": {
      if (fu < 0.08 || fv < 0.08) return 0.5;
      const t = ((Math.floor(u) & 63) << 6) | (Math.floor(v) & 63);
      return tileShade[t]!;
    }
    case "weave": {
      // Basket weave: in alternate half-period cells a horizontal or a vertical thread is on top,
      // each rounded across its width.
      const cu = Math.floor(u * 2);
      const cv = Math.floor(v * 2);
      const across = (cu + cv) % 2 === 0 ? v * 2 - cv : u * 2 - cu;
      return 0.55 + 0.45 * Math.sin(Math.PI * across);
    }
  }
}

/** Lens blur, Bayer RGGB sampling with noise, bilinear demosaicing, optional resampling. */
function cameraChain(sensed: Float32Array, width: number, height: number, o: CameraChain): Rgb {
  const blurred = gaussianBlur(sensed, width, height, o.blurSigma);
  const r = rng(o.seed);
  const mosaic = new Float32Array(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const channel = bayerChannel(x, y);
      const gauss = Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
      mosaic[y * width + x] = blurred[(y * width + x) * 3 + channel]! + gauss * o.noise;
    }
  }
  const out = demosaic(mosaic, width, height);
  if (o.rescale === 1) return out;
  return resizeArea(out, Math.max(1, Math.round(width * o.rescale)), Math.max(1, Math.round(height * o.rescale)));
}

function gaussianBlur(src: Float32Array, width: number, height: number, sigma: number): Float32Array {
  if (sigma <= 0) return src;
  const radius = Math.ceil(sigma * 3);
  const kernel = Array.from({ length: 2 * radius + 1 }, (_, i) => Math.exp(-((i - radius) ** 2) / (2 * sigma * sigma)));
  const total = kernel.reduce((a, b) => a + b, 0);
  const k = kernel.map((w) => w / total);
  const tmp = new Float32Array(src.length);
  const out = new Float32Array(src.length);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      for (let c = 0; c < 3; c += 1) {
        let s = 0;
        for (let i = -radius; i <= radius; i += 1) s += src[(y * width + Math.min(width - 1, Math.max(0, x + i))) * 3 + c]! * k[i + radius]!;
        tmp[(y * width + x) * 3 + c] = s;
      }
    }
  }
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      for (let c = 0; c < 3; c += 1) {
        let s = 0;
        for (let i = -radius; i <= radius; i += 1) s += tmp[(Math.min(height - 1, Math.max(0, y + i)) * width + x) * 3 + c]! * k[i + radius]!;
        out[(y * width + x) * 3 + c] = s;
      }
    }
  }
  return out;
}

/** Bilinear demosaicing of an RGGB mosaic. */
function demosaic(mosaic: Float32Array, width: number, height: number): Rgb {
  const data = new Uint8Array(width * height * 3);
  const sums = new Float64Array(3);
  const counts = new Uint8Array(3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const own = bayerChannel(x, y);
      sums.fill(0);
      counts.fill(0);
      for (let dy = -1; dy <= 1; dy += 1) {
        const yy = Math.min(height - 1, Math.max(0, y + dy));
        for (let dx = -1; dx <= 1; dx += 1) {
          const xx = Math.min(width - 1, Math.max(0, x + dx));
          const c = bayerChannel(xx, yy);
          // The pixel's own colour comes from itself only; the others from the nearest neighbours.
          if (c === own && (dx !== 0 || dy !== 0)) continue;
          sums[c]! += mosaic[yy * width + xx]!;
          counts[c]! += 1;
        }
      }
      for (let c = 0; c < 3; c += 1) data[(y * width + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(sums[c]! / Math.max(1, counts[c]!))));
    }
  }
  return { width, height, data };
}

function bayerChannel(x: number, y: number): number {
  return (y & 1) === 0 ? ((x & 1) === 0 ? 0 : 1) : (x & 1) === 0 ? 1 : 2;
}

/** Area-average resize (box filter), for both directions. */
export function resizeArea(image: Rgb, width: number, height: number): Rgb {
  const data = new Uint8Array(width * height * 3);
  const sx = image.width / width;
  const sy = image.height / height;
  for (let y = 0; y < height; y += 1) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.min(image.height, Math.max(y0 + 1, Math.floor((y + 1) * sy)));
    for (let x = 0; x < width; x += 1) {
      const x0 = Math.floor(x * sx);
      const x1 = Math.min(image.width, Math.max(x0 + 1, Math.floor((x + 1) * sx)));
      for (let c = 0; c < 3; c += 1) {
        let s = 0;
        for (let yy = y0; yy < y1; yy += 1) for (let xx = x0; xx < x1; xx += 1) s += image.data[(yy * image.width + xx) * 3 + c]!;
        data[(y * width + x) * 3 + c] = Math.round(s / ((y1 - y0) * (x1 - x0)));
      }
    }
  }
  return { width, height, data };
}

/** A crop in native pixels (no resampling). */
export function cropRgb(image: Rgb, x: number, y: number, width: number, height: number): Rgb {
  const w = Math.min(width, image.width - x);
  const h = Math.min(height, image.height - y);
  const data = new Uint8Array(w * h * 3);
  for (let row = 0; row < h; row += 1) data.set(image.data.subarray(((y + row) * image.width + x) * 3, ((y + row) * image.width + x + w) * 3), row * w * 3);
  return { width: w, height: h, data };
}
