// exifr's source modules carry no types of their own; their exports are the package's.
declare module "exifr/src/bundles/lite.mjs" {
  import exifr from "exifr";
  export default exifr;
}
declare module "exifr/src/file-parsers/tiff.mjs";
declare module "exifr/src/segment-parsers/tiff-exif.mjs" {
  /** The TIFF/IFD reader behind exifr's EXIF, GPS and IFD1 blocks (only what src/analysis/exif-reader.ts wraps). */
  export class TiffCore {
    chunk: { byteLength: number; getUint16(offset: number): number; getUint32(offset: number): number };
    parseTag(offset: number, tag: number, blockKey: string): unknown;
  }
}
declare module "exifr/src/file-parsers/heif.mjs" {
  /** An ISO BMFF box as exifr's HEIF parser walks it: `offset` is its first byte, `start` past its header (and version, once read). */
  export interface IsoBox {
    offset: number;
    start: number;
    length: number;
    version: number;
  }
  /** exifr's HEIC/AVIF reader (only what src/analysis/exif-reader.ts replaces). */
  export class HeifFileParser {
    file: { getUint8(offset: number): number; getUint16(offset: number): number; getUintBytes(offset: number, size: number): number };
    parseBoxFullHead(box: IsoBox): void;
    findExtentInIloc(box: IsoBox, wantedId: number): [number, number] | undefined;
  }
}
