/*
 * Greyscale frames stacked top to bottom into one 8-bit greyscale PNG (the burst's wire format:
 * src/schemas/capture-integrity.ts). Lossless, so the service measures exactly what the page saw, and
 * a standard format any reviewer's tool opens. Written here rather than with a PNG library: the
 * browser's own CompressionStream does the deflate, which keeps the page inside its 60 KB budget;
 * each row is Paeth-filtered first (a camera frame's neighbours predict it well, and deflate then
 * finds about half the bytes). Where CompressionStream is missing the data goes in stored blocks.
 */

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

let crcTable: Uint32Array | null = null;

function crc32(parts: Uint8Array[]): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n += 1) {
      let c = n;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const part of parts) for (let i = 0; i < part.length; i += 1) crc = crcTable[(crc ^ part[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function u32(value: number): Uint8Array {
  return new Uint8Array([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
}

function chunk(type: string, body: Uint8Array): Uint8Array[] {
  const name = new Uint8Array([...type].map((c) => c.charCodeAt(0)));
  return [u32(body.length), name, body, u32(crc32([name, body]))];
}

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/** The scanlines, each led by filter type 4 (Paeth). */
function filtered(pixels: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(height * (width + 1));
  for (let y = 0; y < height; y += 1) {
    const o = y * (width + 1);
    const row = y * width;
    out[o] = 4;
    for (let x = 0; x < width; x += 1) {
      const a = x > 0 ? pixels[row + x - 1]! : 0;
      const b = y > 0 ? pixels[row - width + x]! : 0;
      const c = x > 0 && y > 0 ? pixels[row - width + x - 1]! : 0;
      out[o + 1 + x] = (pixels[row + x]! - paeth(a, b, c)) & 0xff;
    }
  }
  return out;
}

/** A zlib stream of `data` in stored (uncompressed) blocks, for browsers without CompressionStream. */
function storedZlib(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / 65_535));
  const out = new Uint8Array(2 + data.length + 5 * blocks + 4);
  out[0] = 0x78;
  out[1] = 0x01;
  let o = 2;
  for (let b = 0; b < blocks; b += 1) {
    const part = data.subarray(b * 65_535, (b + 1) * 65_535);
    out[o] = b === blocks - 1 ? 1 : 0;
    out[o + 1] = part.length & 0xff;
    out[o + 2] = part.length >>> 8;
    out[o + 3] = ~part.length & 0xff;
    out[o + 4] = (~part.length >>> 8) & 0xff;
    out.set(part, o + 5);
    o += 5 + part.length;
  }
  let s1 = 1;
  let s2 = 0;
  for (let i = 0; i < data.length; i += 1) {
    s1 = (s1 + data[i]!) % 65_521;
    s2 = (s2 + s1) % 65_521;
  }
  out.set(u32(((s2 << 16) | s1) >>> 0), o);
  return out;
}

async function zlib(data: Uint8Array): Promise<Uint8Array> {
  if (typeof CompressionStream !== "function") return storedZlib(data);
  const stream = new Response(data as Uint8Array<ArrayBuffer>).body!.pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** `frames` (each `width` × `height` bytes, one per pixel) as one greyscale PNG, the first on top. */
export async function greyStripPng(frames: readonly Uint8Array[], width: number, height: number): Promise<Uint8Array> {
  const pixels = new Uint8Array(width * height * frames.length);
  frames.forEach((f, i) => pixels.set(f.subarray(0, width * height), i * width * height));
  const totalHeight = height * frames.length;
  const header = new Uint8Array(13);
  header.set(u32(width), 0);
  header.set(u32(totalHeight), 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const parts = [new Uint8Array(SIGNATURE), ...chunk("IHDR", header), ...chunk("IDAT", await zlib(filtered(pixels, width, totalHeight))), ...chunk("IEND", new Uint8Array())];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}
