import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { decodeRgb, type Rgb } from "../../test/helpers/synth";

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
