import { Deflate, deflate } from "pako";
import { concat } from "./synth";

/*
 * Decompression bombs: files of a few dozen to a few hundred bytes whose headers claim enormous
 * frames (issue 26). Each is well formed up to its coded data, which is a few bytes long, so only
 * a check of the header against the file's size refuses it before a decoder works through the
 * frame it claims.
 */

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

function u32be(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

function u16be(n: number): Uint8Array {
  return Uint8Array.of(n >> 8, n & 0xff);
}

function u32le(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, true);
  return out;
}

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function pngChunk(type: string, body: Uint8Array): Uint8Array {
  const typed = concat(ascii(type), body);
  return concat(u32be(body.length), typed, u32be(crc32(typed)));
}

/** A PNG whose IHDR claims `width`×`height` (8-bit RGB unless told), with one short row of data. */
export function pngBomb(width: number, height: number, options: { depth?: number; colorType?: number; interlaced?: boolean } = {}): Uint8Array {
  const ihdr = concat(u32be(width), u32be(height), Uint8Array.of(options.depth ?? 8, options.colorType ?? 2, 0, 0, options.interlaced ? 1 : 0));
  return concat(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), pngChunk("IHDR", ihdr), pngChunk("IDAT", deflate(new Uint8Array(64))), pngChunk("IEND", new Uint8Array(0)));
}

/**
 * A real 16-bit grayscale PNG of `width`×`height` whose every sample is 0: a complete zlib stream
 * of its rows (filter byte and samples), deflated in 1 MiB steps so the frame is never in memory.
 * 8192×8192 is issue 33's depth map: about 130 KB that inflates to 128 MiB.
 */
export function depthBomb(width: number, height: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const stream = new Deflate({ level: 9 });
  stream.onData = (chunk: Uint8Array) => void parts.push(chunk);
  const zeros = new Uint8Array(1 << 20);
  let left = height * (1 + width * 2);
  while (left > 0) {
    const n = Math.min(left, zeros.length);
    left -= n;
    stream.push(zeros.subarray(0, n), left === 0);
  }
  const ihdr = concat(u32be(width), u32be(height), Uint8Array.of(16, 0, 0, 0, 0));
  const idat = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (idat.set(p, at), at + p.length), 0);
  return concat(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), pngChunk("IHDR", ihdr), pngChunk("IDAT", idat), pngChunk("IEND", new Uint8Array(0)));
}

function segment(marker: number, body: Uint8Array): Uint8Array {
  return concat(Uint8Array.of(0xff, marker), u16be(body.length + 2), body);
}

/**
 * A grayscale Huffman JPEG claiming `width`×`height`: one quantization table, DC and AC tables of a
 * single 1-bit code each (so every block would take two bits), a scan of four bytes, EOI.
 * `progressive` makes it SOF2 with a DC first scan.
 */
export function jpegBomb(width: number, height: number, progressive = false): Uint8Array {
  const dqt = segment(0xdb, concat(Uint8Array.of(0), new Uint8Array(64).fill(1)));
  const sof = segment(progressive ? 0xc2 : 0xc0, concat(Uint8Array.of(8), u16be(height), u16be(width), Uint8Array.of(1, 1, 0x11, 0)));
  const oneCode = (tableClass: number) => concat(Uint8Array.of(tableClass << 4), Uint8Array.of(1, ...new Array<number>(15).fill(0)), Uint8Array.of(0));
  const dht = segment(0xc4, concat(oneCode(0), oneCode(1)));
  const sos = segment(0xda, progressive ? Uint8Array.of(1, 1, 0x00, 0, 0, 0) : Uint8Array.of(1, 1, 0x00, 0, 63, 0));
  return concat(Uint8Array.of(0xff, 0xd8), dqt, sof, dht, sos, Uint8Array.of(0, 0, 0, 0), Uint8Array.of(0xff, 0xd9));
}

function riff(chunks: Uint8Array[]): Uint8Array {
  const body = concat(ascii("WEBP"), ...chunks);
  return concat(ascii("RIFF"), u32le(body.length), body);
}

function webpChunk(type: string, body: Uint8Array): Uint8Array {
  return concat(ascii(type), u32le(body.length), body, body.length & 1 ? Uint8Array.of(0) : new Uint8Array(0));
}

/** A lossy WebP key frame header claiming `width`×`height` (14-bit fields: at most 16 383). */
export function vp8Bomb(width: number, height: number): Uint8Array {
  const frame = concat(Uint8Array.of(0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a), Uint8Array.of(width & 0xff, (width >> 8) & 0x3f, height & 0xff, (height >> 8) & 0x3f), new Uint8Array(16));
  return riff([webpChunk("VP8 ", frame)]);
}

function vp8lChunk(width: number, height: number): Uint8Array {
  return webpChunk("VP8L", concat(Uint8Array.of(0x2f), u32le(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14)), new Uint8Array(16)));
}

/** A lossless WebP header claiming `width`×`height` (at most 16 384 each). */
export function vp8lBomb(width: number, height: number): Uint8Array {
  return riff([vp8lChunk(width, height)]);
}

/** An extended WebP whose VP8X canvas claims `width`×`height` (24-bit fields) around a 16×16 lossless frame. */
export function vp8xBomb(width: number, height: number): Uint8Array {
  const w = width - 1;
  const h = height - 1;
  const vp8x = Uint8Array.of(0, 0, 0, 0, w & 0xff, (w >> 8) & 0xff, (w >> 16) & 0xff, h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff);
  return riff([webpChunk("VP8X", vp8x), vp8lChunk(16, 16)]);
}

/** concat for long lists (a spread of thousands of arguments overflows the stack). */
function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

function box(type: string, ...body: Uint8Array[]): Uint8Array {
  const content = join(body);
  return concat(u32be(8 + content.length), ascii(type), content);
}

function fullBox(type: string, version: number, ...body: Uint8Array[]): Uint8Array {
  return box(type, Uint8Array.of(version, 0, 0, 0), ...body);
}

/**
 * A HEIF whose primary item is a grid of `columns`×`rows` HEVC tiles, each `tileWidth`×`tileHeight`
 * (`ispe`), with output `width`×`height`; or, with `columns` 0, one HEVC image of `width`×`height`.
 * The coded data is 16 bytes shared by every tile; `listed` tile items exist (all of them unless told).
 */
export function heifBomb(options: { width: number; height: number; columns?: number; rows?: number; tileWidth?: number; tileHeight?: number; listed?: number }): Uint8Array {
  const { width, height, columns = 0, rows = 1, tileWidth = 512, tileHeight = 512 } = options;
  const grid = columns > 0;
  const tiles = grid ? (options.listed ?? columns * rows) : 0;
  const primary = grid ? tiles + 1 : 1;
  const ids = Array.from({ length: grid ? tiles : 1 }, (_, i) => i + 1);
  const infe = (id: number, type: string) => fullBox("infe", 2, u16be(id), u16be(0), ascii(type), Uint8Array.of(0));
  const ispe = (w: number, h: number) => fullBox("ispe", 0, u32be(w), u32be(h));
  // Properties: 1 = the tiles' ispe, 2 = the primary's ispe.
  const ipco = box("ipco", ispe(grid ? tileWidth : width, grid ? tileHeight : height), ispe(width, height));
  const associations = [...ids.map((id) => concat(u16be(id), Uint8Array.of(1, id === primary ? 2 : 1))), ...(grid ? [concat(u16be(primary), Uint8Array.of(1, 2))] : [])];
  const ipma = fullBox("ipma", 0, u32be(associations.length), join(associations));
  const descriptor = Uint8Array.of(0, 1, rows - 1, columns - 1, ...u32be(width), ...u32be(height));
  const coded = new Uint8Array(16);
  // iloc version 1: offset and length 4 bytes, no base offset; the grid's descriptor in idat (method 1).
  const locations = [
    ...ids.map((id) => concat(u16be(id), u16be(0), u16be(0), u16be(1), u32be(0), u32be(coded.length))),
    ...(grid ? [concat(u16be(primary), u16be(1), u16be(0), u16be(1), u32be(0), u32be(descriptor.length))] : []),
  ];
  const meta = (mdatOffset: number) =>
    fullBox(
      "meta",
      0,
      fullBox("hdlr", 0, u32be(0), ascii("pict"), new Uint8Array(13)),
      fullBox("pitm", 0, u16be(primary)),
      fullBox("iinf", 0, u16be(ids.length + (grid ? 1 : 0)), join(ids.map((id) => infe(id, "hvc1"))), ...(grid ? [infe(primary, "grid")] : [])),
      ...(grid ? [fullBox("iref", 0, box("dimg", u16be(primary), u16be(tiles), join(ids.map(u16be))))] : []),
      box("iprp", ipco, ipma),
      fullBox("iloc", 1, Uint8Array.of(0x44, 0x00), u16be(locations.length), join(locations.map((l, i) => (i < ids.length ? patchOffset(l, mdatOffset) : l)))),
      ...(grid ? [box("idat", descriptor)] : []),
    );
  const ftyp = box("ftyp", ascii("heic"), u32be(0), ascii("mif1"), ascii("heic"));
  const probe = meta(0);
  return concat(ftyp, meta(ftyp.length + probe.length + 8), box("mdat", coded));
}

/** Sets an iloc v1 entry's (single) extent offset: id, method, data ref, extent count, then the offset. */
function patchOffset(entry: Uint8Array, offset: number): Uint8Array {
  const out = entry.slice();
  new DataView(out.buffer).setUint32(8, offset);
  return out;
}

export interface Bomb {
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

/** The bombs of issue 26 and their like for every format the decoders take. */
export function bombs(): Bomb[] {
  return [
    { name: "PNG 1 × 2 147 483 647", mediaType: "image/png", bytes: pngBomb(1, 2_147_483_647) },
    { name: "PNG 2 147 483 647 × 1", mediaType: "image/png", bytes: pngBomb(2_147_483_647, 1) },
    { name: "PNG 100 000 × 100 000", mediaType: "image/png", bytes: pngBomb(100_000, 100_000) },
    { name: "PNG 7 000 × 7 000 (under the ceiling, in 100 bytes)", mediaType: "image/png", bytes: pngBomb(7_000, 7_000) },
    { name: "interlaced 16-bit RGBA PNG 2 000 × 2 000", mediaType: "image/png", bytes: pngBomb(2_000, 2_000, { depth: 16, colorType: 6, interlaced: true }) },
    { name: "JPEG 65 000 × 65 000", mediaType: "image/jpeg", bytes: jpegBomb(65_000, 65_000) },
    { name: "progressive JPEG 65 000 × 65 000", mediaType: "image/jpeg", bytes: jpegBomb(65_000, 65_000, true) },
    { name: "JPEG 7 000 × 7 000 (under the ceiling)", mediaType: "image/jpeg", bytes: jpegBomb(7_000, 7_000) },
    { name: "progressive JPEG 7 000 × 7 000 (under the ceiling)", mediaType: "image/jpeg", bytes: jpegBomb(7_000, 7_000, true) },
    { name: "WebP VP8 16 383 × 16 383", mediaType: "image/webp", bytes: vp8Bomb(16_383, 16_383) },
    { name: "WebP VP8 7 000 × 7 000 (under the ceiling)", mediaType: "image/webp", bytes: vp8Bomb(7_000, 7_000) },
    { name: "WebP VP8L 16 384 × 16 384", mediaType: "image/webp", bytes: vp8lBomb(16_384, 16_384) },
    { name: "WebP VP8X canvas 16 777 216 × 16 777 216", mediaType: "image/webp", bytes: vp8xBomb(16_777_216, 16_777_216) },
    { name: "HEIF ispe 100 000 × 100 000", mediaType: "image/heic", bytes: heifBomb({ width: 100_000, height: 100_000 }) },
    { name: "HEIF grid 256 × 256 tiles of 512 × 512", mediaType: "image/heic", bytes: heifBomb({ width: 65_535, height: 65_535, columns: 256, rows: 256, listed: 1 }) },
    { name: "HEIF grid 2 × 2 tiles of 8 192 × 8 192", mediaType: "image/heic", bytes: heifBomb({ width: 8_000, height: 6_000, columns: 2, rows: 2, tileWidth: 8_192, tileHeight: 8_192 }) },
  ];
}
