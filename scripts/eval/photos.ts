import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import jpeg from "jpeg-js";
import { convertIndexedToRgb, decode as decodePng } from "fast-png";
import type { Rgb } from "../../test/helpers/synth";

/** A real photograph from a Debian package (scripts/eval/fetch-photos.sh). */
export interface Photo {
  name: string;
  bytes: Uint8Array;
  mediaType: "image/jpeg" | "image/png";
  rgb: Rgb;
}

const DIR = new URL("../../.eval-photos/", import.meta.url);

/** Fetches the photographs on first use, then loads and decodes them (RGB, alpha dropped). */
export function loadPhotos(): Photo[] {
  if (!existsSync(new URL(".complete", DIR))) execFileSync("bash", [new URL("fetch-photos.sh", import.meta.url).pathname], { stdio: "inherit" });
  return readdirSync(DIR)
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .sort()
    .map((name) => {
      const bytes = new Uint8Array(readFileSync(new URL(name, DIR)));
      const mediaType = /\.png$/i.test(name) ? "image/png" : "image/jpeg";
      return { name: name.replace(/\.(jpe?g|png)$/i, ""), bytes, mediaType, rgb: decodeRgb(bytes, mediaType) };
    });
}

export function decodeRgb(bytes: Uint8Array, mediaType: string): Rgb {
  if (mediaType === "image/jpeg") {
    const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: false, maxResolutionInMP: 40, maxMemoryUsageInMB: 2048 });
    return { width: image.width, height: image.height, data: new Uint8Array(image.data) };
  }
  const png = decodePng(bytes);
  const channels = png.palette ? (png.palette[0]?.length ?? 3) : png.channels;
  const src: ArrayLike<number> = png.palette ? convertIndexedToRgb(png) : png.data;
  const scale = png.depth === 16 ? 1 / 257 : 1;
  const data = new Uint8Array(png.width * png.height * 3);
  for (let i = 0; i < png.width * png.height; i += 1) {
    for (let c = 0; c < 3; c += 1) data[i * 3 + c] = src[i * channels + (channels >= 3 ? c : 0)]! * scale;
  }
  return { width: png.width, height: png.height, data };
}
