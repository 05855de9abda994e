/**
 * Writes the small progressive JPEG samples (test/fixtures/photos/dune-progressive-*.jpg) that test
 * the progressive decoder (src/analysis/decoders/progressive-jpeg.ts) against libjpeg-turbo: a crop
 * of a real photograph (scripts/real-photos.ts) of odd size (partial MCUs at the right and bottom),
 * encoded by MozJPEG (@jsquash/jpeg; progressive, its own scan script) at 4:2:0, 4:4:4 and in
 * grayscale, and the 4:2:0 one rewritten by jpegtran with libjpeg's standard scan script (successive
 * approximation: DC and AC refinement scans) and a restart marker every 3 MCUs.
 *
 *   npx tsx scripts/progressive-jpeg-samples.ts
 *
 * Needs: apt-get install imagemagick libjpeg-turbo-progs
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import encode, { init } from "@jsquash/jpeg/encode.js";
import { debianPhoto, SOURCES } from "./real-photos";

const SAMPLES = resolve(import.meta.dirname, "../test/fixtures/photos");
const [WIDTH, HEIGHT] = [203, 141];

/** The crop as RGBA (ImageMagick writes it as a binary PPM: a text header, then RGB). */
function crop(): Uint8ClampedArray {
  const ppm = execFileSync("convert", [debianPhoto(SOURCES.dune), "-resize", "640x", "-gravity", "center", "-crop", `${WIDTH}x${HEIGHT}+0+0`, "+repage", "-depth", "8", "ppm:-"]);
  const header = ppm.toString("latin1", 0, 20).match(/^P6\s+(\d+)\s+(\d+)\s+255\s/);
  if (!header || Number(header[1]) !== WIDTH || Number(header[2]) !== HEIGHT) throw new Error("unexpected PPM");
  const rgb = ppm.subarray(header[0].length);
  const rgba = new Uint8ClampedArray(WIDTH * HEIGHT * 4);
  for (let i = 0, j = 0; j < rgba.length; i += 3, j += 4) rgba.set([rgb[i]!, rgb[i + 1]!, rgb[i + 2]!, 255], j);
  return rgba;
}

async function main(): Promise<void> {
  const wasm = readFileSync(createRequire(import.meta.url).resolve("@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm"));
  // Node's WebAssembly (the test tsconfig types the Workers runtime's, which has no compile()); init
  // accepts the compiled module (encode.js; its .d.ts lists only the options).
  const compile = (WebAssembly as unknown as { compile(bytes: Uint8Array): Promise<WebAssembly.Module> }).compile;
  await (init as unknown as (module: WebAssembly.Module) => Promise<void>)(await compile(wasm));
  const data = crop();
  const image = { data, width: WIDTH, height: HEIGHT, colorSpace: "srgb" } as unknown as Parameters<typeof encode>[0];
  const base = { quality: 80, baseline: false, arithmetic: false, progressive: true, optimize_coding: true, smoothing: 0, quant_table: 3, trellis_multipass: false, trellis_opt_zero: false, trellis_opt_table: false, trellis_loops: 1, auto_subsample: false, separate_chroma_quality: false, chroma_quality: 80 };
  const variants = {
    "dune-progressive-420.jpg": { ...base, color_space: 3, chroma_subsample: 2 },
    "dune-progressive-444.jpg": { ...base, color_space: 3, chroma_subsample: 1 },
    "dune-progressive-gray.jpg": { ...base, color_space: 1, chroma_subsample: 1 },
  };
  for (const [name, options] of Object.entries(variants)) {
    writeFileSync(join(SAMPLES, name), new Uint8Array(await encode(image, options)));
    console.log(join(SAMPLES, name));
  }
  const restart = execFileSync("jpegtran", ["-progressive", "-restart", "3B", "-copy", "none", join(SAMPLES, "dune-progressive-420.jpg")]);
  writeFileSync(join(SAMPLES, "dune-progressive-restart.jpg"), restart);
  console.log(join(SAMPLES, "dune-progressive-restart.jpg"));
}

await main();
