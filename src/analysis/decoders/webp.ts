import { DecodeFailure, OVERVIEW_MAX_SIDE, type DecodedImage, type DecodeRequest } from "../pixels";
import { FrameBuilder } from "./frame";
import { compiledWasm } from "./wasm";

/*
 * WebP through libwebp compiled to WebAssembly (@jsquash/webp). Its binding decodes the whole frame
 * to RGBA inside the module and copies it out (8 bytes per pixel at the peak), so WebP is decoded up
 * to MAX_WEBP_PIXELS; a larger one is `image_too_large` (not assessed), measured in bench/.
 */

export const MAX_WEBP_PIXELS = 8_000_000;

type Factory = (options: Record<string, unknown>) => Promise<{ decode(data: Uint8Array | ArrayBuffer): { width: number; height: number; data: Uint8ClampedArray } | null }>;

let loaded: Promise<{ factory: Factory; wasm: WebAssembly.Module }> | null = null;

function load() {
  loaded ??= Promise.all([
    import("@jsquash/webp/codec/dec/webp_dec.js"),
    compiledWasm(() => import("@jsquash/webp/codec/dec/webp_dec.wasm"), "@jsquash/webp/codec/dec/webp_dec.wasm"),
  ]).then(([glue, wasm]) => ({ factory: glue.default as unknown as Factory, wasm }));
  return loaded;
}

/** Width and height from the VP8 / VP8L / VP8X header, before anything is decoded. */
export function webpDimensions(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 30) return null;
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  const le24 = (i: number) => bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16);
  if (chunk === "VP8X") return { width: le24(24) + 1, height: le24(27) + 1 };
  // A lossy key frame starts 9d 01 2a; a lossless stream with the signature byte 2f.
  if (chunk === "VP8 " && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a) return { width: (bytes[26]! | (bytes[27]! << 8)) & 0x3fff, height: (bytes[28]! | (bytes[29]! << 8)) & 0x3fff };
  if (chunk === "VP8L" && bytes[20] === 0x2f) {
    const bits = bytes[21]! | (bytes[22]! << 8) | (bytes[23]! << 16) | (bytes[24]! << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return null;
}

export async function decodeWebp(bytes: Uint8Array, request: DecodeRequest): Promise<DecodedImage> {
  const size = webpDimensions(bytes);
  if (!size || !size.width || !size.height) throw new DecodeFailure("undecodable_image", "WebP without a valid header");
  if (size.width * size.height > MAX_WEBP_PIXELS) {
    throw new DecodeFailure("image_too_large", `WebP of ${size.width}x${size.height} is decoded whole, up to ${MAX_WEBP_PIXELS / 1e6} MP`);
  }
  const { factory, wasm } = await load();
  let image;
  try {
    // A fresh instance per image: the frame it decodes is released with it.
    const codec = await factory({
      noInitialRun: true,
      instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void) {
        const instance = new WebAssembly.Instance(wasm, imports);
        done(instance);
        return instance.exports;
      },
    });
    image = codec.decode(bytes);
  } catch (err) {
    throw new DecodeFailure("undecodable_image", `WebP decode failed: ${String(err)}`);
  }
  if (!image) throw new DecodeFailure("undecodable_image", "WebP data is corrupt");
  const { width, height, data } = image;
  const frame = new FrameBuilder(width, height, request.tiles?.(width, height) ?? [], OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);
  frame.add({ x: 0, y: 0, width, height, channels: 4, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), stride: width * 4 });
  return frame.result();
}
