/**
 * Real photographs for the codec tests and the decode benchmark, from Debian packages (never
 * committed): mate-backgrounds ships camera photos up to 5640×3172. Larger inputs are made from them
 * with Debian's tools (ImageMagick resizes, libheif's heif-enc encodes HEVC tiles, assembled into a
 * phone-style grid HEIC by scripts/lib/heif-grid.ts, cwebp encodes WebP), cached in
 * .cache/photos/inputs-<recipe key>/ (`recipeKey` of this file and heif-grid.ts: editing a recipe
 * makes the inputs anew instead of serving the old ones under the same name).
 *
 *   npx tsx scripts/real-photos.ts [name…]   # prepares the named inputs (default: all)
 *   npx tsx scripts/real-photos.ts --samples # rewrites the tiny committed samples (test/fixtures/photos)
 *   npx tsx scripts/real-photos.ts --unpack  # only downloads and unpacks the package (before inputs are made side by side)
 *
 * Needs: apt-get install imagemagick libheif-examples webp (the CI script installs them).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { heifGrid } from "./lib/heif-grid";
import { recipeKey } from "./lib/recipe-key";

const ROOT = resolve(import.meta.dirname, "..");
export const CACHE = join(ROOT, ".cache/photos");
/** Where the inputs are kept: a folder named after this file's recipes (`recipeKey`), the Debian package beside it. */
const INPUTS_DIR = join(CACHE, `inputs-${recipeKey([join(ROOT, "scripts/real-photos.ts"), join(ROOT, "scripts/lib/heif-grid.ts")])}`);
const PACKAGE = "mate-backgrounds";
const SAMPLES = join(ROOT, "test/fixtures/photos");

// ImageMagick with room for a 50 MP picture in memory (scripts/lib/imagemagick/policy.xml): under
// Debian's policy each 50 MP input took about 2 minutes, mostly the kernel paging its pixel cache.
const MAGICK_CONFIGURE_PATH = join(ROOT, "scripts/lib/imagemagick");
const run = (cmd: string, args: string[], cwd = CACHE) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, MAGICK_CONFIGURE_PATH } });

/** A photograph from the Debian package (downloaded and unpacked on first use). */
export function debianPhoto(relative: string): string {
  const root = join(CACHE, "deb");
  const path = join(root, "usr/share/backgrounds/mate", relative);
  if (!existsSync(path)) {
    mkdirSync(CACHE, { recursive: true });
    if (!readdirSync(CACHE).some((f) => f.startsWith(PACKAGE) && f.endsWith(".deb"))) run("apt-get", ["download", PACKAGE]);
    const deb = readdirSync(CACHE).find((f) => f.startsWith(PACKAGE) && f.endsWith(".deb"))!;
    run("dpkg", ["-x", deb, root]);
  }
  return path;
}

/** The source photographs: a large camera photo (elephants) and smaller nature shots. */
export const SOURCES = {
  elephants: "abstract/Elephants_5640x3172.jpg",
  wood: "nature/Wood.jpg",
  dune: "nature/Dune.jpg",
};

function resized(source: string, width: number, height: number, out: string, format: string, extra: string[] = []): void {
  run("convert", [debianPhoto(source), "-resize", `${width}x${height}!`, ...extra, `${format}:${out}`]);
}

/** A grid HEIC of `width`×`height` in 512×512 HEVC tiles (the iPhone layout). */
function gridHeic(source: string, width: number, height: number, out: string, tile = 512): void {
  const columns = Math.ceil(width / tile);
  const rows = Math.ceil(height / tile);
  const dir = join(CACHE, `tiles-${width}x${height}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  run("convert", [debianPhoto(source), "-resize", `${width}x${height}!`, "-background", "black", "-extent", `${columns * tile}x${rows * tile}`, "-crop", `${tile}x${tile}`, "+repage", join(dir, "t%04d.png")]);
  const tiles = readdirSync(dir).filter((f) => f.endsWith(".png")).sort();
  run("heif-enc", ["-q", "80", "-o", join(dir, "multi.heic"), ...tiles], dir);
  writeFileSync(out, heifGrid(readFileSync(join(dir, "multi.heic")), columns, rows, { width: tile, height: tile }, { width, height }));
  rmSync(dir, { recursive: true, force: true });
}

/** mate-backgrounds' nature photographs (camera shots) used as genuine captures. */
export const CAMERA_PHOTOS = ["Dune", "Garden", "LadyBird", "Storm", "TwoWings"] as const;

/** Every prepared input: name → how to make it. */
export const INPUTS: Record<string, (out: string) => void> = {
  "jpeg-12mp.jpg": (out) => resized(SOURCES.elephants, 4000, 3000, out, "jpeg", ["-quality", "92"]),
  "jpeg-50mp.jpg": (out) => resized(SOURCES.elephants, 8160, 6120, out, "jpeg", ["-quality", "92"]),
  "jpeg-12mp-progressive.jpg": (out) => resized(SOURCES.elephants, 4000, 3000, out, "jpeg", ["-quality", "92", "-interlace", "JPEG"]),
  // The largest upload a 50 MP phone photo can be: sensor-like noise at q95 4:2:0 fills the 25 MB cap.
  "jpeg-50mp-25mb.jpg": (out) => resized(SOURCES.elephants, 8160, 6120, out, "jpeg", ["-seed", "1", "-attenuate", "0.4", "+noise", "Gaussian", "-quality", "95", "-sampling-factor", "2x2"]),
  // Just under the web search's former 10 MB limit (the largest photo it was sent whole, as base64).
  "jpeg-50mp-10mb.jpg": (out) => resized(SOURCES.elephants, 8160, 6120, out, "jpeg", ["-quality", "85"]),
  "jpeg-50mp-progressive.jpg": (out) => resized(SOURCES.elephants, 8160, 6120, out, "jpeg", ["-quality", "92", "-interlace", "JPEG"]),
  // Chroma at full resolution: libjpeg's coefficient buffer for 12 MP is then 69 MiB (within its budget
  // at q92), and 50 MP at 4:4:4 is the progressive decoder's largest footprint.
  "jpeg-12mp-progressive-444.jpg": (out) => resized(SOURCES.elephants, 4000, 3000, out, "jpeg", ["-quality", "92", "-interlace", "JPEG", "-sampling-factor", "1x1"]),
  // The same frame at q97 is over libjpeg's budget (its coefficients + two copies of the input): the progressive decoder's.
  "jpeg-12mp-progressive-444-q97.jpg": (out) => resized(SOURCES.elephants, 4000, 3000, out, "jpeg", ["-quality", "97", "-interlace", "JPEG", "-sampling-factor", "1x1"]),
  "jpeg-50mp-progressive-444.jpg": (out) => resized(SOURCES.elephants, 8160, 6120, out, "jpeg", ["-quality", "92", "-interlace", "JPEG", "-sampling-factor", "1x1"]),
  "heic-2mp.heic": (out) => gridHeic(SOURCES.wood, 1920, 1440, out),
  "heic-12mp.heic": (out) => gridHeic(SOURCES.elephants, 4032, 3024, out),
  "heic-50mp.heic": (out) => gridHeic(SOURCES.elephants, 8160, 6120, out),
  "png-12mp.png": (out) => resized(SOURCES.elephants, 4000, 3000, out, "png"),
  "png-50mp.png": (out) => resized(SOURCES.elephants, 8160, 6120, out, "png"),
  "webp-8mp.webp": (out) => resized(SOURCES.elephants, 3264, 2448, out, "webp", ["-quality", "90"]),
  "webp-12mp.webp": (out) => resized(SOURCES.elephants, 4000, 3000, out, "webp", ["-quality", "90"]),
  // Lossless WebP: 7 MP is decoded once, whole (its RGB fits the output budget); 12 MP and the largest
  // under the 25 MiB upload cap (5504×4128: 24.7 MiB) through scaled and cropped decodes, each through
  // the patched libwebp's sliding window (scripts/webp-wasm/vp8l-sliding-window.patch).
  "webp-7mp-lossless.webp": (out) => resized(SOURCES.elephants, 3072, 2304, out, "webp", ["-define", "webp:lossless=true"]),
  "webp-12mp-lossless.webp": (out) => resized(SOURCES.elephants, 4000, 3000, out, "webp", ["-define", "webp:lossless=true"]),
  "webp-23mp-lossless.webp": (out) => resized(SOURCES.elephants, 5504, 4128, out, "webp", ["-define", "webp:lossless=true"]),
  // Frames larger than that window, each with its pixels as Debian's (unpatched) libwebp decodes them
  // (`.rgb`): a photo (predictor, cross-colour, subtract-green, colour cache), the same in 16 colours
  // (colour indexing: four pixels a coded word), and a 1579×664 photo under strong noise stacked three
  // times: libwebp's encoder at quality 100 codes every pixel below the first copy as a 4096-pixel copy
  // from 664 rows up, 1 048 456 pixels, the farthest a VP8L backward reference reaches, so each slide
  // of the window is followed by a copy from the very start of what it kept.
  "webp-5mp-lossless.webp": (out) => resized(SOURCES.wood, 2560, 1920, out, "webp", ["-define", "webp:lossless=true"]),
  "webp-6mp-lossless-palette.webp": (out) => resized(SOURCES.wood, 3000, 2000, out, "webp", ["+dither", "-colors", "16", "-define", "webp:lossless=true"]),
  "webp-3mp-lossless-reach.webp": (out) =>
    run("convert", [debianPhoto(SOURCES.elephants), "-resize", "1579x664!", "-seed", "7", "-attenuate", "4", "+noise", "Gaussian", "(", "+clone", ")", "(", "+clone", ")", "-append", "+repage", "-quality", "100", "-define", "webp:lossless=true", `webp:${out}`]),
  "webp-5mp-lossless.rgb": (out) => run("convert", [prepared("webp-5mp-lossless.webp"), `rgb:${out}`]),
  "webp-6mp-lossless-palette.rgb": (out) => run("convert", [prepared("webp-6mp-lossless-palette.webp"), `rgb:${out}`]),
  "webp-3mp-lossless-reach.rgb": (out) => run("convert", [prepared("webp-3mp-lossless-reach.webp"), `rgb:${out}`]),
  "webp-50mp.webp": (out) => resized(SOURCES.elephants, 8160, 6120, out, "webp", ["-quality", "90"]),
  // Camera photographs as shipped (1-2.5 MP JPEGs), for the verdict a fresh deployment gives
  // (test/integration/verdicts-real-photos.test.ts), and copies of them as a reuser would send
  // them: re-saved smaller and at a lower quality.
  ...Object.fromEntries(
    CAMERA_PHOTOS.flatMap((name) => [
      [`camera-${name.toLowerCase()}.jpg`, (out: string) => copyFileSync(debianPhoto(`nature/${name}.jpg`), out)],
      [`camera-${name.toLowerCase()}-copy.jpg`, (out: string) => run("convert", [debianPhoto(`nature/${name}.jpg`), "-resize", "60%", "-quality", "72", `jpeg:${out}`])],
    ]),
  ),
};

/** Where a prepared input is (or will be) kept. */
export function preparedPath(name: string): string {
  return join(INPUTS_DIR, name);
}

/**
 * The prepared input's path (made on first use). Made under a name of this process's own and renamed
 * into place, so processes making the same input at once (the test fakes make inputs side by side,
 * and an `.rgb` makes its `.webp`) never read or leave a half-written file.
 */
export function prepared(name: string): string {
  const out = preparedPath(name);
  if (!existsSync(out)) {
    const make = INPUTS[name];
    if (!make) throw new Error(`unknown input ${name}`);
    mkdirSync(INPUTS_DIR, { recursive: true });
    const part = `${out}.${process.pid}.part`;
    make(part);
    renameSync(part, out);
  }
  return out;
}

/** The committed samples: a 192×128 crop of a real photo in each format (a few KB each). */
function writeSamples(): void {
  mkdirSync(SAMPLES, { recursive: true });
  const crop = join(CACHE, "sample.png");
  run("convert", [debianPhoto(SOURCES.dune), "-resize", "640x", "-gravity", "center", "-crop", "192x128+0+0", "+repage", crop]);
  run("convert", [crop, "-quality", "85", join(SAMPLES, "dune.jpg")]);
  run("convert", [crop, "-interlace", "JPEG", "-quality", "85", join(SAMPLES, "dune-progressive.jpg")]);
  run("convert", [crop, "-resize", "96x64", join(SAMPLES, "dune.png")]);
  // PNG's whole-decode paths (fast-png): Adam7-interlaced, and sub-byte colour-indexed (four colours: 4 bits).
  run("convert", [crop, "-resize", "96x64", "-interlace", "PNG", join(SAMPLES, "dune-interlaced.png")]);
  run("convert", [crop, "-resize", "96x64", "+dither", "-colors", "4", "-type", "Palette", join(SAMPLES, "dune-palette.png")]);
  run("cwebp", ["-quiet", "-q", "80", crop, "-o", join(SAMPLES, "dune.webp")]);
  run("cwebp", ["-quiet", "-lossless", crop, "-o", join(SAMPLES, "dune-lossless.webp")]);
  // WebP's other paths: the same crop over an alpha gradient (VP8X + ALPH + VP8), a 1152×128 strip
  // wider than the overview (scaled and cropped decodes), and a two-frame animation (refused).
  const alpha = join(CACHE, "sample-alpha.png");
  run("convert", [crop, "(", "-size", "192x128", "gradient:gray(50%)-white", ")", "-alpha", "off", "-compose", "CopyOpacity", "-composite", alpha]);
  run("cwebp", ["-quiet", "-q", "80", alpha, "-o", join(SAMPLES, "dune-alpha.webp")]);
  const wide = join(CACHE, "sample-wide.png");
  run("convert", [debianPhoto(SOURCES.dune), "-resize", "1280x", "-gravity", "center", "-crop", "1152x128+0+0", "+repage", wide]);
  run("cwebp", ["-quiet", "-q", "50", wide, "-o", join(SAMPLES, "dune-wide.webp")]);
  run("convert", ["-size", "16x16", "xc:red", join(CACHE, "red.png")]);
  run("convert", ["-size", "16x16", "xc:blue", join(CACHE, "blue.png")]);
  run("img2webp", ["-loop", "0", "red.png", "blue.png", "-o", join(SAMPLES, "animated.webp")]);
  // A 3×2 grid of 64×64 HEVC tiles: the same code path as a phone's HEIC.
  const tiles = join(CACHE, "sample-tiles");
  rmSync(tiles, { recursive: true, force: true });
  mkdirSync(tiles, { recursive: true });
  run("convert", [crop, "-crop", "64x64", "+repage", join(tiles, "t%02d.png")]);
  run("heif-enc", ["-q", "60", "-o", "multi.heic", ...readdirSync(tiles).filter((f) => f.endsWith(".png")).sort()], tiles);
  writeFileSync(join(SAMPLES, "dune.heic"), heifGrid(readFileSync(join(tiles, "multi.heic")), 3, 2, { width: 64, height: 64 }, { width: 192, height: 128 }));
  rmSync(tiles, { recursive: true, force: true });
}

if (import.meta.main || process.argv[1]?.endsWith("real-photos.ts")) {
  const args = process.argv.slice(2);
  if (args.includes("--samples")) writeSamples();
  else if (args.includes("--unpack")) console.log(debianPhoto(SOURCES.dune));
  else for (const name of args.length > 0 ? args : Object.keys(INPUTS)) console.log(prepared(name));
}
