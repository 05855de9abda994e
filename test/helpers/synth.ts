import jpeg from "jpeg-js";
import { convertIndexedToRgb, decode as decodePng, encode as encodePng } from "fast-png";

/*
 * Images the tests build themselves: a natural-looking scene, its recapture through a screen's pixel
 * grid, stripes, depth maps, and the metadata blocks (EXIF, XMP) generators and cameras write.
 */

export interface Rgb {
  width: number;
  height: number;
  /** RGB, 3 bytes per pixel. */
  data: Uint8Array;
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Smooth gradients, soft blobs and sensor-like noise: no periodic structure. */
export function naturalScene(width: number, height: number, seed = 1): Rgb {
  const r = rng(seed);
  const blobs = Array.from({ length: 14 }, () => ({
    x: r() * width,
    y: r() * height,
    rad: (0.05 + r() * 0.25) * Math.min(width, height),
    c: [r() * 255, r() * 255, r() * 255],
  }));
  const base = [60 + r() * 100, 60 + r() * 100, 60 + r() * 100];
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const px = [base[0]! + (x / width) * 40, base[1]! + (y / height) * 40, base[2]! + ((x + y) / (width + height)) * 30];
      for (const b of blobs) {
        const d = Math.hypot(x - b.x, y - b.y) / b.rad;
        const w = Math.exp(-d * d);
        for (let k = 0; k < 3; k += 1) px[k] = px[k]! * (1 - w * 0.7) + b.c[k]! * w * 0.7;
      }
      const noise = (r() - 0.5) * 10;
      for (let k = 0; k < 3; k += 1) data[(y * width + x) * 3 + k] = Math.max(0, Math.min(255, px[k]! + noise));
    }
  }
  return { width, height, data };
}

/**
 * The scene as a camera sees it on a screen: multiplied by an RGB sub-pixel lattice (each lit
 * sub-pixel passes mainly its own primary) with dark gaps between sub-pixels and a black matrix
 * between rows (`pitch` px per screen pixel, rotated by `angleDeg`), then lightly blurred by the
 * optics.
 */
export function recapture(scene: Rgb, pitch: number, angleDeg: number, seed = 2): Rgb {
  const { width, height } = scene;
  const r = rng(seed);
  const cos = Math.cos((angleDeg * Math.PI) / 180);
  const sin = Math.sin((angleDeg * Math.PI) / 180);
  const lit = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      // Each sensor pixel integrates the lattice over its area (4×4 samples).
      const mask = [0, 0, 0];
      for (let sy = 0; sy < 4; sy += 1) {
        for (let sx = 0; sx < 4; sx += 1) {
          const px = x + (sx + 0.5) / 4;
          const py = y + (sy + 0.5) / 4;
          const u = px * cos + py * sin;
          const v = -px * sin + py * cos;
          const fu = (((u % pitch) + pitch) % pitch) / pitch;
          const fv = (((v % pitch) + pitch) % pitch) / pitch;
          const gap = fv > 0.85 || (fu * 3) % 1 > 0.8;
          const sub = Math.min(2, Math.floor(fu * 3));
          for (let k = 0; k < 3; k += 1) mask[k] = mask[k]! + (gap ? 0.05 : k === sub ? 1 : 0.15) / 16;
        }
      }
      for (let k = 0; k < 3; k += 1) lit[(y * width + x) * 3 + k] = scene.data[(y * width + x) * 3 + k]! * mask[k]! * 2.8;
    }
  }
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      for (let k = 0; k < 3; k += 1) {
        let sum = 0;
        let w = 0;
        for (let dy = -1; dy <= 1; dy += 1) {
          for (let dx = -1; dx <= 1; dx += 1) {
            const yy = Math.min(height - 1, Math.max(0, y + dy));
            const xx = Math.min(width - 1, Math.max(0, x + dx));
            const weight = dx === 0 && dy === 0 ? 4 : 1;
            sum += lit[(yy * width + xx) * 3 + k]! * weight;
            w += weight;
          }
        }
        data[(y * width + x) * 3 + k] = Math.max(0, Math.min(255, sum / w + (r() - 0.5) * 6));
      }
    }
  }
  return { width, height, data };
}

/** Vertical stripes (a fence, corduroy): periodic in one direction only. */
export function stripes(scene: Rgb, period: number): Rgb {
  const data = new Uint8Array(scene.data.length);
  for (let y = 0; y < scene.height; y += 1) {
    for (let x = 0; x < scene.width; x += 1) {
      const m = x % period < period / 2 ? 1 : 0.55;
      for (let k = 0; k < 3; k += 1) data[(y * scene.width + x) * 3 + k] = scene.data[(y * scene.width + x) * 3 + k]! * m;
    }
  }
  return { ...scene, data };
}

export function resize(image: Rgb, width: number, height: number): Rgb {
  const data = new Uint8Array(width * height * 3);
  const sx = image.width / width;
  const sy = image.height / height;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      for (let k = 0; k < 3; k += 1) {
        let sum = 0;
        let n = 0;
        for (let yy = Math.floor(y * sy); yy < Math.max(Math.floor(y * sy) + 1, Math.floor((y + 1) * sy)); yy += 1) {
          for (let xx = Math.floor(x * sx); xx < Math.max(Math.floor(x * sx) + 1, Math.floor((x + 1) * sx)); xx += 1) {
            sum += image.data[(Math.min(image.height - 1, yy) * image.width + Math.min(image.width - 1, xx)) * 3 + k]!;
            n += 1;
          }
        }
        data[(y * width + x) * 3 + k] = sum / n;
      }
    }
  }
  return { width, height, data };
}

export function crop(image: Rgb, x0: number, y0: number, width: number, height: number): Rgb {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) data.set(image.data.subarray(((y + y0) * image.width + x0) * 3, ((y + y0) * image.width + x0 + width) * 3), y * width * 3);
  return { width, height, data };
}

export function mirror(image: Rgb): Rgb {
  const data = new Uint8Array(image.data.length);
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x < image.width; x += 1) {
      for (let k = 0; k < 3; k += 1) data[(y * image.width + x) * 3 + k] = image.data[(y * image.width + (image.width - 1 - x)) * 3 + k]!;
    }
  }
  return { ...image, data };
}

function toRgba(image: Rgb): Uint8Array {
  const rgba = new Uint8Array(image.width * image.height * 4);
  for (let i = 0, j = 0; i < image.data.length; i += 3, j += 4) {
    rgba[j] = image.data[i]!;
    rgba[j + 1] = image.data[i + 1]!;
    rgba[j + 2] = image.data[i + 2]!;
    rgba[j + 3] = 255;
  }
  return rgba;
}

/** Baseline JPEG (jpeg-js), optionally with an EXIF block (TIFF bytes from `exifTiff`). */
export function encodeJpeg(image: Rgb, quality = 90, exif?: Uint8Array): Uint8Array {
  const exifBuffer = exif ? concat(new TextEncoder().encode("Exif\0\0"), exif) : undefined;
  return new Uint8Array(jpeg.encode({ width: image.width, height: image.height, data: toRgba(image), ...(exifBuffer ? { exifBuffer } : {}) }, quality).data);
}

export function encodePngRgb(image: Rgb, text?: Record<string, string>): Uint8Array {
  return encodePng({ width: image.width, height: image.height, data: image.data, channels: 3, depth: 8, ...(text ? { text } : {}) });
}

/** A 16-bit grayscale PNG depth map (millimetres). */
export function encodeDepthPng(width: number, height: number, depthAt: (x: number, y: number) => number): Uint8Array {
  const data = new Uint16Array(width * height);
  for (let y = 0; y < height; y += 1) for (let x = 0; x < width; x += 1) data[y * width + x] = Math.max(0, Math.min(65535, Math.round(depthAt(x, y))));
  return encodePng({ width, height, data, channels: 1, depth: 16 });
}

/**
 * A HEIF file's metadata as libheif 1.15 writes it (ISO/IEC 23008-12): `ftyp`, then `meta` with an
 * `Exif` item whose `iloc` entry (version 1) places it at `base_offset` with an extent offset of 0,
 * then `mdat` holding the item: a 4-byte offset to the TIFF header (0) and the TIFF block. No coded
 * image: enough for a metadata reader, not for a decoder.
 */
export function heifWithExif(tiff: Uint8Array): Uint8Array {
  const ascii = (t: string) => new TextEncoder().encode(t);
  const u16 = (n: number) => new Uint8Array([n >> 8, n & 0xff]);
  const u32 = (n: number) => new Uint8Array([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
  const box = (type: string, ...body: Uint8Array[]) => concat(u32(8 + body.reduce((n, b) => n + b.length, 0)), ascii(type), ...body);
  const full = (type: string, version: number, ...body: Uint8Array[]) => box(type, u32(version << 24), ...body);
  const item = concat(u32(0), tiff);
  const ftyp = box("ftyp", ascii("heic"), u32(0), ascii("mif1heic"));
  const meta = (base: number) =>
    full(
      "meta",
      0,
      full("hdlr", 0, u32(0), ascii("pict"), new Uint8Array(13)),
      full("iinf", 0, u16(1), full("infe", 2, u16(1), u16(0), ascii("Exif"), new Uint8Array(1))),
      // offset_size 4, length_size 4 | base_offset_size 4, index_size 0; one item, one extent.
      full("iloc", 1, new Uint8Array([0x44, 0x40]), u16(1), u16(1), u16(0), u16(0), u32(base), u16(1), u32(0), u32(item.length)),
    );
  const base = ftyp.length + meta(0).length + 8;
  return concat(ftyp, meta(base), box("mdat", item));
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Inserts an APPn segment right after SOI (e.g. an XMP APP1). */
export function insertSegment(jpegBytes: Uint8Array, marker: number, payload: Uint8Array): Uint8Array {
  const length = payload.length + 2;
  const header = new Uint8Array([0xff, marker, length >> 8, length & 0xff]);
  return concat(jpegBytes.subarray(0, 2), header, payload, jpegBytes.subarray(2));
}

export function xmpSegment(xml: string): Uint8Array {
  return concat(new TextEncoder().encode("http://ns.adobe.com/xap/1.0/\0"), new TextEncoder().encode(xml));
}

export function xmpWithSourceType(sourceType: string): string {
  return `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" Iptc4xmpExt:DigitalSourceType="${sourceType}"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
}

export interface ExifFields {
  make?: string;
  model?: string;
  software?: string;
  /** "YYYY:MM:DD HH:MM:SS" */
  dateTimeOriginal?: string;
  /** Written as UNICODE (UTF-16LE), the way A1111 writes its parameters. */
  userComment?: string;
  /** UserComment as ASCII in IFD0, with no character-code header: where ComfyUI's "SaveImage Plus" writes its graph. */
  ifd0UserComment?: string;
  /** `status`: GPSStatus (tag 9), "A" (measurement in progress) or "V" (void: no fix). */
  gps?: { lat: number; lng: number; accuracy_m?: number; status?: "A" | "V" };
}

/** A little-endian TIFF whose IFD0 holds only Orientation. */
export function orientationTiff(value: number): Uint8Array {
  const out = new Uint8Array(8 + 2 + 12 + 4);
  const view = new DataView(out.buffer);
  out.set([0x49, 0x49, 0x2a, 0x00]);
  view.setUint32(4, 8, true);
  view.setUint16(8, 1, true);
  view.setUint16(10, 0x0112, true);
  view.setUint16(12, 3, true);
  view.setUint32(14, 1, true);
  view.setUint16(18, value, true);
  return out;
}

/** A little-endian TIFF block with IFD0, the Exif IFD and the GPS IFD, as cameras write it. */
export function exifTiff(fields: ExifFields): Uint8Array {
  type Entry = { tag: number; type: number; count: number; bytes: Uint8Array };
  const ascii = (tag: number, s: string): Entry => {
    const bytes = new TextEncoder().encode(`${s}\0`);
    return { tag, type: 2, count: bytes.length, bytes };
  };
  const rationals = (tag: number, values: number[]): Entry => {
    const bytes = new Uint8Array(values.length * 8);
    const view = new DataView(bytes.buffer);
    values.forEach((v, i) => {
      const den = 1_000_000;
      view.setUint32(i * 8, Math.round(v * den), true);
      view.setUint32(i * 8 + 4, den, true);
    });
    return { tag, type: 5, count: values.length, bytes };
  };
  const long = (tag: number, value: number): Entry => {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, value, true);
    return { tag, type: 4, count: 1, bytes };
  };
  const dms = (deg: number) => {
    const a = Math.abs(deg);
    const d = Math.floor(a);
    const m = Math.floor((a - d) * 60);
    return [d, m, (a - d - m / 60) * 3600];
  };

  const exifEntries: Entry[] = [];
  if (fields.dateTimeOriginal) exifEntries.push(ascii(0x9003, fields.dateTimeOriginal));
  if (fields.userComment) {
    const text = fields.userComment;
    const body = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i += 1) {
      body[i * 2] = text.charCodeAt(i) & 0xff;
      body[i * 2 + 1] = text.charCodeAt(i) >> 8;
    }
    exifEntries.push({ tag: 0x9286, type: 7, count: body.length + 8, bytes: concat(new TextEncoder().encode("UNICODE\0"), body) });
  }
  const gpsEntries: Entry[] = [];
  if (fields.gps) {
    gpsEntries.push(ascii(1, fields.gps.lat >= 0 ? "N" : "S"), rationals(2, dms(fields.gps.lat)), ascii(3, fields.gps.lng >= 0 ? "E" : "W"), rationals(4, dms(fields.gps.lng)));
    if (fields.gps.accuracy_m !== undefined) gpsEntries.push(rationals(0x1f, [fields.gps.accuracy_m]));
    if (fields.gps.status) gpsEntries.push(ascii(9, fields.gps.status));
  }
  const ifd0: Entry[] = [];
  if (fields.make) ifd0.push(ascii(0x010f, fields.make));
  if (fields.model) ifd0.push(ascii(0x0110, fields.model));
  if (fields.software) ifd0.push(ascii(0x0131, fields.software));
  if (fields.ifd0UserComment) ifd0.push(ascii(0x9286, fields.ifd0UserComment));
  // Pointers are patched once offsets are known.
  const exifPtr = long(0x8769, 0);
  const gpsPtr = long(0x8825, 0);
  if (exifEntries.length) ifd0.push(exifPtr);
  if (gpsEntries.length) ifd0.push(gpsPtr);

  const chunks: Uint8Array[] = [];
  let offset = 8;
  const layout = (entries: Entry[]) => {
    entries.sort((a, b) => a.tag - b.tag);
    const start = offset;
    const size = 2 + entries.length * 12 + 4;
    let dataOffset = start + size;
    const dataParts: Uint8Array[] = [];
    const ifd = new Uint8Array(size);
    const view = new DataView(ifd.buffer);
    view.setUint16(0, entries.length, true);
    entries.forEach((e, i) => {
      const p = 2 + i * 12;
      view.setUint16(p, e.tag, true);
      view.setUint16(p + 2, e.type, true);
      view.setUint32(p + 4, e.count, true);
      if (e.bytes.length <= 4) ifd.set(e.bytes, p + 8);
      else {
        view.setUint32(p + 8, dataOffset, true);
        dataParts.push(e.bytes);
        dataOffset += e.bytes.length + (e.bytes.length % 2);
        if (e.bytes.length % 2) dataParts.push(new Uint8Array(1));
      }
    });
    offset = dataOffset;
    return { start, bytes: concat(ifd, ...dataParts) };
  };
  // Lay out IFD0 first with placeholder pointers, then the sub-IFDs, then patch.
  const first = layout(ifd0);
  const exifIfd = exifEntries.length ? layout(exifEntries) : null;
  const gpsIfd = gpsEntries.length ? layout(gpsEntries) : null;
  const patch = (tag: number, value: number) => {
    const view = new DataView(first.bytes.buffer, first.bytes.byteOffset);
    const n = view.getUint16(0, true);
    for (let i = 0; i < n; i += 1) if (view.getUint16(2 + i * 12, true) === tag) view.setUint32(2 + i * 12 + 8, value, true);
  };
  if (exifIfd) patch(0x8769, exifIfd.start);
  if (gpsIfd) patch(0x8825, gpsIfd.start);
  chunks.push(new Uint8Array([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00]), first.bytes);
  if (exifIfd) chunks.push(exifIfd.bytes);
  if (gpsIfd) chunks.push(gpsIfd.bytes);
  return concat(...chunks);
}

/** JPEG (jpeg-js) or PNG (fast-png) to 8-bit RGB; alpha is dropped, 16-bit samples scaled. */
export function decodeRgb(bytes: Uint8Array, mediaType: string): Rgb {
  if (mediaType === "image/jpeg") {
    const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: false, maxResolutionInMP: 40, maxMemoryUsageInMB: 2048 });
    return { width: image.width, height: image.height, data: new Uint8Array(image.data) };
  }
  const png = decodePng(bytes);
  const channels = png.palette ? (png.palette[0]?.length ?? 3) : png.channels;
  const src: ArrayLike<number> = png.palette ? convertIndexedToRgb(png) : png.data;
  const scale = png.depth === 16 ? 1 / 257 : 1;
  const data = new Uint8Array(png.width * png.height * 3);
  for (let i = 0; i < png.width * png.height; i += 1) {
    for (let c = 0; c < 3; c += 1) data[i * 3 + c] = src[i * channels + (channels >= 3 ? c : 0)]! * scale;
  }
  return { width: png.width, height: png.height, data };
}
