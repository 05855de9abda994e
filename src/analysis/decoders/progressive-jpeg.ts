import { DecodeFailure, OVERVIEW_MAX_SIDE, type DecodedImage, type DecodeRequest, type Rect } from "./types";
import { overviewAndThumbnail, TileCollector } from "./frame";
import { checkFrameSize } from "./limits";

/*
 * Progressive JPEGs that libjpeg cannot decode within a Worker's memory (its whole-image coefficient
 * buffer: 128 bytes per 8×8 block, 286 MB for 50 MP at 4:4:4). This decoder parses every scan (DC
 * and AC, first and refinement passes with successive approximation, EOB runs, restart intervals,
 * any sampling factors, 1 or 3 components; ITU-T T.81 Annex G, the bitstream logic of libjpeg's
 * jdphuff.c) but stores only what the signals read:
 *   - the DC coefficient of every block (2 bytes): the 1/8-scale frame for the overview and the
 *     thumbnail (a block's DC is its mean);
 *   - which coefficients of every block are already nonzero (a 64-bit mask, 8 bytes): an AC
 *     refinement scan spends a correction bit on each of them, so the bitstream cannot be parsed
 *     without it;
 *   - all 64 coefficients of the luma blocks under the requested tiles (128 bytes each), inverse
 *     transformed at the end for the native-resolution tiles.
 * With a 4-byte slot index and the 1/8-scale RGB (3 bytes) per luma block, 50 MP at 4:4:4 holds
 * 29 MiB (4:2:0: 18 MiB) where libjpeg would hold 286 MB.
 */

/** Natural (row-major) position of the k-th coefficient in zigzag order. */
const ZIGZAG = Uint8Array.from([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]);

/** More scans than any encoder writes (libjpeg's standard script has 10): each walks every block, so a crafted file of thousands would run for minutes. */
const MAX_SCANS = 200;

/** Bytes held per block (DC + nonzero mask), per luma block (slot index, 1/8-scale RGB), per stored luma block (its coefficients). */
const BYTES_PER_BLOCK = 10;
const BYTES_PER_LUMA_BLOCK = 7;
const BYTES_PER_STORED_BLOCK = 128;

/**
 * What this decoder may hold (its footprint above) plus the input. The bench measures about 16 MB
 * of workerd growth beyond the footprint at 50 MP, so the peak stays under 100 MB of a Worker's
 * 128 MB. It admits 50 MP at 4:4:4 with a 25 MB input (53 MiB), and with a 25 MB input up to about
 * 70 MP at 4:4:4 or 120 MP at 4:2:0.
 */
export const PROGRESSIVE_BUDGET = 64 * 1024 * 1024;

class Corrupt extends Error {}

function corrupt(what: string): never {
  throw new Corrupt(what);
}

/** A Huffman table: a 9-bit lookahead (length << 8 | symbol, 0 when the code is longer) and canonical codes beyond. */
interface Huffman {
  lookup: Uint16Array;
  maxCode: Int32Array;
  offset: Int32Array;
  symbols: Uint8Array;
}

const LOOKAHEAD = 9;

function buildHuffman(counts: Uint8Array, symbols: Uint8Array): Huffman {
  const lookup = new Uint16Array(1 << LOOKAHEAD);
  const maxCode = new Int32Array(17).fill(-1);
  const offset = new Int32Array(17);
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length += 1) {
    const n = counts[length - 1]!;
    offset[length] = k - code;
    for (let i = 0; i < n; i += 1, code += 1, k += 1) {
      if (length <= LOOKAHEAD) {
        const shift = LOOKAHEAD - length;
        lookup.fill((length << 8) | symbols[k]!, code << shift, (code + 1) << shift);
      }
    }
    if (n > 0) maxCode[length] = code - 1;
    if (code > 1 << length) corrupt("Huffman table has more codes than bits");
    code <<= 1;
  }
  return { lookup, maxCode, offset, symbols };
}

/**
 * Reads entropy-coded bits, unstuffing 0xFF00. At a marker (or the end of the data) it feeds zero
 * bits and counts them in `pad`: consuming any of them means the scan was truncated or corrupt.
 */
class Bits {
  buf = 0;
  count = 0;
  pad = 0;

  constructor(
    private readonly data: Uint8Array,
    public pos: number,
  ) {}

  fill(): void {
    const data = this.data;
    while (this.count <= 24) {
      let byte = 0;
      const at = this.pos;
      if (this.pad === 0 && at < data.length && (data[at] !== 0xff || data[at + 1] === 0)) {
        byte = data[at]!;
        this.pos += byte === 0xff ? 2 : 1;
      } else {
        this.pad += 8; // a marker or the end: zeros, and `pos` stays there
      }
      this.buf = ((this.buf << 8) | byte) >>> 0;
      this.count += 8;
    }
  }

  bits(n: number): number {
    if (n === 0) return 0;
    if (this.count < n) this.fill();
    this.count -= n;
    return (this.buf >>> this.count) & ((1 << n) - 1);
  }

  bit(): number {
    if (this.count < 1) this.fill();
    this.count -= 1;
    return (this.buf >>> this.count) & 1;
  }

  /** A `size`-bit magnitude category read as a signed value (T.81 F.2.2.1 EXTEND). */
  signed(size: number): number {
    const v = this.bits(size);
    return v < 1 << (size - 1) ? v - (1 << size) + 1 : v;
  }

  symbol(table: Huffman): number {
    if (this.count < 16) this.fill();
    const entry = table.lookup[(this.buf >>> (this.count - LOOKAHEAD)) & ((1 << LOOKAHEAD) - 1)]!;
    if (entry !== 0) {
      this.count -= entry >> 8;
      return entry & 0xff;
    }
    for (let length = LOOKAHEAD + 1; length <= 16; length += 1) {
      const code = (this.buf >>> (this.count - length)) & ((1 << length) - 1);
      if (code <= table.maxCode[length]!) {
        this.count -= length;
        return table.symbols[table.offset[length]! + code]!;
      }
    }
    return corrupt("invalid Huffman code");
  }

  /** Some of the zeros fed past a marker or the end were read: the scan is truncated or corrupt. */
  get overrun(): boolean {
    return this.count < this.pad;
  }

  /**
   * At the end of a scan or restart interval: only the padding of the last byte may be left, and
   * none of the zeros fed past a marker may have been read. Leaves `pos` at the marker.
   */
  finish(): void {
    if (this.count < this.pad) corrupt("scan data is truncated");
    let unread = this.count - this.pad;
    const data = this.data;
    while (this.pos < data.length && !(data[this.pos] === 0xff && data[this.pos + 1] !== 0)) {
      this.pos += data[this.pos] === 0xff ? 2 : 1;
      unread += 8;
    }
    if (unread >= 8) corrupt("extraneous bytes in scan data");
    this.buf = 0;
    this.count = 0;
    this.pad = 0;
  }
}

interface Component {
  id: number;
  h: number;
  v: number;
  quantId: number;
  /** Dequantization table (zigzag order), latched when the component's first scan starts. */
  quant: Uint16Array | null;
  /** Blocks a non-interleaved scan visits. */
  blocksPerLine: number;
  blocksPerColumn: number;
  /** Block grid as stored, padded to whole MCUs. */
  stride: number;
  rows: number;
  dc: Int16Array;
  /** Two words per block: bit k of the pair is set once coefficient k (zigzag) is nonzero. */
  nonzero: Uint32Array;
  /** Per block: its index in `coefficients` (luma blocks under a tile), or -1. */
  slot: Int32Array | null;
  coefficients: Int16Array | null;
  dcTable: Huffman | null;
  acTable: Huffman | null;
  prediction: number;
}

interface Frame {
  width: number;
  height: number;
  maxH: number;
  maxV: number;
  mcusPerLine: number;
  mcusPerColumn: number;
  components: Component[];
}

/** The frame header: geometry only, so the budget can be checked before anything is allocated. */
function parseFrame(segment: Uint8Array): Frame {
  if (segment.length < 6) corrupt("short frame header");
  if (segment[0] !== 8) corrupt(`${segment[0]}-bit samples`);
  const height = (segment[1]! << 8) | segment[2]!;
  const width = (segment[3]! << 8) | segment[4]!;
  const count = segment[5]!;
  if (width === 0 || height === 0) corrupt("frame without pixels (DNL height is not supported)");
  checkFrameSize("progressive JPEG", width, height);
  if (count === 0) corrupt("frame without components");
  if (segment.length < 6 + count * 3) corrupt("short frame header");
  const raw = [];
  for (let i = 0; i < count; i += 1) {
    const hv = segment[7 + i * 3]!;
    const h = hv >> 4;
    const v = hv & 15;
    if (h < 1 || h > 4 || v < 1 || v > 4) corrupt("invalid sampling factors");
    raw.push({ id: segment[6 + i * 3]!, h, v, quantId: segment[8 + i * 3]! & 3 });
  }
  const maxH = Math.max(...raw.map((c) => c.h));
  const maxV = Math.max(...raw.map((c) => c.v));
  const mcusPerLine = Math.ceil(width / (8 * maxH));
  const mcusPerColumn = Math.ceil(height / (8 * maxV));
  const components = raw.map((c) => ({
    ...c,
    quant: null,
    blocksPerLine: Math.ceil((width * c.h) / (8 * maxH)),
    blocksPerColumn: Math.ceil((height * c.v) / (8 * maxV)),
    stride: mcusPerLine * c.h,
    rows: mcusPerColumn * c.v,
    dc: new Int16Array(0),
    nonzero: new Uint32Array(0),
    slot: null,
    coefficients: null,
    dcTable: null,
    acTable: null,
    prediction: 0,
  }));
  return { width, height, maxH, maxV, mcusPerLine, mcusPerColumn, components };
}

/** The luma blocks under the tiles (an upper bound: overlapping tiles count twice). */
function tileBlockCount(rects: Rect[]): number {
  return rects.reduce((sum, r) => sum + (Math.floor((r.y + r.height - 1) / 8) - Math.floor(r.y / 8) + 1) * (Math.floor((r.x + r.width - 1) / 8) - Math.floor(r.x / 8) + 1), 0);
}

/** Gives each luma block under a tile its place in `coefficients`. */
function assignSlots(luma: Component, rects: Rect[]): void {
  const slot = luma.slot!;
  let next = 0;
  for (const r of rects) {
    for (let by = Math.floor(r.y / 8); by <= Math.floor((r.y + r.height - 1) / 8); by += 1) {
      for (let bx = Math.floor(r.x / 8); bx <= Math.floor((r.x + r.width - 1) / 8); bx += 1) {
        const b = by * luma.stride + bx;
        if (slot[b] === -1) slot[b] = next++;
      }
    }
  }
}

interface Scan {
  components: Component[];
  start: number;
  end: number;
  high: number;
  low: number;
}

/** One scan's entropy-coded data: the block decoders of T.81 G.1.2 (libjpeg's jdphuff.c) over typed arrays. */
class ScanDecoder {
  private readonly bits: Bits;
  private eobrun = 0;
  private readonly plus: number;
  private readonly minus: number;

  constructor(
    data: Uint8Array,
    pos: number,
    private readonly scan: Scan,
  ) {
    this.bits = new Bits(data, pos);
    this.plus = 1 << scan.low;
    this.minus = -1 << scan.low;
  }

  /** Decodes every MCU, checking the restart markers; returns where the scan's data ends (a marker). */
  run(frame: Frame, restartInterval: number, data: Uint8Array): number {
    const { scan, bits } = this;
    const kind = scan.start === 0 ? (scan.high === 0 ? 0 : 1) : scan.high === 0 ? 2 : 3;
    const single = scan.components.length === 1 ? scan.components[0]! : null;
    const mcus = single ? single.blocksPerLine * single.blocksPerColumn : frame.mcusPerLine * frame.mcusPerColumn;
    let restarts = 0;
    for (let mcu = 0; mcu < mcus; ) {
      const stop = restartInterval > 0 ? Math.min(mcus, mcu + restartInterval) : mcus;
      this.eobrun = 0;
      for (const c of scan.components) c.prediction = 0;
      // Each MCU stops the scan as soon as it has read past the data: the work done on a truncated
      // or lying file is bounded by the bits it has, not by the frame its header claims.
      if (single) {
        for (; mcu < stop; mcu += 1) {
          const row = Math.floor(mcu / single.blocksPerLine);
          this.block(kind, single, row * single.stride + (mcu - row * single.blocksPerLine));
          if (bits.overrun) corrupt("scan data is truncated");
        }
      } else {
        for (; mcu < stop; mcu += 1) {
          if (bits.overrun) corrupt("scan data is truncated");
          const mcuRow = Math.floor(mcu / frame.mcusPerLine);
          const mcuCol = mcu - mcuRow * frame.mcusPerLine;
          for (const c of scan.components) {
            for (let v = 0; v < c.v; v += 1) {
              const base = (mcuRow * c.v + v) * c.stride + mcuCol * c.h;
              for (let h = 0; h < c.h; h += 1) this.block(kind, c, base + h);
            }
          }
        }
      }
      bits.finish();
      if (mcu < mcus) {
        // RSTn, numbered 0–7 in turn.
        if (data[bits.pos] !== 0xff || data[bits.pos + 1] !== 0xd0 + (restarts & 7)) corrupt("restart marker missing");
        bits.pos += 2;
        restarts += 1;
      }
    }
    return bits.pos;
  }

  private block(kind: number, c: Component, b: number): void {
    if (kind === 0) this.dcFirst(c, b);
    else if (kind === 1) this.dcRefine(c, b);
    else if (kind === 2) this.acFirst(c, b);
    else this.acRefine(c, b);
  }

  private dcFirst(c: Component, b: number): void {
    const size = this.bits.symbol(c.dcTable!);
    if (size > 16) corrupt("DC magnitude out of range");
    c.prediction += size === 0 ? 0 : this.bits.signed(size);
    c.dc[b] = c.prediction * this.plus;
  }

  private dcRefine(c: Component, b: number): void {
    if (this.bits.bit()) c.dc[b]! |= this.plus;
  }

  private acFirst(c: Component, b: number): void {
    if (this.eobrun > 0) {
      this.eobrun -= 1;
      return;
    }
    const { bits, scan } = this;
    const slot = c.slot ? c.slot[b]! : -1;
    const table = c.acTable!;
    for (let k = scan.start; k <= scan.end; ) {
      const rs = bits.symbol(table);
      const run = rs >> 4;
      const size = rs & 15;
      if (size === 0) {
        if (run < 15) {
          this.eobrun = (1 << run) - 1 + bits.bits(run);
          return;
        }
        k += 16;
        continue;
      }
      k += run;
      if (k > scan.end) corrupt("AC coefficient beyond the spectral band");
      const value = bits.signed(size) * this.plus;
      c.nonzero[b * 2 + (k >> 5)]! |= 1 << (k & 31);
      if (slot >= 0) c.coefficients![slot * 64 + k] = value;
      k += 1;
    }
  }

  private acRefine(c: Component, b: number): void {
    const { bits, scan, plus, minus } = this;
    const slot = c.slot ? c.slot[b]! : -1;
    const nonzero = c.nonzero;
    const end = scan.end;
    let k = scan.start;
    if (this.eobrun === 0) {
      for (; k <= end; k += 1) {
        const rs = bits.symbol(c.acTable!);
        let run = rs >> 4;
        const size = rs & 15;
        let value = 0;
        if (size !== 0) {
          if (size !== 1) corrupt("refinement coefficient of more than one bit");
          value = bits.bit() ? plus : minus;
        } else if (run < 15) {
          this.eobrun = (1 << run) + bits.bits(run);
          break;
        }
        // Pass `run` coefficients with no history (correcting the nonzero ones on the way); land on the next.
        for (; k <= end; k += 1) {
          if (nonzero[b * 2 + (k >> 5)]! & (1 << (k & 31))) this.correct(c, slot, k);
          else if (run-- === 0) break;
        }
        if (value !== 0) {
          if (k > end) corrupt("refinement coefficient beyond the spectral band");
          nonzero[b * 2 + (k >> 5)]! |= 1 << (k & 31);
          if (slot >= 0) c.coefficients![slot * 64 + k] = value;
        }
      }
    }
    if (this.eobrun > 0) {
      for (; k <= end; k += 1) if (nonzero[b * 2 + (k >> 5)]! & (1 << (k & 31))) this.correct(c, slot, k);
      this.eobrun -= 1;
    }
  }

  /** A correction bit for an already-nonzero coefficient: one more bit of magnitude (read, kept only for a stored block). */
  private correct(c: Component, slot: number, k: number): void {
    if (this.bits.bit() === 0 || slot < 0) return;
    const at = slot * 64 + k;
    const value = c.coefficients![at]!;
    if ((value & this.plus) === 0) c.coefficients![at] = value + (value >= 0 ? this.plus : this.minus);
  }
}

/** Separable 8×8 inverse DCT table: COS[x * 8 + u] = C(u)/2 · cos((2x + 1)uπ/16). */
const COS = Float64Array.from({ length: 64 }, (_, i) => {
  const x = i >> 3;
  const u = i & 7;
  return ((u === 0 ? Math.SQRT1_2 : 1) / 2) * Math.cos(((2 * x + 1) * u * Math.PI) / 16);
});

/** Dequantizes and inverse transforms one block (zigzag coefficients at `at`) into 8×8 level-shifted samples. */
function inverseDct(coefficients: Int16Array, at: number, quant: Uint16Array, f: Float64Array, rows: Float64Array, out: Uint8Array): void {
  for (let k = 0; k < 64; k += 1) f[ZIGZAG[k]!] = coefficients[at + k]! * quant[k]!;
  for (let v = 0; v < 8; v += 1) {
    for (let x = 0; x < 8; x += 1) {
      let sum = 0;
      for (let u = 0; u < 8; u += 1) sum += COS[x * 8 + u]! * f[v * 8 + u]!;
      rows[v * 8 + x] = sum;
    }
  }
  for (let y = 0; y < 8; y += 1) {
    for (let x = 0; x < 8; x += 1) {
      let sum = 0;
      for (let v = 0; v < 8; v += 1) sum += COS[y * 8 + v]! * rows[v * 8 + x]!;
      out[y * 8 + x] = Math.max(0, Math.min(255, Math.round(sum + 128)));
    }
  }
}

/** What a frame costs this decoder: DC and nonzero history of every block, slot map, tile coefficients. */
function footprintOf(frame: Frame, tileBlocks: number): number {
  const blocks = frame.components.reduce((sum, c) => sum + c.stride * c.rows, 0);
  const luma = frame.components[0]!;
  return blocks * BYTES_PER_BLOCK + luma.stride * luma.rows * BYTES_PER_LUMA_BLOCK + tileBlocks * BYTES_PER_STORED_BLOCK;
}

/** The 1/8-scale frame from the DC coefficients (each one its block's mean), gray or JFIF YCbCr → RGB. */
function dcImage(frame: Frame, color: boolean): { width: number; height: number; data: Uint8Array } {
  const width = Math.ceil(frame.width / 8);
  const height = Math.ceil(frame.height / 8);
  const channels = color ? 3 : 1;
  const data = new Uint8Array(width * height * channels);
  const planes = frame.components.slice(0, channels).map((c) => {
    const q = c.quant?.[0] ?? 0;
    const cols = Int32Array.from({ length: width }, (_, x) => Math.floor((x * c.h) / frame.maxH));
    return { c, q, cols };
  });
  const sample = (p: (typeof planes)[number], row: number, x: number) => {
    const dc = (p.c.dc[row + p.cols[x]!]! * p.q + 4) >> 3;
    return dc + 128;
  };
  for (let y = 0; y < height; y += 1) {
    const rows = planes.map((p) => Math.floor((y * p.c.v) / frame.maxV) * p.c.stride);
    for (let x = 0, o = y * width * channels; x < width; x += 1, o += channels) {
      const luma = sample(planes[0]!, rows[0]!, x);
      if (!color) {
        data[o] = Math.max(0, Math.min(255, luma));
        continue;
      }
      const cb = Math.max(0, Math.min(255, sample(planes[1]!, rows[1]!, x))) - 128;
      const cr = Math.max(0, Math.min(255, sample(planes[2]!, rows[2]!, x))) - 128;
      const yy = Math.max(0, Math.min(255, luma));
      data[o] = Math.max(0, Math.min(255, Math.round(yy + 1.402 * cr)));
      data[o + 1] = Math.max(0, Math.min(255, Math.round(yy - 0.344136 * cb - 0.714136 * cr)));
      data[o + 2] = Math.max(0, Math.min(255, Math.round(yy + 1.772 * cb)));
    }
  }
  return { width, height, data };
}

/**
 * Decodes a progressive JPEG into the overview and thumbnail (1/8 scale, from the DC coefficients)
 * and the requested native-resolution luma tiles. Throws DecodeFailure: `undecodable_image` for
 * corrupt or truncated data, `image_too_large` when even this decoder's footprint plus the input
 * exceeds PROGRESSIVE_BUDGET, or for colour spaces it does not convert (RGB, CMYK).
 */
export function decodeProgressiveJpeg(bytes: Uint8Array, request: DecodeRequest): DecodedImage {
  try {
    return decode(bytes, request);
  } catch (err) {
    if (err instanceof Corrupt) throw new DecodeFailure("undecodable_image", `progressive JPEG: ${err.message}`);
    if (err instanceof RangeError) throw new DecodeFailure("image_too_large", `progressive JPEG: ${err.message}`);
    throw err;
  }
}

function decode(bytes: Uint8Array, request: DecodeRequest): DecodedImage {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) corrupt("no start of image");
  const quantTables: Array<Uint16Array | undefined> = [];
  const dcTables: Array<Huffman | undefined> = [];
  const acTables: Array<Huffman | undefined> = [];
  let frame: Frame | null = null;
  let tiles: TileCollector | null = null;
  let restartInterval = 0;
  let scans = 0;
  let adobeTransform: number | null = null;
  let pos = 2;
  for (;;) {
    if (pos + 2 > bytes.length) corrupt("data ends before the end of image");
    if (bytes[pos] !== 0xff) corrupt("bytes between segments");
    const marker = bytes[pos + 1]!;
    if (marker === 0xff) {
      pos += 1;
      continue;
    }
    pos += 2;
    if (marker === 0xd9) break;
    if (marker === 0x01) continue;
    if ((marker >= 0xd0 && marker <= 0xd8) || pos + 2 > bytes.length) corrupt(`unexpected marker ${marker.toString(16)}`);
    const length = (bytes[pos]! << 8) | bytes[pos + 1]!;
    if (length < 2 || pos + length > bytes.length) corrupt("segment overruns the data");
    const segment = bytes.subarray(pos + 2, pos + length);
    pos += length;
    switch (marker) {
      case 0xdb: // DQT
        for (let i = 0; i < segment.length; ) {
          const wide = segment[i]! >> 4;
          const id = segment[i]! & 3;
          const size = wide ? 128 : 64;
          if (i + 1 + size > segment.length) corrupt("short quantization table");
          const table = new Uint16Array(64);
          for (let k = 0; k < 64; k += 1) table[k] = wide ? (segment[i + 1 + 2 * k]! << 8) | segment[i + 2 + 2 * k]! : segment[i + 1 + k]!;
          quantTables[id] = table;
          i += 1 + size;
        }
        break;
      case 0xc4: // DHT
        for (let i = 0; i < segment.length; ) {
          if (i + 17 > segment.length) corrupt("short Huffman table");
          const counts = segment.subarray(i + 1, i + 17);
          const total = counts.reduce((sum, n) => sum + n, 0);
          if (i + 17 + total > segment.length) corrupt("short Huffman table");
          const table = buildHuffman(counts, segment.slice(i + 17, i + 17 + total));
          (segment[i]! >> 4 ? acTables : dcTables)[segment[i]! & 3] = table;
          i += 17 + total;
        }
        break;
      case 0xdd: // DRI
        restartInterval = ((segment[0] ?? 0) << 8) | (segment[1] ?? 0);
        break;
      case 0xee: // APP14 "Adobe": its transform flag says whether three components are YCbCr
        if (segment.length >= 12 && String.fromCharCode(...segment.subarray(0, 5)) === "Adobe") adobeTransform = segment[11]!;
        break;
      case 0xc2: {
        if (frame) corrupt("second frame header");
        frame = parseFrame(segment);
        const count = frame.components.length;
        const ids = frame.components.map((c) => c.id).join(",");
        const ycc = count === 1 || (count === 3 && adobeTransform !== 0 && !(adobeTransform === null && ids === "82,71,66"));
        if (!ycc) throw new DecodeFailure("image_too_large", `progressive JPEG with ${count} components (${adobeTransform === null ? "no" : "Adobe"} transform) is decoded only within libjpeg's progressive budget`);
        const luma = frame.components[0]!;
        if (luma.h !== frame.maxH || luma.v !== frame.maxV) throw new DecodeFailure("image_too_large", "progressive JPEG whose luma is subsampled is decoded only within libjpeg's progressive budget");
        tiles = new TileCollector(frame.width, frame.height, request.tiles?.(frame.width, frame.height) ?? []);
        const regions = tiles.regions.filter((r) => r.width > 0 && r.height > 0);
        const tileBlocks = tileBlockCount(regions);
        const footprint = footprintOf(frame, tileBlocks);
        if (footprint + bytes.length > PROGRESSIVE_BUDGET) {
          throw new DecodeFailure("image_too_large", `progressive JPEG of ${frame.width}x${frame.height} needs ${Math.round(footprint / 2 ** 20)} MB beside its ${Math.round(bytes.length / 2 ** 20)} MB of data`);
        }
        for (const c of frame.components) {
          c.dc = new Int16Array(c.stride * c.rows);
          c.nonzero = new Uint32Array(c.stride * c.rows * 2);
        }
        luma.slot = new Int32Array(luma.stride * luma.rows).fill(-1);
        assignSlots(luma, regions);
        luma.coefficients = new Int16Array(tileBlocks * 64);
        break;
      }
      case 0xda: {
        if (!frame) corrupt("scan before the frame header");
        if ((scans += 1) > MAX_SCANS) corrupt(`more than ${MAX_SCANS} scans`);
        const count = segment[0] ?? 0;
        if (count < 1 || count > 4 || segment.length < 4 + 2 * count) corrupt("short scan header");
        const components: Component[] = [];
        for (let i = 0; i < count; i += 1) {
          const c = frame!.components.find((fc) => fc.id === segment[1 + 2 * i]) ?? corrupt("scan names an unknown component");
          c.quant ??= quantTables[c.quantId] ?? corrupt("missing quantization table");
          c.dcTable = dcTables[segment[2 + 2 * i]! >> 4] ?? null;
          c.acTable = acTables[segment[2 + 2 * i]! & 15] ?? null;
          components.push(c);
        }
        const start = segment[1 + 2 * count]!;
        const end = segment[2 + 2 * count]!;
        const high = segment[3 + 2 * count]! >> 4;
        const low = segment[3 + 2 * count]! & 15;
        const valid = start === 0 ? end === 0 && components.every((c) => high > 0 || c.dcTable) : start <= end && end <= 63 && count === 1 && components[0]!.acTable;
        if (!valid || low > 13) corrupt("invalid scan parameters");
        pos = new ScanDecoder(bytes, pos, { components, start, end, high, low }).run(frame!, restartInterval, bytes);
        break;
      }
      default:
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
          throw new DecodeFailure("image_too_large", `frame type ${marker.toString(16)} is not a Huffman-coded progressive JPEG`);
        }
    }
  }
  if (!frame || scans === 0) corrupt("no scan");
  const quant = frame.components[0]!.quant ?? corrupt("no scan of the luma component");
  const color = Boolean(request.thumbnailMaxSide) && frame.components.length === 3;
  const small = dcImage(frame, color);
  const { overview, thumbnail } = overviewAndThumbnail({ x: 0, y: 0, width: small.width, height: small.height, channels: color ? 3 : 1, data: small.data, stride: small.width * (color ? 3 : 1) }, OVERVIEW_MAX_SIDE, request.thumbnailMaxSide);

  const luma = frame.components[0]!;
  const pixels = new Uint8Array(64);
  const f = new Float64Array(64);
  const rows = new Float64Array(64);
  const slot = luma.slot!;
  for (let by = 0; by < luma.rows; by += 1) {
    for (let bx = 0; bx < luma.stride; bx += 1) {
      const s = slot[by * luma.stride + bx]!;
      if (s < 0) continue;
      luma.coefficients![s * 64] = luma.dc[by * luma.stride + bx]!;
      inverseDct(luma.coefficients!, s * 64, quant, f, rows, pixels);
      tiles!.add({ x: bx * 8, y: by * 8, width: 8, height: 8, channels: 1, data: pixels, stride: 8 });
    }
  }
  return { width: frame.width, height: frame.height, overview, tiles: tiles!.result(), thumbnail };
}
