import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import encode, { init } from "@jsquash/jpeg/encode.js";
import type { Rgb } from "../../test/helpers/synth";

/*
 * JPEG as cameras write it: baseline, Annex K quantisation tables, chroma subsampled 2×2 (4:2:0), as
 * phones store photos (jpeg-js, used elsewhere in the tests, writes 4:4:4 only). MozJPEG through
 * @jsquash/jpeg (WebAssembly), with its trellis and table tuning off.
 */

let ready: Promise<void> | null = null;

export async function encodeJpeg420(image: Rgb, quality: number): Promise<Uint8Array> {
  ready ??= readFile(createRequire(import.meta.url).resolve("@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm")).then(async (bytes) => {
    // Node's WebAssembly (the test tsconfig types the Workers runtime's, which has no compile()).
    const wasm = WebAssembly as unknown as { compile(bytes: Uint8Array): Promise<WebAssembly.Module> };
    // init accepts the compiled module first (encode.js; its .d.ts lists only the options).
    await (init as unknown as (module: WebAssembly.Module) => Promise<void>)(await wasm.compile(bytes));
  });
  await ready;
  const rgba = new Uint8ClampedArray(image.width * image.height * 4);
  for (let i = 0, j = 0; i < image.data.length; i += 3, j += 4) {
    rgba[j] = image.data[i]!;
    rgba[j + 1] = image.data[i + 1]!;
    rgba[j + 2] = image.data[i + 2]!;
    rgba[j + 3] = 255;
  }
  const out = await encode(
    { data: rgba, width: image.width, height: image.height, colorSpace: "srgb" } as unknown as Parameters<typeof encode>[0],
    { quality, baseline: true, progressive: false, optimize_coding: true, quant_table: 0, trellis_multipass: false, trellis_opt_zero: false, trellis_opt_table: false, trellis_loops: 1, auto_subsample: false, chroma_subsample: 2, separate_chroma_quality: false, chroma_quality: quality, smoothing: 0, arithmetic: false, color_space: 3 },
  );
  return new Uint8Array(out);
}
