// jpeg-js ships no types; only the parts this project uses.
declare module "jpeg-js" {
  export interface DecodeOptions {
    useTArray?: boolean;
    formatAsRGBA?: boolean;
    tolerantDecoding?: boolean;
    maxResolutionInMP?: number;
    maxMemoryUsageInMB?: number;
  }
  export interface DecodedJpeg {
    width: number;
    height: number;
    data: Uint8Array;
    comments?: string[];
  }
  export interface RawImage {
    width: number;
    height: number;
    data: Uint8Array;
    exifBuffer?: Uint8Array;
    comments?: string[];
  }
  export function decode(data: Uint8Array | ArrayBuffer, options?: DecodeOptions): DecodedJpeg;
  export function encode(image: RawImage, quality?: number): { data: Uint8Array; width: number; height: number };
  const jpeg: { decode: typeof decode; encode: typeof encode };
  export default jpeg;
}
