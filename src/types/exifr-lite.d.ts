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
