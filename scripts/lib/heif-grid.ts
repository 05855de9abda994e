/**
 * Turns a multi-image HEIF (heif-enc writes one top-level image per input file) whose images are
 * the tiles of a photo, in row-major order, into a grid HEIC: the layout phones write (an iPhone
 * stores 512×512 HEVC tiles under one `grid` item). Debian's heif-enc (libheif 1.15) cannot write
 * grids itself. Only what libheif needs is written: ftyp, meta (hdlr, pitm, iinf, iref dimg, iprp,
 * iloc) and one mdat.
 */

interface Box {
  type: string;
  start: number;
  body: number;
  end: number;
}

function* boxes(d: Uint8Array, start: number, end: number): Generator<Box> {
  const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
  let o = start;
  while (o + 8 <= end) {
    let size = v.getUint32(o);
    let body = o + 8;
    if (size === 1) {
      size = Number(v.getBigUint64(o + 8));
      body += 8;
    }
    yield { type: String.fromCharCode(...d.subarray(o + 4, o + 8)), start: o, body, end: o + size };
    o += size;
  }
}

function child(d: Uint8Array, parent: { body: number; end: number }, type: string, skip = 0): Box {
  for (const b of boxes(d, parent.body + skip, parent.end)) if (b.type === type) return b;
  throw new Error(`no ${type} box`);
}

function uint(v: DataView, o: number, size: number): number {
  if (size === 0) return 0;
  if (size === 2) return v.getUint16(o);
  if (size === 4) return v.getUint32(o);
  return Number(v.getBigUint64(o));
}

/** Reads each top-level image's coded data and its properties (raw box bytes, ispe excluded). */
function readImages(d: Uint8Array): Array<{ data: Uint8Array; props: Uint8Array[] }> {
  const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
  const meta = [...boxes(d, 0, d.length)].find((b) => b.type === "meta")!;
  const inner = { body: meta.body + 4, end: meta.end };
  // iinf: item ids in order
  const iinf = child(d, inner, "iinf");
  const iinfVersion = d[iinf.body]!;
  const ids: number[] = [];
  for (const infe of boxes(d, iinf.body + 4 + (iinfVersion === 0 ? 2 : 4), iinf.end)) {
    const version = d[infe.body]!;
    const id = version >= 3 ? v.getUint32(infe.body + 4) : v.getUint16(infe.body + 4);
    const type = String.fromCharCode(...d.subarray(infe.body + (version >= 3 ? 10 : 8), infe.body + (version >= 3 ? 14 : 12)));
    if (type === "hvc1") ids.push(id);
  }
  // iloc: one extent per item
  const iloc = child(d, inner, "iloc");
  const version = d[iloc.body]!;
  let o = iloc.body + 4;
  const offsetSize = d[o]! >> 4;
  const lengthSize = d[o]! & 15;
  const baseSize = d[o + 1]! >> 4;
  const indexSize = version >= 1 ? d[o + 1]! & 15 : 0;
  o += 2;
  const count = version < 2 ? v.getUint16(o) : v.getUint32(o);
  o += version < 2 ? 2 : 4;
  const extents = new Map<number, Uint8Array>();
  for (let i = 0; i < count; i += 1) {
    const id = version < 2 ? v.getUint16(o) : v.getUint32(o);
    o += version < 2 ? 2 : 4;
    if (version >= 1) o += 2; // construction method
    o += 2; // data reference index
    const base = uint(v, o, baseSize);
    o += baseSize;
    const n = v.getUint16(o);
    o += 2;
    const parts: Uint8Array[] = [];
    for (let e = 0; e < n; e += 1) {
      o += indexSize;
      const off = uint(v, o, offsetSize);
      o += offsetSize;
      const len = uint(v, o, lengthSize);
      o += lengthSize;
      parts.push(d.subarray(base + off, base + off + len));
    }
    extents.set(id, concat(parts));
  }
  // iprp: property boxes and their associations
  const iprp = child(d, inner, "iprp");
  const ipco = child(d, iprp, "ipco");
  const props = [...boxes(d, ipco.body, ipco.end)].map((b) => ({ type: b.type, bytes: d.subarray(b.start, b.end) }));
  const ipma = child(d, iprp, "ipma");
  const ipmaVersion = d[ipma.body]!;
  const wide = (d[ipma.body + 3]! & 1) === 1;
  o = ipma.body + 4;
  const entries = v.getUint32(o);
  o += 4;
  const assoc = new Map<number, number[]>();
  for (let i = 0; i < entries; i += 1) {
    const id = ipmaVersion < 1 ? v.getUint16(o) : v.getUint32(o);
    o += ipmaVersion < 1 ? 2 : 4;
    const n = d[o]!;
    o += 1;
    const list: number[] = [];
    for (let k = 0; k < n; k += 1) {
      const index = wide ? v.getUint16(o) & 0x7fff : d[o]! & 0x7f;
      o += wide ? 2 : 1;
      list.push(index);
    }
    assoc.set(id, list);
  }
  return ids.map((id) => ({
    data: extents.get(id)!,
    props: (assoc.get(id) ?? []).map((i) => props[i - 1]!).filter((p) => p.type !== "ispe").map((p) => p.bytes),
  }));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function box(type: string, ...content: Uint8Array[]): Uint8Array {
  const body = concat(content);
  const out = new Uint8Array(8 + body.length);
  new DataView(out.buffer).setUint32(0, out.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(body, 8);
  return out;
}

function bytes(...fields: Array<[number, 1 | 2 | 4] | string>): Uint8Array {
  const parts = fields.map((f) => {
    if (typeof f === "string") return new TextEncoder().encode(f);
    const [value, size] = f;
    const b = new Uint8Array(size);
    const v = new DataView(b.buffer);
    if (size === 1) v.setUint8(0, value);
    else if (size === 2) v.setUint16(0, value);
    else v.setUint32(0, value);
    return b;
  });
  return concat(parts);
}

export function heifGrid(multi: Uint8Array, columns: number, rows: number, tile: { width: number; height: number }, output: { width: number; height: number }): Uint8Array {
  const images = readImages(multi);
  if (images.length !== columns * rows) throw new Error(`expected ${columns * rows} images, found ${images.length}`);
  const gridId = images.length + 1;
  // Properties: deduplicated tile properties, then the tile ispe, then the grid ispe.
  const props: Uint8Array[] = [];
  const indexOf = (p: Uint8Array) => {
    const key = Buffer.from(p).toString("base64");
    let i = props.findIndex((q) => Buffer.from(q).toString("base64") === key);
    if (i < 0) i = props.push(p) - 1;
    return i + 1;
  };
  const tileProps = images.map((img) => img.props.map(indexOf));
  const ispe = (w: number, h: number) => box("ispe", bytes([0, 4], [w, 4], [h, 4]));
  const tileIspe = indexOf(ispe(tile.width, tile.height));
  const gridIspe = indexOf(ispe(output.width, output.height));
  const ipmaEntries: Uint8Array[] = [];
  images.forEach((_, i) => {
    const list = [...tileProps[i]!, tileIspe];
    ipmaEntries.push(bytes([i + 1, 2], [list.length, 1], ...list.map((p) => [0x8000 | p, 2] as [number, 2])));
  });
  ipmaEntries.push(bytes([gridId, 2], [1, 1], [gridIspe, 2]));
  // version 0, flags 1 (15-bit property indices), one entry per item
  const ipmaBox = box("ipma", bytes([0, 1], [0, 2], [1, 1], [gridId, 4]), ...ipmaEntries);
  const iprp = box("iprp", box("ipco", ...props), ipmaBox);
  const hdlr = box("hdlr", bytes([0, 4], [0, 4], "pict", [0, 4], [0, 4], [0, 4], [0, 1]));
  const pitm = box("pitm", bytes([0, 4], [gridId, 2]));
  const infe = (id: number, type: string, hidden: boolean) => box("infe", bytes([2, 1], [hidden ? 1 : 0, 1], [0, 2], [id, 2], [0, 2], type, [0, 1]));
  const iinf = box("iinf", bytes([0, 4], [gridId, 2]), ...images.map((_, i) => infe(i + 1, "hvc1", true)), infe(gridId, "grid", false));
  const iref = box("iref", bytes([0, 4]), box("dimg", bytes([gridId, 2], [images.length, 2], ...images.map((_, i) => [i + 1, 2] as [number, 2]))));
  const gridData = bytes([0, 1], [0, 1], [rows - 1, 1], [columns - 1, 1], [output.width, 2], [output.height, 2]);
  const payloads = [gridData, ...images.map((img) => img.data)];
  const ids = [gridId, ...images.map((_, i) => i + 1)];
  const ilocFor = (offsets: number[]) =>
    box("iloc", bytes([0, 4], [0x44, 1], [0x00, 1], [ids.length, 2]), ...ids.map((id, i) => bytes([id, 2], [0, 2], [1, 2], [offsets[i]!, 4], [payloads[i]!.length, 4])));
  const ftyp = box("ftyp", bytes("heic", [0, 4], "mif1", "heic"));
  const metaFor = (offsets: number[]) => box("meta", bytes([0, 4]), hdlr, pitm, iinf, iref, iprp, ilocFor(offsets));
  const metaLength = metaFor(ids.map(() => 0)).length;
  let cursor = ftyp.length + metaLength + 8;
  const offsets = payloads.map((p) => {
    const at = cursor;
    cursor += p.length;
    return at;
  });
  return concat([ftyp, metaFor(offsets), box("mdat", ...payloads)]);
}
