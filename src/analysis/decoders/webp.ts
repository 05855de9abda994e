import { DecodeFailure, OVERVIEW_MAX_SIDE, WHOLE_FRAME_BUDGET, type DecodedImage, type DecodeRequest } from "../pixels";
import { FrameBuilder } from "./frame";
import { compiledWasm } from "./wasm";

/*
 * WebP through libwebp compiled to WebAssembly (@cwasm/webp: a bare module exporting malloc/free and
 * WebPDecodeRGBA, no JS glue). libwebp writes the whole frame as RGBA inside the module; the
 * overview, tiles and thumbnail are read from that memory in place (nothing is copied out) after the
 * input copy is freed, and the instance is fresh per image, so its memory goes with it. The frame is
 * 4 bytes per pixel: a WebP whose frame and two input copies exceed WHOLE_FRAME_BUDGET (about 16 MP)
 * is `image_too_large`. No npm build of libwebp exposes its cropped, scaled or incremental decoding,
 * which would bound this.
 *
 * The module is libwebp 1.0.2, older than the fix for CVE-2023-4863 (lossless Huffman tables): a
 * crafted file can at worst corrupt this instance's own linear memory (WebAssembly cannot reach
 * outside it), i.e. pixels the sender could have sent anyway, or trap, which is a DecodeFailure
 * and so `not_assessed`.
 */

interface LibWebp {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(ptr: number): void;
  WebPDecodeRGBA(data: number, size: number, width: number, height: number): number;
}

let compiled: Promise<WebAssembly.Module> | null = null;

async function instantiate(): Promise<LibWebp> {
  compiled ??= compiledWasm(() => import("@cwasm/webp/webp.wasm"), "@cwasm/webp/webp.wasm");
  // libwebp never does I/O; the WASI imports are only linked in.
  const unused = () => 0;
  const instance = await WebAssembly.instantiate(await compiled, { wasi_snapshot_preview1: { fd_close: unused, fd_seek: unused, fd_write: unused } });
  return instance.exports as unknown as LibWebp;
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
  if (size.width * size.height * 4 + 2 * bytes.length > WHOLE_FRAME_BUDGET) {
    throw new DecodeFailure("image_too_large", `WebP of ${size.width}x${size.height} is decoded whole as RGBA: ${Math.round((size.width * size.height * 4) / 2 ** 20)} MB`);
  }
  const webp = await instantiate();
  const { rgba, width, height } = decodeRgba(webp, bytes);
  const frame = new FrameBuilder(width, height, request.tiles?.(width, height) ?? [], OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);
  frame.add({ x: 0, y: 0, width, height, channels: 4, data: new Uint8Array(webp.memory.buffer), offset: rgba, stride: width * 4 });
  return frame.result();
}

/** libwebp's RGBA frame inside the module (the input copy already freed). */
function decodeRgba(webp: LibWebp, bytes: Uint8Array): { rgba: number; width: number; height: number } {
  let decoded;
  try {
    const src = webp.malloc(bytes.length);
    const dims = webp.malloc(8);
    if (!src || !dims) throw new DecodeFailure("image_too_large", "no memory for the WebP bytes");
    new Uint8Array(webp.memory.buffer, src, bytes.length).set(bytes);
    const rgba = webp.WebPDecodeRGBA(src, bytes.length, dims, dims + 4);
    webp.free(src);
    const [width = 0, height = 0] = new Uint32Array(webp.memory.buffer, dims, 2);
    decoded = { rgba, width, height };
  } catch (err) {
    if (err instanceof DecodeFailure) throw err;
    throw new DecodeFailure("undecodable_image", `WebP decode failed: ${String(err)}`);
  }
  // NULL: corrupt, truncated, animated, or out of memory inside the module.
  if (!decoded.rgba || !decoded.width || !decoded.height) throw new DecodeFailure("undecodable_image", "WebP data is corrupt or not a still image");
  return decoded;
}
