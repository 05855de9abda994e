import { DecodeFailure, OVERVIEW_MAX_SIDE, type DecodedImage, type DecodeRequest } from "./types";
import { FrameBuilder } from "./frame";
import { checkFrame, heifFrame } from "./header";
import { checkFrameSize, MAX_FRAME_PIXELS, MAX_GRID_TILES } from "./limits";
import { compiledWasm } from "./wasm";

/*
 * HEIC/HEIF through libheif (libheif-js, with libde265 for HEVC) compiled to WebAssembly. Phones
 * store a photo as a grid of independently coded tiles (512×512 on iPhones): each grid tile is
 * decoded alone (heif_image_handle_decode_image_tile), fed to the frame builder and released, so
 * memory follows one tile, not the frame. A fresh instance per image returns its memory afterwards.
 * libheif's own security limits are set to ours (../limits) and its allocations for images to
 * LIBHEIF_MEMORY, so a file whose coded tiles disagree with the sizes its boxes state is refused by
 * libheif as well as by the header check.
 */

/** A single-tile (non-grid) image is decoded whole, as RGB: 3 bytes per pixel plus the YCbCr planes. */
export const MAX_UNTILED_PIXELS = 16_000_000;

/** What libheif may allocate for images in all (its `max_total_memory`) and in one block. */
const LIBHEIF_MEMORY = 96 * 1024 * 1024;
const LIBHEIF_MEMORY_BLOCK = 64 * 1024 * 1024;

const HEIF_COLORSPACE_RGB = 1;
const HEIF_CHROMA_INTERLEAVED_RGB = 10;
const HEIF_CHANNEL_INTERLEAVED = 10;

interface Libheif {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(ptr: number): void;
  _heif_context_alloc(): number;
  _heif_context_get_security_limits(ctx: number): number;
  _heif_context_set_security_limits(err: number, ctx: number, limits: number): void;
  _heif_context_free(ctx: number): void;
  _heif_context_read_from_memory_without_copy(err: number, ctx: number, mem: number, size: number, options: number): void;
  _heif_context_get_primary_image_handle(err: number, ctx: number, out: number): void;
  _heif_image_handle_get_width(handle: number): number;
  _heif_image_handle_get_height(handle: number): number;
  _heif_image_handle_release(handle: number): void;
  _heif_image_handle_get_image_tiling(err: number, handle: number, processTransformations: number, out: number): void;
  _heif_image_handle_decode_image_tile(err: number, handle: number, out: number, colorspace: number, chroma: number, options: number, tx: number, ty: number): void;
  _heif_decoding_options_alloc(): number;
  _heif_decoding_options_free(options: number): void;
  _heif_image_get_plane_readonly2(image: number, channel: number, stride: number): number;
  _heif_image_get_width(image: number, channel: number): number;
  _heif_image_get_height(image: number, channel: number): number;
  _heif_image_release(image: number): void;
}

type Factory = (options: Record<string, unknown>) => Libheif | Promise<Libheif>;

let loaded: Promise<{ factory: Factory; wasm: WebAssembly.Module }> | null = null;

function load() {
  loaded ??= Promise.all([
    import("libheif-js/libheif-wasm/libheif.js"),
    compiledWasm(() => import("libheif-js/libheif-wasm/libheif.wasm"), "libheif-js/libheif-wasm/libheif.wasm"),
  ]).then(([glue, wasm]) => ({ factory: ((glue as { default?: Factory }).default ?? glue) as Factory, wasm }));
  return loaded;
}

async function instantiate(): Promise<Libheif> {
  const { factory, wasm } = await load();
  // The glue takes nodejs_compat's `process` for Node and reads `__dirname` (only to locate a file
  // it never loads here): give it one, or it throws a ReferenceError under wrangler's bundle.
  const scope = globalThis as { __dirname?: string };
  scope.__dirname ??= "/";
  return factory({
    // Workers refuse to compile WebAssembly from bytes: hand over the module bundled at deploy time.
    instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
      const instance = new WebAssembly.Instance(wasm, imports);
      done(instance, wasm);
      return instance.exports;
    },
    print: () => {},
    printErr: () => {},
  });
}

/**
 * libheif's `heif_security_limits` (libheif ≥ 1.19; libheif-js 1.23 carries 1.21, struct version 4):
 * the context's copy with our ceilings written in. Offsets are wasm32's layout of the struct.
 */
function applySecurityLimits(heif: Libheif, ctx: number, scratch: number, err: number): void {
  const limits = heif._heif_context_get_security_limits(ctx);
  heif.HEAPU8.copyWithin(scratch, limits, limits + 96);
  const view = new DataView(heif.HEAPU8.buffer);
  if (view.getUint8(scratch) < 2) return;
  const u64 = (offset: number, value: number) => view.setBigUint64(scratch + offset, BigInt(value), true);
  u64(8, MAX_FRAME_PIXELS); // max_image_size_pixels
  u64(16, MAX_GRID_TILES); // max_number_of_tiles
  u64(40, LIBHEIF_MEMORY_BLOCK); // max_memory_block_size
  u64(64, LIBHEIF_MEMORY); // max_total_memory
  heif._heif_context_set_security_limits(err, ctx, scratch);
}

export async function decodeHeif(bytes: Uint8Array, request: DecodeRequest): Promise<DecodedImage> {
  checkFrame(() => heifFrame(bytes));
  const heif = await instantiate();
  const scratch = heif._malloc(256);
  const limitsCopy = heif._malloc(128);
  const data = heif._malloc(bytes.length);
  if (!scratch || !data || !limitsCopy) throw new DecodeFailure("image_too_large", "no memory for the HEIF bytes");
  heif.HEAPU8.set(bytes, data);
  const err = scratch;
  const out = scratch + 16;
  const tiling = scratch + 32;
  const i32 = (ptr: number) => new DataView(heif.HEAPU8.buffer).getInt32(ptr, true);
  const u32 = (ptr: number) => new DataView(heif.HEAPU8.buffer).getUint32(ptr, true);
  const check = (what: string) => {
    if (i32(err) === 0) return;
    const message = cString(heif.HEAPU8, u32(err + 8));
    throw new DecodeFailure("undecodable_image", `HEIF ${what}: ${message || `error ${i32(err)}`}`);
  };
  try {
    const ctx = heif._heif_context_alloc();
    applySecurityLimits(heif, ctx, limitsCopy, err);
    check("security limits");
    heif._heif_context_read_from_memory_without_copy(err, ctx, data, bytes.length, 0);
    check("container");
    heif._heif_context_get_primary_image_handle(err, ctx, out);
    check("primary image");
    const handle = u32(out);
    // Tiles in coded orientation: rotation and mirroring (irot/imir) are not applied, like EXIF
    // orientation is not applied to JPEGs, so a copy hashes the same in either format.
    heif._heif_image_handle_get_image_tiling(err, handle, 0, tiling);
    check("tiling");
    const columns = u32(tiling + 4);
    const rows = u32(tiling + 8);
    const tileWidth = u32(tiling + 12);
    const tileHeight = u32(tiling + 16);
    const width = u32(tiling + 20) || heif._heif_image_handle_get_width(handle);
    const height = u32(tiling + 24) || heif._heif_image_handle_get_height(handle);
    if (!width || !height || !columns || !rows) throw new DecodeFailure("undecodable_image", "HEIF image has no pixels");
    // libheif's own reading of the boxes, checked again: the tiles it will decode, in full.
    if (columns * rows > MAX_GRID_TILES) throw new DecodeFailure("image_too_large", `HEIF grid of ${columns}x${rows} tiles: more than ${MAX_GRID_TILES}`);
    checkFrameSize("HEIF", width, height, columns * rows * tileWidth * tileHeight);
    if (tileWidth * tileHeight > MAX_UNTILED_PIXELS) {
      throw new DecodeFailure("image_too_large", `HEIF image of ${width}x${height} is one ${tileWidth}x${tileHeight} tile; untiled images are decoded up to ${MAX_UNTILED_PIXELS / 1e6} MP`);
    }
    const options = heif._heif_decoding_options_alloc();
    heif.HEAPU8[options + 1] = 1; // ignore_transformations
    const frame = new FrameBuilder(width, height, request.tiles?.(width, height) ?? [], OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);
    for (let ty = 0; ty < rows; ty += 1) {
      for (let tx = 0; tx < columns; tx += 1) {
        heif._heif_image_handle_decode_image_tile(err, handle, out, HEIF_COLORSPACE_RGB, HEIF_CHROMA_INTERLEAVED_RGB, options, tx, ty);
        check(`tile ${tx},${ty}`);
        const image = u32(out);
        const plane = heif._heif_image_get_plane_readonly2(image, HEIF_CHANNEL_INTERLEAVED, scratch + 128);
        const stride = u32(scratch + 128);
        const w = heif._heif_image_get_width(image, HEIF_CHANNEL_INTERLEAVED);
        const h = heif._heif_image_get_height(image, HEIF_CHANNEL_INTERLEAVED);
        if (w > tileWidth || h > tileHeight) throw new DecodeFailure("undecodable_image", `HEIF tile ${tx},${ty} decoded to ${w}x${h}, larger than the ${tileWidth}x${tileHeight} its boxes state`);
        frame.add({ x: tx * tileWidth, y: ty * tileHeight, width: w, height: h, channels: 3, data: heif.HEAPU8, offset: plane, stride });
        heif._heif_image_release(image);
      }
    }
    return frame.result();
  } catch (err) {
    if (err instanceof DecodeFailure) throw err;
    if (err instanceof RangeError || (err instanceof WebAssembly.RuntimeError && /memory|abort/i.test(err.message))) {
      throw new DecodeFailure("image_too_large", `HEIF decode ran out of memory: ${err.message}`);
    }
    throw new DecodeFailure("undecodable_image", `HEIF decode failed: ${String(err)}`);
  }
}

function cString(heap: Uint8Array, ptr: number): string {
  if (!ptr) return "";
  let end = ptr;
  while (end < heap.length && heap[end] !== 0 && end - ptr < 300) end += 1;
  return new TextDecoder().decode(heap.subarray(ptr, end));
}
