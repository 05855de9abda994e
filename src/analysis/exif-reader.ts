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
