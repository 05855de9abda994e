import { MAX_GRID_TILES } from "../limits";
import { DecodeFailure } from "../types";
import type { FrameHeader } from "./frame-header";

/*
 * HEIF's frame size, from the boxes of its `meta` (ISO/IEC 23008-12, ISO/IEC 14496-12): the primary
 * item (`pitm`), its type (`iinf`), its `ispe` property (`iprp`: `ipco` + `ipma`) and, for a grid,
 * the grid descriptor (the item's data, located by `iloc`) and the tiles it derives from (`iref`
 * `dimg`), each with its own `ispe`. Every count the file states is read within its box, so a
 * lying count ends at the box's last byte, and no array is sized by the file.
 */

function undecodable(message: string): never {
  throw new DecodeFailure("undecodable_image", `HEIF ${message}`);
}

/** Reads big-endian fields inside [at, end), failing past the end. */
class Reader {
  constructor(
    private readonly view: DataView,
    public at: number,
    readonly end: number,
  ) {}

  private take(n: number): number {
    if (this.at + n > this.end) undecodable("box is cut short");
    const at = this.at;
    this.at += n;
    return at;
  }

  u8(): number {
    return this.view.getUint8(this.take(1));
  }

  u16(): number {
    return this.view.getUint16(this.take(2));
  }

  u32(): number {
    return this.view.getUint32(this.take(4));
  }

  /** An unsigned field of 0, 1, 2, 4 or 8 bytes (iloc's sizes). */
  uint(bytes: number): number {
    if (bytes === 0) return 0;
    if (bytes === 1) return this.u8();
    if (bytes === 2) return this.u16();
    if (bytes === 4) return this.u32();
    if (bytes === 8) return this.u32() * 2 ** 32 + this.u32();
    return undecodable(`field of ${bytes} bytes`);
  }

  fourcc(): string {
    const at = this.take(4);
    return String.fromCharCode(this.view.getUint8(at), this.view.getUint8(at + 1), this.view.getUint8(at + 2), this.view.getUint8(at + 3));
  }
}

interface Box {
  type: string;
  /** Where its contents start (after the header) and end. */
  body: number;
  end: number;
}

/** The boxes in [start, end) up to one of type `until`: each at least 8 bytes, none overrunning its parent. */
function boxes(view: DataView, start: number, end: number, until?: string): Box[] {
  const out: Box[] = [];
  const r = new Reader(view, start, end);
  while (r.at + 8 <= end && (until === undefined || out.at(-1)?.type !== until)) {
    const at = r.at;
    let size = r.u32();
    const type = r.fourcc();
    if (size === 1) size = r.uint(8);
    else if (size === 0) size = end - at;
    if (size < r.at - at || at + size > end) undecodable(`box "${type}" overruns its parent`);
    out.push({ type, body: r.at, end: at + size });
    r.at = at + size;
  }
  return out;
}

interface Location {
  /** 0: offsets into the file; 1: into the `idat` box. */
  method: number;
  extents: Array<{ offset: number; length: number }>;
}

interface Meta {
  primary: number;
  types: Map<number, string>;
  properties: Box[];
  associations: Map<number, number[]>;
  derived: Map<number, number[]>;
  locations: Map<number, Location>;
  idat: Box | null;
}

/** A full box's version (its flags are skipped). */
function fullBox(r: Reader): number {
  const version = r.u8();
  r.uint(2);
  r.u8();
  return version;
}

function readMeta(view: DataView, meta: Box): Meta {
  const out: Meta = { primary: -1, types: new Map(), properties: [], associations: new Map(), derived: new Map(), locations: new Map(), idat: null };
  for (const box of boxes(view, meta.body + 4, meta.end)) {
    const r = new Reader(view, box.body, box.end);
    switch (box.type) {
      case "pitm":
        out.primary = fullBox(r) === 0 ? r.u16() : r.u32();
        break;
      case "iinf": {
        const entryCount = fullBox(r) === 0 ? 2 : 4; // its bytes: the infe boxes that follow are what counts
        for (const infe of boxes(view, r.at + entryCount, box.end)) {
          if (infe.type !== "infe") continue;
          const e = new Reader(view, infe.body, infe.end);
          const version = fullBox(e);
          if (version < 2) continue; // versions 0 and 1 carry no item type
          const id = version === 2 ? e.u16() : e.u32();
          e.u16(); // protection index
          out.types.set(id, e.fourcc());
        }
        break;
      }
      case "iref": {
        const wide = fullBox(r) !== 0;
        for (const ref of boxes(view, r.at, box.end)) {
          if (ref.type !== "dimg") continue;
          const e = new Reader(view, ref.body, ref.end);
          const from = wide ? e.u32() : e.u16();
          const count = e.u16();
          const to: number[] = [];
          for (let i = 0; i < count; i += 1) to.push(wide ? e.u32() : e.u16());
          out.derived.set(from, to);
        }
        break;
      }
      case "iprp":
        for (const child of boxes(view, box.body, box.end)) {
          if (child.type === "ipco") out.properties = boxes(view, child.body, child.end);
          else if (child.type === "ipma") readAssociations(new Reader(view, child.body, child.end), out.associations);
        }
        break;
      case "iloc":
        readLocations(r, out.locations);
        break;
      case "idat":
        out.idat = box;
        break;
    }
  }
  return out;
}

function readAssociations(r: Reader, into: Map<number, number[]>): void {
  const version = r.u8();
  const flags = r.uint(2) * 256 + r.u8();
  const count = r.u32();
  for (let i = 0; i < count; i += 1) {
    const id = version < 1 ? r.u16() : r.u32();
    const n = r.u8();
    const indices: number[] = [];
    for (let k = 0; k < n; k += 1) indices.push(flags & 1 ? r.u16() & 0x7fff : r.u8() & 0x7f);
    into.set(id, indices);
  }
}

function readLocations(r: Reader, into: Map<number, Location>): void {
  const version = fullBox(r);
  const sizes = r.u8();
  const offsetSize = sizes >> 4;
  const lengthSize = sizes & 15;
  const more = r.u8();
  const baseOffsetSize = more >> 4;
  const indexSize = version === 1 || version === 2 ? more & 15 : 0;
  const count = version < 2 ? r.u16() : r.u32();
  for (let i = 0; i < count; i += 1) {
    const id = version < 2 ? r.u16() : r.u32();
    const method = version === 1 || version === 2 ? r.u16() & 15 : 0;
    r.u16(); // data reference index
    const base = r.uint(baseOffsetSize);
    const extentCount = r.u16();
    const extents = [];
    for (let k = 0; k < extentCount; k += 1) {
      if (indexSize > 0) r.uint(indexSize);
      const offset = r.uint(offsetSize);
      extents.push({ offset: base + offset, length: r.uint(lengthSize) });
    }
    into.set(id, { method, extents });
  }
}

/** An item's `ispe` (image spatial extents): every image item must have one (HEIF §6.5.3). */
function extents(view: DataView, meta: Meta, id: number): { width: number; height: number } {
  for (const index of meta.associations.get(id) ?? []) {
    const property = meta.properties[index - 1];
    if (property?.type !== "ispe") continue;
    const r = new Reader(view, property.body, property.end);
    fullBox(r);
    return { width: r.u32(), height: r.u32() };
  }
  return undecodable(`image item ${id} without its size (ispe)`);
}

/** The first `n` bytes of an item's data (a grid descriptor is at most 12). */
function itemData(view: DataView, meta: Meta, id: number, n: number): Uint8Array {
  const location = meta.locations.get(id) ?? undecodable(`item ${id} has no location`);
  const base = location.method === 1 ? (meta.idat ?? undecodable("item in a missing idat box")) : { body: 0, end: view.byteLength };
  if (location.method > 1) undecodable(`item ${id} is located by reference`);
  const out = new Uint8Array(n);
  let filled = 0;
  for (const extent of location.extents) {
    const start = base.body + extent.offset;
    const end = extent.length === 0 ? base.end : Math.min(base.end, start + extent.length);
    if (start > base.end) undecodable(`item ${id} lies outside the file`);
    const take = Math.min(n - filled, end - start);
    out.set(new Uint8Array(view.buffer, view.byteOffset + start, take), filled);
    filled += take;
    if (filled === n) return out;
  }
  return out.subarray(0, filled);
}

/** The grid descriptor (HEIF §6.6.2.3.2): tile rows and columns, and the output size. */
function gridDescriptor(view: DataView, meta: Meta, id: number): { rows: number; columns: number; width: number; height: number } {
  const data = itemData(view, meta, id, 12);
  if (data.length < 8 || data[0] !== 0) undecodable("grid descriptor is cut short or of an unknown version");
  const d = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const wide = (data[1]! & 1) === 1;
  if (wide && data.length < 12) undecodable("grid descriptor is cut short");
  return {
    rows: data[2]! + 1,
    columns: data[3]! + 1,
    width: wide ? d.getUint32(4) : d.getUint16(4),
    height: wide ? d.getUint32(8) : d.getUint16(6),
  };
}

interface Frame {
  width: number;
  height: number;
  /** Pixels the codec decodes: every tile in full, overhang included. */
  decoded: number;
}

/** The primary image's size: a coded image (`hvc1`), a grid of them, or an identity-derived one (`iden`). */
function imageFrame(view: DataView, meta: Meta, id: number, depth = 0): Frame {
  const type = meta.types.get(id) ?? undecodable(`item ${id} is not in the item list`);
  const size = extents(view, meta, id);
  if (type === "hvc1") return { ...size, decoded: size.width * size.height };
  if (type === "iden" && depth < 2) {
    const [source, ...others] = meta.derived.get(id) ?? [];
    if (source === undefined || others.length > 0) undecodable("identity-derived item without exactly one source");
    const inner = imageFrame(view, meta, source, depth + 1);
    return { ...size, decoded: Math.max(size.width * size.height, inner.decoded) };
  }
  if (type === "grid" && depth < 2) {
    const grid = gridDescriptor(view, meta, id);
    const tiles = meta.derived.get(id) ?? [];
    if (grid.rows * grid.columns > MAX_GRID_TILES) {
      throw new DecodeFailure("image_too_large", `HEIF grid of ${grid.columns}x${grid.rows} tiles: more than ${MAX_GRID_TILES}`);
    }
    if (tiles.length !== grid.rows * grid.columns) undecodable(`grid of ${grid.columns}x${grid.rows} tiles lists ${tiles.length}`);
    let decoded = 0;
    for (const tile of tiles) {
      if (meta.types.get(tile) !== "hvc1") undecodable(`grid tile ${tile} is not an HEVC image`);
      const t = extents(view, meta, tile);
      decoded += t.width * t.height;
    }
    return { width: grid.width, height: grid.height, decoded: Math.max(decoded, size.width * size.height) };
  }
  return undecodable(`primary image of type "${type}" is not decoded (HEVC images and grids are)`);
}

export function heifFrame(bytes: Uint8Array): FrameHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Top-level boxes up to `meta` only: what follows (the coded data in `mdat`) is the codec's to read.
  const top = boxes(view, 0, bytes.length, "meta");
  if (top[0]?.type !== "ftyp") undecodable("without a file type box");
  const metaBox = top.find((b) => b.type === "meta") ?? undecodable("without a meta box");
  const meta = readMeta(view, metaBox);
  if (meta.primary < 0) undecodable("without a primary item");
  const frame = imageFrame(view, meta, meta.primary);
  return {
    format: "HEIF",
    ...frame,
    dataBytes: bytes.length,
    minBytes: 0,
    bound: "HEVC's arithmetic coder: no bound",
  };
}
