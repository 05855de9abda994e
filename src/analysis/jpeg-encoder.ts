/*
 * Baseline JPEG (ITU-T T.81, JFIF): 4:2:0 chroma as phones write, the Annex K quantization and
 * Huffman tables, encoded straight from interleaved RGB into one growing byte buffer. What the
 * analysis sends the vision judge and the web search, and stores as the evidence thumbnail.
 *
 * jpeg-js, used before, allocated about 25 MB of short-lived JS objects to encode a 1024×768 image
 * (a 65 535-entry array of pairs rebuilt on every call, an RGBA copy, the output as an array of
 * numbers; 28.7 MB of workerd's resident memory in bench/worker.ts's /encode): with a decoder's
 * released WebAssembly memory not yet collected, that took the analysis of a 25 MB photo with the
 * providers configured over 100 MB. Here the tables are built once and an encode allocates its
 * output and a few 64-entry blocks.
 */

/** The natural (row-major) index of the k-th coefficient in zigzag order. */
const ZIGZAG = Uint8Array.from([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]);

/** Annex K.1, in natural order: luminance and chrominance quantization at quality 50. */
const LUMA_QUANT = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const CHROMA_QUANT = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];

const hex = (s: string) => Uint8Array.from(s.match(/../g)!, (h) => parseInt(h, 16));

/** Annex K.3: code counts by length (1..16) and symbols of the four standard Huffman tables. */
const TABLES = {
  dcLuma: { counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], symbols: Uint8Array.from({ length: 12 }, (_, i) => i) },
  dcChroma: { counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], symbols: Uint8Array.from({ length: 12 }, (_, i) => i) },
  acLuma: {
    counts: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
    symbols: hex(
      "01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa",
    ),
  },
  acChroma: {
    counts: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
    symbols: hex(
      "000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9fa",
    ),
  },
};

interface Huffman {
  code: Uint16Array;
  size: Uint8Array;
}

/** The canonical codes of a table (T.81 Annex C): symbol → code and its length. */
function huffman({ counts, symbols }: { counts: number[]; symbols: Uint8Array }): Huffman {
  const code = new Uint16Array(256);
  const size = new Uint8Array(256);
  let next = 0;
  let k = 0;
  for (let length = 1; length <= 16; length += 1) {
    for (let i = 0; i < counts[length - 1]!; i += 1, k += 1, next += 1) {
      code[symbols[k]!] = next;
      size[symbols[k]!] = length;
    }
    next <<= 1;
  }
  return { code, size };
}

const DC_LUMA = huffman(TABLES.dcLuma);
const DC_CHROMA = huffman(TABLES.dcChroma);
const AC_LUMA = huffman(TABLES.acLuma);
const AC_CHROMA = huffman(TABLES.acChroma);

/** AAN_SCALE[k] = √2 · cos(kπ/16) (1 for k = 0): what the AAN transform leaves on coefficient k. */
const AAN_SCALE = Float64Array.from({ length: 8 }, (_, k) => (k === 0 ? 1 : Math.SQRT2 * Math.cos((k * Math.PI) / 16)));

/**
 * One multiplier per coefficient (natural order) that undoes the AAN transform's scale and divides by
 * the quantizer: the JPEG DCT's coefficient over `quant` is the AAN output times this.
 */
function aanDivisors(quant: Uint8Array): Float64Array {
  return Float64Array.from({ length: 64 }, (_, i) => 1 / (quant[i]! * AAN_SCALE[i >> 3]! * AAN_SCALE[i & 7]! * 8));
}

/**
 * The 8-point forward DCT of Arai, Agui and Nakajima (5 multiplications; IJG's jfdctflt) on the 8
 * values of `d` from `at`, `step` apart, in place and scaled by AAN_SCALE.
 */
function aan8(d: Float64Array, at: number, step: number): void {
  const i0 = at, i1 = at + step, i2 = at + 2 * step, i3 = at + 3 * step, i4 = at + 4 * step, i5 = at + 5 * step, i6 = at + 6 * step, i7 = at + 7 * step;
  const t0 = d[i0]! + d[i7]!, t7 = d[i0]! - d[i7]!;
  const t1 = d[i1]! + d[i6]!, t6 = d[i1]! - d[i6]!;
  const t2 = d[i2]! + d[i5]!, t5 = d[i2]! - d[i5]!;
  const t3 = d[i3]! + d[i4]!, t4 = d[i3]! - d[i4]!;
  // Even part.
  const e10 = t0 + t3, e13 = t0 - t3, e11 = t1 + t2, e12 = t1 - t2;
  d[i0] = e10 + e11;
  d[i4] = e10 - e11;
  const z1 = (e12 + e13) * Math.SQRT1_2;
  d[i2] = e13 + z1;
  d[i6] = e13 - z1;
  // Odd part.
  const o10 = t4 + t5, o11 = t5 + t6, o12 = t6 + t7;
  const z5 = (o10 - o12) * 0.38268343236508984; // cos(6π/16)
  const z2 = 0.5411961001461971 * o10 + z5; // cos(6π/16)·√2
  const z4 = 1.3065629648763766 * o12 + z5; // cos(2π/16)·√2
  const z3 = o11 * Math.SQRT1_2;
  const z11 = t7 + z3, z13 = t7 - z3;
  d[i5] = z13 + z2;
  d[i3] = z13 - z2;
  d[i1] = z11 + z4;
  d[i7] = z11 - z4;
}

/** The IJG scaling of a quality-50 table to `quality` (1..100), in natural order. */
function scaled(table: number[], quality: number): Uint8Array {
  const q = Math.max(1, Math.min(100, Math.round(quality)));
  const factor = q < 50 ? 5000 / q : 200 - 2 * q;
  return Uint8Array.from(table, (v) => Math.max(1, Math.min(255, Math.floor((v * factor + 50) / 100))));
}

/** Output bytes, grown by doubling, and the entropy coder's bit accumulator (0xFF stuffed). */
class Writer {
  buf: Uint8Array;
  length = 0;
  private bits = 0;
  private count = 0;

  constructor(capacity: number) {
    this.buf = new Uint8Array(capacity);
  }

  byte(b: number): void {
    if (this.length === this.buf.length) {
      const grown = new Uint8Array(this.buf.length * 2);
      grown.set(this.buf);
      this.buf = grown;
    }
    this.buf[this.length++] = b;
  }

  bytes(bs: ArrayLike<number>): void {
    for (let i = 0; i < bs.length; i += 1) this.byte(bs[i]!);
  }

  word(w: number): void {
    this.byte(w >> 8);
    this.byte(w & 0xff);
  }

  /** `size` (≤ 16) low bits of `value`, most significant first. */
  put(value: number, size: number): void {
    this.bits = (this.bits << size) | (value & ((1 << size) - 1));
    this.count += size;
    while (this.count >= 8) {
      const b = (this.bits >>> (this.count - 8)) & 0xff;
      this.byte(b);
      if (b === 0xff) this.byte(0);
      this.count -= 8;
    }
    this.bits &= (1 << this.count) - 1;
  }

  /** Pads the last byte with one bits (T.81 F.1.2.3). */
  flush(): void {
    if (this.count > 0) this.put((1 << (8 - this.count)) - 1, 8 - this.count);
  }
}

/** Bits of |v|: the magnitude category of T.81 F.1.2.1. */
function category(v: number): number {
  return 32 - Math.clz32(Math.abs(v));
}

/** Forward DCT, quantization and Huffman coding of one 8×8 block of level-shifted samples; returns its DC. */
function encodeBlock(w: Writer, samples: Float64Array, divisors: Float64Array, previousDc: number, dc: Huffman, ac: Huffman, coefficients: Int16Array): number {
  for (let y = 0; y < 64; y += 8) aan8(samples, y, 1);
  for (let x = 0; x < 8; x += 1) aan8(samples, x, 8);
  for (let i = 0; i < 64; i += 1) {
    // Baseline AC magnitudes have categories 1..10 (T.81 Table F.2).
    coefficients[i] = Math.max(-1023, Math.min(1023, Math.round(samples[i]! * divisors[i]!)));
  }
  const value = coefficients[0]!;
  const diff = value - previousDc;
  const dcCategory = category(diff);
  w.put(dc.code[dcCategory]!, dc.size[dcCategory]!);
  if (dcCategory > 0) w.put(diff < 0 ? diff - 1 : diff, dcCategory);
  let run = 0;
  for (let k = 1; k < 64; k += 1) {
    const c = coefficients[ZIGZAG[k]!]!;
    if (c === 0) {
      run += 1;
      continue;
    }
    for (; run > 15; run -= 16) w.put(ac.code[0xf0]!, ac.size[0xf0]!);
    const cat = category(c);
    const symbol = (run << 4) | cat;
    w.put(ac.code[symbol]!, ac.size[symbol]!);
    w.put(c < 0 ? c - 1 : c, cat);
    run = 0;
  }
  if (run > 0) w.put(ac.code[0]!, ac.size[0]!);
  return value;
}

function huffmanSegment(w: Writer): void {
  const tables = [
    [0x00, TABLES.dcLuma],
    [0x10, TABLES.acLuma],
    [0x01, TABLES.dcChroma],
    [0x11, TABLES.acChroma],
  ] as const;
  w.word(0xffc4);
  w.word(2 + tables.reduce((n, [, t]) => n + 17 + t.symbols.length, 0));
  for (const [id, t] of tables) {
    w.byte(id);
    w.bytes(t.counts);
    w.bytes(t.symbols);
  }
}

/** A baseline 4:2:0 JPEG of `width`×`height` interleaved RGB (3 bytes a pixel, rows top-down). */
export function encodeJpeg(rgb: Uint8Array, width: number, height: number, quality = 85): Uint8Array {
  if (!(width > 0 && height > 0 && width <= 65_535 && height <= 65_535) || rgb.length < width * height * 3) throw new RangeError(`no ${width}x${height} RGB to encode`);
  const lumaQuant = scaled(LUMA_QUANT, quality);
  const chromaQuant = scaled(CHROMA_QUANT, quality);
  const w = new Writer(Math.max(4096, (width * height) >> 2));
  w.bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  w.word(0xffdb);
  w.word(2 + 2 * 65);
  w.byte(0);
  for (let k = 0; k < 64; k += 1) w.byte(lumaQuant[ZIGZAG[k]!]!);
  w.byte(1);
  for (let k = 0; k < 64; k += 1) w.byte(chromaQuant[ZIGZAG[k]!]!);
  w.bytes([0xff, 0xc0, 0, 17, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  huffmanSegment(w);
  w.bytes([0xff, 0xda, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]);

  const lumaDivisors = aanDivisors(lumaQuant);
  const chromaDivisors = aanDivisors(chromaQuant);
  const samples = new Float64Array(64);
  const coefficients = new Int16Array(64);
  const cb = new Float64Array(64);
  const cr = new Float64Array(64);
  let dcY = 0;
  let dcCb = 0;
  let dcCr = 0;
  const at = (x: number, y: number) => (Math.min(height - 1, y) * width + Math.min(width - 1, x)) * 3;
  for (let my = 0; my < height; my += 16) {
    for (let mx = 0; mx < width; mx += 16) {
      // Four luma blocks, then one Cb and one Cr block of the 2×2-averaged chroma (edges replicated).
      for (let b = 0; b < 4; b += 1) {
        const x0 = mx + (b & 1) * 8;
        const y0 = my + (b >> 1) * 8;
        for (let y = 0; y < 8; y += 1) {
          for (let x = 0; x < 8; x += 1) {
            const p = at(x0 + x, y0 + y);
            samples[y * 8 + x] = 0.299 * rgb[p]! + 0.587 * rgb[p + 1]! + 0.114 * rgb[p + 2]! - 128;
          }
        }
        dcY = encodeBlock(w, samples, lumaDivisors, dcY, DC_LUMA, AC_LUMA, coefficients);
      }
      for (let y = 0; y < 8; y += 1) {
        for (let x = 0; x < 8; x += 1) {
          let r = 0;
          let g = 0;
          let bl = 0;
          for (let d = 0; d < 4; d += 1) {
            const p = at(mx + 2 * x + (d & 1), my + 2 * y + (d >> 1));
            r += rgb[p]!;
            g += rgb[p + 1]!;
            bl += rgb[p + 2]!;
          }
          cb[y * 8 + x] = (-0.168736 * r - 0.331264 * g + 0.5 * bl) / 4;
          cr[y * 8 + x] = (0.5 * r - 0.418688 * g - 0.081312 * bl) / 4;
        }
      }
      dcCb = encodeBlock(w, cb, chromaDivisors, dcCb, DC_CHROMA, AC_CHROMA, coefficients);
      dcCr = encodeBlock(w, cr, chromaDivisors, dcCr, DC_CHROMA, AC_CHROMA, coefficients);
    }
  }
  w.flush();
  w.word(0xffd9);
  return w.buf.slice(0, w.length);
}
