import { DecodeFailure, OVERVIEW_MAX_SIDE, type DecodedImage, type DecodeRequest, type Rect } from "./types";
import { overviewAndThumbnail, TileCollector } from "./frame";
import { checkFrame, frameLayout, jpegFrame, type JpegLayout } from "./header";
import { checkFrameSize } from "./limits";
import { decodeProgressiveJpeg } from "./progressive-jpeg";
import { compiledWasm } from "./wasm";

/*
 * JPEG through libjpeg-turbo's TurboJPEG API compiled to WebAssembly (@cwasm/jpeg-turbo: a bare
 * module exporting malloc/free and tjDecompress*, no JS glue). The overview and the thumbnail come
 * from one decode at a DCT scale (M/8, chosen by TurboJPEG to fit OVERVIEW_MAX_SIDE: 1/8 of a 50 MP
 * frame costs no IDCT at all), the moiré tiles from native-resolution grayscale decodes (chroma is
 * never inverse-transformed) that stop below the lowest tile: the frame header's height is patched.
 *
 * TurboJPEG writes whole rows, `pitch` bytes apart, and nothing checks that the pitch covers the
 * width: with a smaller pitch each row overwrites the previous row's tail, so what survives is the
 * column strip [0, pitch) of every row (top-down) or, with TJFLAG_BOTTOMUP, [width - pitch, width).
 * The tiles are cut from one or two such strips (planStrips), so a 50 MP frame never needs its
 * full-width luma in memory. Every decode gets a fresh instance, so the linear memory it grew is
 * released with it instead of staying with the isolate.
 */

const TJPF_RGB = 0;
const TJPF_GRAY = 6;
const TJFLAG_BOTTOMUP = 2;
const TJSAMP_GRAY = 3;

let compiled: Promise<WebAssembly.Module> | null = null;

function wasmModule(): Promise<WebAssembly.Module> {
  compiled ??= compiledWasm(() => import("@cwasm/jpeg-turbo/jpeg-turbo.wasm"), "@cwasm/jpeg-turbo/jpeg-turbo.wasm");
  return compiled;
}

interface TurboJpeg {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(ptr: number): void;
  tjInitDecompress(): number;
  tjDestroy(handle: number): number;
  tjDecompressHeader3(handle: number, src: number, size: number, w: number, h: number, subsamp: number, colorspace: number): number;
  tjDecompress2(handle: number, src: number, size: number, dst: number, width: number, pitch: number, height: number, format: number, flags: number): number;
}

class LongJump extends Error {}

async function instantiate(): Promise<TurboJpeg> {
  const imports = {
    // libjpeg's error_exit longjmps out of the decoder: here that unwinds as a JS exception and the
    // instance is discarded (setjmp reports "first return" so libjpeg proceeds).
    env: {
      setjmp: () => 0,
      longjmp: () => {
        throw new LongJump("libjpeg error");
      },
    },
    wasi_snapshot_preview1: {
      proc_exit: () => {
        throw new LongJump("libjpeg exit");
      },
      environ_sizes_get: () => 0,
      environ_get: () => 0,
      fd_close: () => 0,
      fd_seek: () => 0,
      fd_write: () => 0,
    },
  };
  const instance = await WebAssembly.instantiate(await wasmModule(), imports);
  return instance.exports as unknown as TurboJpeg;
}

/**
 * libjpeg takes a progressive frame while its coefficients and the input's two copies fit this (a
 * 12 MP 4:2:0 frame: 43 MiB). No more: the whole analysis of a 12 MP 4:4:4 progressive JPEG through
 * libjpeg (69 MiB of coefficients) measured 103 MB in workerd, over the 100 MB budget, and the
 * block-sparse decoder reads the same frame in a fraction of that.
 */
const LIBJPEG_PROGRESSIVE_BUDGET = 48 * 1024 * 1024;

export async function decodeJpeg(bytes: Uint8Array, request: DecodeRequest, onePassBytes = ONE_PASS_LUMA_BYTES): Promise<DecodedImage> {
  checkFrame(() => jpegFrame(bytes));
  const layout = frameLayout(bytes);
  if (!layout) throw new DecodeFailure("undecodable_image", "JPEG without a frame header");
  // libjpeg holds every coefficient of a progressive frame (128 bytes a block) for the overview
  // pass: 12 MP at 4:2:0 is 34 MiB, 50 MP at 4:2:0 143 MiB. (The tile passes cut the frame short
  // and hold only the rows above the lowest tile.) Baseline JPEGs stream and have no such limit.
  // Over the budget, a decoder that keeps only DC values and the tiles' blocks takes the frame.
  if (layout.progressive && libjpegCoefficientBytes(layout) + 2 * bytes.length > LIBJPEG_PROGRESSIVE_BUDGET) return decodeProgressiveJpeg(bytes, request);
  const tj = await instantiate();
  const handle = tj.tjInitDecompress();
  if (!handle) throw new DecodeFailure("undecodable_image", "TurboJPEG could not start");
  const src = tj.malloc(bytes.length);
  const out = tj.malloc(16);
  if (!src || !out) throw new DecodeFailure("image_too_large", "no memory for the JPEG bytes");
  new Uint8Array(tj.memory.buffer, src, bytes.length).set(bytes);
  const heap = () => new DataView(tj.memory.buffer);
  const fail = (what: string): never => {
    throw new DecodeFailure("undecodable_image", `JPEG ${what}`);
  };
  try {
    if (tj.tjDecompressHeader3(handle, src, bytes.length, out, out + 4, out + 8, out + 12) !== 0) fail("header is invalid");
    const width = heap().getInt32(out, true);
    const height = heap().getInt32(out + 4, true);
    const subsamp = heap().getInt32(out + 8, true);
    // libjpeg's own reading of the header, checked again: it is the size it will allocate and decode.
    checkFrameSize("JPEG", width, height);
    // Overview (and thumbnail): one decode at the DCT scale that fits OVERVIEW_MAX_SIDE.
    const withColor = Boolean(request.thumbnailMaxSide) && subsamp !== TJSAMP_GRAY;
    const scaled = scaledSize(width, height, OVERVIEW_MAX_SIDE);
    const channels = withColor ? 3 : 1;
    const small = tj.malloc(scaled.width * scaled.height * channels);
    if (!small) throw new DecodeFailure("image_too_large", "no memory for the overview");
    // Fatal errors longjmp (thrown above); a -1 return is libjpeg's warning: corrupt or truncated data.
    if (tj.tjDecompress2(handle, src, bytes.length, small, scaled.width, 0, scaled.height, withColor ? TJPF_RGB : TJPF_GRAY, 0) !== 0) fail("data is corrupt or truncated");
    const block = { x: 0, y: 0, width: scaled.width, height: scaled.height, channels, data: new Uint8Array(tj.memory.buffer), offset: small, stride: scaled.width * channels } as const;
    const { overview, thumbnail } = overviewAndThumbnail(block, OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);
    tj.free(small);

    // Tiles: native-resolution luma strips down to the lowest tile (the frame is cut short there).
    const tiles = new TileCollector(width, height, request.tiles?.(width, height) ?? []);
    for (const strip of planStrips(width, tiles.regions, onePassBytes)) {
      setFrameHeight(tj, src, layout.sofOffset, strip.rows);
      const size = (strip.rows - 1) * strip.pitch + width;
      const buffer = tj.malloc(size);
      if (!buffer) throw new DecodeFailure("image_too_large", `no memory for a ${strip.pitch}x${strip.rows} luma strip`);
      // A frame cut short warns about the entropy data left over: expected, the overview decode above
      // already vouched for the stream.
      const status = tj.tjDecompress2(handle, src, bytes.length, buffer, width, strip.pitch, strip.rows, TJPF_GRAY, strip.bottomUp ? TJFLAG_BOTTOMUP : 0);
      if (status !== 0 && strip.rows === height) fail("data is corrupt or truncated");
      const data = new Uint8Array(tj.memory.buffer);
      tiles.add(
        strip.bottomUp
          ? { x: width - strip.pitch, y: 0, width: strip.pitch, height: strip.rows, channels: 1, data, offset: buffer + (strip.rows - 1) * strip.pitch + width - strip.pitch, stride: -strip.pitch }
          : { x: 0, y: 0, width: strip.pitch, height: strip.rows, channels: 1, data, offset: buffer, stride: strip.pitch },
      );
      tj.free(buffer);
    }
    setFrameHeight(tj, src, layout.sofOffset, height);
    return { width, height, overview, tiles: tiles.result(), thumbnail };
  } catch (err) {
    if (err instanceof DecodeFailure) throw err;
    if (err instanceof LongJump) throw new DecodeFailure("undecodable_image", "JPEG data is corrupt");
    if (err instanceof RangeError || (err instanceof WebAssembly.RuntimeError && /memory/i.test(err.message))) {
      throw new DecodeFailure("image_too_large", `JPEG decode ran out of memory: ${err.message}`);
    }
    throw new DecodeFailure("undecodable_image", `JPEG decode failed: ${String(err)}`);
  }
  // The instance (and its memory) is dropped here; nothing to free one by one.
}

/** What libjpeg's whole-image coefficient buffer for a progressive frame takes: 128 bytes a block. */
function libjpegCoefficientBytes({ width, height, components }: JpegLayout): number {
  const mh = Math.max(1, ...components.map((c) => c.h));
  const mv = Math.max(1, ...components.map((c) => c.v));
  return components.reduce((sum, c) => sum + Math.ceil((width * c.h) / (8 * mh)) * Math.ceil((height * c.v) / (8 * mv)), 0) * 128;
}

/** One native-resolution luma decode of rows [0, rows) keeping a column strip `pitch` wide. */
export interface Strip {
  rows: number;
  pitch: number;
  /** Rows stored bottom-up: the strip is the right edge [width - pitch, width), else the left [0, pitch). */
  bottomUp: boolean;
}

/**
 * Each strip is a pass of the entropy decoder over the rows it keeps: on a dense 1 MP JPEG one pass
 * costs about as much as the DCT-scaled overview decode (20-50 ms). Up to this much luma the tiles
 * take one top-down strip (one pass; a 16 MP frame at most); beyond it the least memory wins.
 */
export const ONE_PASS_LUMA_BYTES = 16 * 1024 * 1024;

/**
 * The strips that cover every tile: one top-down strip while it fits `onePassBytes`, else the least
 * memory, the tiles sorted by position split into a left group read top-down and a right group read
 * bottom-up (either may be empty).
 */
export function planStrips(width: number, regions: Rect[], onePassBytes = ONE_PASS_LUMA_BYTES): Strip[] {
  const tiles = regions.filter((r) => r.width > 0 && r.height > 0).sort((a, b) => a.x - b.x);
  if (tiles.length === 0) return [];
  const single: Strip = { rows: bottomOf(tiles), pitch: Math.max(...tiles.map((t) => t.x + t.width)), bottomUp: false };
  if (single.rows * single.pitch <= onePassBytes) return [single];
  let best: Strip[] = [];
  let bestCost = Infinity;
  for (let k = 0; k <= tiles.length; k += 1) {
    const left = tiles.slice(0, k);
    const right = tiles.slice(k);
    const strips: Strip[] = [];
    if (left.length > 0) strips.push({ rows: bottomOf(left), pitch: Math.max(...left.map((t) => t.x + t.width)), bottomUp: false });
    if (right.length > 0) strips.push({ rows: bottomOf(right), pitch: width - Math.min(...right.map((t) => t.x)), bottomUp: true });
    const cost = Math.max(0, ...strips.map((s) => s.rows * s.pitch));
    if (cost < bestCost || (cost === bestCost && strips.length < best.length)) [best, bestCost] = [strips, cost];
  }
  return best;
}

function bottomOf(rects: Rect[]): number {
  return Math.max(...rects.map((r) => r.y + r.height));
}

/** TurboJPEG's scaling factors up to 1 are M/8: the largest whose output fits a `side`² box. */
function scaledSize(width: number, height: number, side: number): { width: number; height: number } {
  for (let m = 8; m >= 1; m -= 1) {
    const w = Math.ceil((width * m) / 8);
    const h = Math.ceil((height * m) / 8);
    if (w <= side && h <= side) return { width: w, height: h };
  }
  return { width: Math.ceil(width / 8), height: Math.ceil(height / 8) };
}

/** Rewrites the frame header's height in the WASM copy: a baseline scan then ends after those rows. */
function setFrameHeight(tj: TurboJpeg, src: number, sofOffset: number, rows: number): void {
  const view = new Uint8Array(tj.memory.buffer, src + sofOffset + 5, 2);
  view[0] = rows >> 8;
  view[1] = rows & 0xff;
}
