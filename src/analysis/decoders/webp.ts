import { DecodeFailure, OVERVIEW_MAX_SIDE, type DecodedImage, type DecodeRequest, type Rect } from "./types";
import { FrameBuilder, overviewAndThumbnail, reducedSize, TileCollector, type Block } from "./frame";
import { compiledWasm } from "./wasm";
import { checkFrame, webpFrame } from "./header";
import { checkFrameSize } from "./limits";

/*
 * WebP through libwebp's advanced decoding API (WebPDecoderConfig), built here to a bare wasm32
 * module (libwebp-decoder.wasm, no JS glue, no imports) by scripts/build-webp-wasm.sh from Debian
 * bookworm-security's libwebp 1.2.4-0.2+deb12u1, which carries the fix for CVE-2023-4863 (and
 * CVE-2023-1999), plus our scripts/webp-wasm/vp8l-sliding-window.patch (below): module SHA-256
 * a4a4d5ebe6d5b4bef268653858c59a1e81bb38c1c2b2943ff3b0dbc89065fe25.
 * No npm package exposes a current libwebp's scaled or cropped decoding: @jsquash/webp 1.5.0 is
 * libwebp 1.1.0 with a whole-frame `decode` only, @cwasm/webp 1.0.2 with WebPDecodeRGBA only.
 *
 * Each decode writes RGB into a buffer of ours sized to what it asks for. A frame whose RGB fits
 * DECODE_OUTPUT_BUDGET (24 MiB, about 8 MP) is decoded once, whole, and gives everything. A larger one
 * never is: the overview and the thumbnail come from one decode scaled by libwebp's area-averaging
 * rescaler to the overview's size, the moiré tiles from native-resolution decodes cropped to bands
 * of tiles (planBands; libwebp stops decoding below a crop's bottom, so fewer, taller bands cost less
 * CPU). A lossy (VP8) frame is reconstructed a few macroblock rows at a time, so its memory is the
 * output plus rows of the width, at any size (a 50 MP photo included). So is a lossless (VP8L) one,
 * with our patch: stock libwebp keeps a lossless frame's entropy-decoded ARGB whole (4 bytes a
 * pixel) because a backward reference may reach 1 MP back; the patched decoder keeps a window of
 * that reach plus 256 K pixels (5 MiB) and applies the inverse transforms 16 rows at a time, as
 * libwebp already does, so its memory does not grow with the frame either. (A lossless frame cannot
 * be entered in the middle, so each cropped decode reads the stream from the top to the crop's
 * bottom.) Lossy WebP's alpha (ALPH, a lossless stream libwebp would hold whole) is not decoded: only
 * the VP8 chunk is, as RGB is all the signals read. The module's memory may grow to 112 MiB; past
 * that libwebp's allocations fail and the image is `image_too_large`.
 *
 * The instance is fresh per image, so the memory it grew goes with it. Corrupt, truncated or animated
 * input, or a trap inside the module, is `undecodable_image`.
 */

interface LibWebp {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(ptr: number): void;
  features(data: number, size: number, out: number): number;
  decode_rgb(data: number, size: number, cropX: number, cropY: number, cropW: number, cropH: number, outW: number, outH: number, out: number, stride: number, outSize: number): number;
}

const VP8_STATUS_OUT_OF_MEMORY = 1;
const FORMAT_LOSSLESS = 2;

let compiled: Promise<WebAssembly.Module> | null = null;

async function instantiate(): Promise<LibWebp> {
  compiled ??= compiledWasm(() => import("./libwebp-decoder.wasm"), "./libwebp-decoder.wasm");
  const instance = await WebAssembly.instantiate(await compiled, {});
  return instance.exports as unknown as LibWebp;
}

/** Where the lossy bitstream's "VP8 " chunk (header included) sits in a RIFF WebP, if it has one. */
function vp8Chunk(bytes: Uint8Array): { offset: number; size: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    if (bytes[at] === 0x56 && bytes[at + 1] === 0x50 && bytes[at + 2] === 0x38 && bytes[at + 3] === 0x20) {
      return { offset: at, size: Math.min(8 + size, bytes.length - at) };
    }
    at += 8 + size + (size & 1);
  }
  return null;
}

/**
 * What one decode may write (RGB): the whole frame when it fits (one decode gives the overview, the
 * tiles and the thumbnail), else each band of tiles, merged while their bounding box fits.
 */
export const DECODE_OUTPUT_BUDGET = 24 * 1024 * 1024;

/**
 * libwebp's fancy upsampling of chroma reads the neighbouring rows and columns, which a crop does
 * not have: crops are widened by this many pixels (to even coordinates) so every tile pixel is the
 * one a whole-frame decode gives.
 */
const CROP_MARGIN = 2;

/**
 * The crops that cover the tiles with the fewest decodes: tiles in reading order (top to bottom) are
 * merged into one crop while its RGB fits DECODE_OUTPUT_BUDGET. Each decode stops at its crop's
 * bottom, so fewer, taller crops decode fewer rows in all.
 */
export function planBands(width: number, height: number, regions: Rect[], budget = DECODE_OUTPUT_BUDGET): Rect[] {
  const widen = (r: Rect): Rect => {
    const x = Math.max(0, (r.x - CROP_MARGIN) & ~1);
    const y = Math.max(0, (r.y - CROP_MARGIN) & ~1);
    return { x, y, width: Math.min(width, r.x + r.width + CROP_MARGIN) - x, height: Math.min(height, r.y + r.height + CROP_MARGIN) - y };
  };
  const bands: Rect[] = [];
  for (const r of regions.filter((t) => t.width > 0 && t.height > 0).sort((a, b) => a.y - b.y || a.x - b.x).map(widen)) {
    const last = bands.at(-1);
    if (last) {
      const x = Math.min(last.x, r.x);
      const y = Math.min(last.y, r.y);
      const merged = { x, y, width: Math.max(last.x + last.width, r.x + r.width) - x, height: Math.max(last.y + last.height, r.y + r.height) - y };
      if (merged.width * merged.height * 3 <= budget) {
        bands[bands.length - 1] = merged;
        continue;
      }
    }
    bands.push(r);
  }
  return bands;
}

/** `budget` is DECODE_OUTPUT_BUDGET but for tests that take the bounded path on a small image. */
export async function decodeWebp(bytes: Uint8Array, request: DecodeRequest, budget = DECODE_OUTPUT_BUDGET): Promise<DecodedImage> {
  checkFrame(() => webpFrame(bytes));
  const webp = await instantiate();
  try {
    const src = alloc(webp, bytes.length, "the WebP bytes");
    new Uint8Array(webp.memory.buffer, src, bytes.length).set(bytes);
    const info = alloc(webp, 20, "the WebP features");
    const status = webp.features(src, bytes.length, info);
    if (status !== 0) throw failure(status, "WebP header is invalid");
    const [width = 0, height = 0, , animated = 0, format = 0] = new Int32Array(webp.memory.buffer, info, 5);
    if (animated) throw new DecodeFailure("undecodable_image", "animated WebP is not a still photo");
    // libwebp's own reading of the header, checked again: it is the size its decodes are planned by.
    checkFrameSize("WebP", width, height);
    let data = { ptr: src, size: bytes.length };
    if (format !== FORMAT_LOSSLESS) {
      const chunk = vp8Chunk(bytes);
      if (!chunk) throw new DecodeFailure("undecodable_image", "lossy WebP without a VP8 chunk");
      data = { ptr: src + chunk.offset, size: chunk.size };
    }
    const decode = (crop: Rect, outW: number, outH: number): Block => {
      const stride = outW * 3;
      const out = alloc(webp, stride * outH, `a ${outW}x${outH} RGB buffer`);
      const code = webp.decode_rgb(data.ptr, data.size, crop.x, crop.y, crop.width, crop.height, outW, outH, out, stride, stride * outH);
      if (code !== 0) throw failure(code, "WebP data is corrupt or truncated");
      return { x: crop.x, y: crop.y, width: outW, height: outH, channels: 3, data: new Uint8Array(webp.memory.buffer), offset: out, stride };
    };
    const whole = { x: 0, y: 0, width, height };

    const rects = request.tiles?.(width, height) ?? [];
    if (width * height * 3 <= budget) {
      // Small enough for one decode: everything from the whole frame.
      const frame = new FrameBuilder(width, height, rects, OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);
      frame.add(decode(whole, width, height));
      return frame.result();
    }

    // Overview and thumbnail: one decode scaled to the overview's size by libwebp's rescaler.
    const small = reducedSize(width, height, OVERVIEW_MAX_SIDE);
    const scaled = decode(whole, small.width, small.height);
    const { overview, thumbnail } = overviewAndThumbnail(scaled, OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);
    webp.free(scaled.offset!);

    // Tiles: native-resolution crops, as few as the output budget allows.
    const tiles = new TileCollector(width, height, rects);
    for (const band of planBands(width, height, tiles.regions, budget)) {
      const block = decode(band, band.width, band.height);
      tiles.add(block);
      webp.free(block.offset!);
    }
    return { width, height, overview, tiles: tiles.result(), thumbnail };
  } catch (err) {
    if (err instanceof DecodeFailure) throw err;
    throw new DecodeFailure("undecodable_image", `WebP decode failed: ${String(err)}`);
  }
  // The instance (and its memory) is dropped here.
}

function alloc(webp: LibWebp, size: number, what: string): number {
  const ptr = webp.malloc(size);
  if (!ptr) throw new DecodeFailure("image_too_large", `no memory for ${what}`);
  return ptr;
}

/** libwebp's VP8StatusCode as a DecodeFailure: out of memory, or anything else wrong with the data. */
function failure(status: number, message: string): DecodeFailure {
  return status === VP8_STATUS_OUT_OF_MEMORY ? new DecodeFailure("image_too_large", "libwebp ran out of memory") : new DecodeFailure("undecodable_image", `${message} (VP8 status ${status})`);
}
