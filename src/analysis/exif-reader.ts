/*
 * exifr built from its own modules: the lite bundle (JPEG and HEIC files; TIFF/EXIF/GPS and XMP
 * segments) plus the TIFF file parser, for the EXIF that PNG (`eXIf`) and WebP (`EXIF`) carry as a
 * bare TIFF structure (src/analysis/metadata-chunks.ts finds it). The package's default build also
 * registers Node-only readers (fs, zlib, http) that it tries to load when it sees `process` (as
 * Workers with nodejs_compat have it): in a bundle that fails and warns on every start.
 */
import exifr from "exifr/src/bundles/lite.mjs";
import "exifr/src/file-parsers/tiff.mjs";
import { TiffCore } from "exifr/src/segment-parsers/tiff-exif.mjs";
import { HeifFileParser, type IsoBox } from "exifr/src/file-parsers/heif.mjs";
import { pngChunks, webpMetadata } from "./metadata-chunks";

export default exifr;

/** Bytes per value of each TIFF type (1 BYTE … 13 IFD). */
const TIFF_TYPE_SIZES = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];

/*
 * exifr sizes a tag's array by the count the tag states before it reads a value: a 600-byte JPEG
 * whose Exif IFD pointer stated 0xe2000001 longs held workerd for 13-35 s while it made a 15 GB array
 * (found by test/helpers/fuzz.ts; test/unit/decode-bombs.test.ts). A tag whose values cannot lie
 * within its TIFF block is skipped; the block's other tags are read as before.
 */
const parseTag = TiffCore.prototype.parseTag;
TiffCore.prototype.parseTag = function boundedParseTag(this: TiffCore, offset: number, tag: number, blockKey: string): unknown {
  const { chunk } = this;
  const total = (TIFF_TYPE_SIZES[chunk.getUint16(offset + 2)] ?? 0) * chunk.getUint32(offset + 4);
  if (total > 4 && chunk.getUint32(offset + 8) + total > chunk.byteLength) return undefined;
  return parseTag.call(this, offset, tag, blockKey);
};

/*
 * exifr 7.1.3 locates a HEIF item by its extent's offset alone and drops the item's `base_offset`
 * (ISO/IEC 14496-12 8.11.3): libheif writes the Exif item at base_offset + 0, so exifr read the
 * file's header as EXIF ("Malformed EXIF data") and a HEIC's GPS, time and camera were lost. This
 * reads the `iloc` entry whole: offset = base_offset + extent_offset, in the file (construction
 * method 0) only; an item kept in `idat` or another file is not read.
 */
HeifFileParser.prototype.findExtentInIloc = function findExtentInIloc(this: HeifFileParser, box: IsoBox, wantedId: number): [number, number] | undefined {
  this.parseBoxFullHead(box);
  const { file } = this;
  let offset = box.start;
  const nibbles = (at: number) => [file.getUint8(at) >> 4, file.getUint8(at) & 0xf] as const;
  const [offsetSize, lengthSize] = nibbles(offset++);
  const [baseOffsetSize, indexSize] = nibbles(offset++);
  // The index size is version 1's and 2's; version 0 keeps the field reserved.
  const extentSize = (box.version >= 1 ? indexSize : 0) + offsetSize + lengthSize;
  const wide = box.version === 2 ? 4 : 2;
  let count = file.getUintBytes(offset, wide);
  offset += wide;
  while (count-- > 0 && offset < box.offset + box.length) {
    const id = file.getUintBytes(offset, wide);
    offset += wide;
    const method = box.version >= 1 ? file.getUint16(offset) & 0xf : 0;
    if (box.version >= 1) offset += 2;
    offset += 2; // data_reference_index
    const base = baseOffsetSize ? file.getUintBytes(offset, baseOffsetSize) : 0;
    offset += baseOffsetSize;
    const extents = file.getUint16(offset);
    offset += 2;
    if (id === wantedId) {
      if (method !== 0 || extents < 1) return undefined;
      const at = offset + (box.version >= 1 ? indexSize : 0);
      return [base + (offsetSize ? file.getUintBytes(at, offsetSize) : 0), file.getUintBytes(at + offsetSize, lengthSize)];
    }
    offset += extents * extentSize;
  }
  return undefined;
};

/** What exifr should read for a file's EXIF: PNG and WebP keep it in a chunk of their own (null: none). */
export function exifSourceOf(bytes: Uint8Array): Uint8Array | null {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    // Only the eXIf chunk: the text chunks (inflated by pngMetadata) are not needed here.
    for (const { type, body } of pngChunks(bytes)) if (type === "eXIf") return body;
    return null;
  }
  const riff = String.fromCharCode(...bytes.subarray(0, 4)) === "RIFF" && String.fromCharCode(...bytes.subarray(8, 12)) === "WEBP";
  return riff ? webpMetadata(bytes).exif : bytes;
}
