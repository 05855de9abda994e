import { checkFrameSize } from "../limits";
import { DecodeFailure } from "../types";
import type { FrameHeader } from "./frame-header";
import { heifFrame } from "./heif";
import { jpegFrame } from "./jpeg";
import { pngFrame } from "./png";
import { webpFrame } from "./webp";

export type { FrameHeader } from "./frame-header";
export { heifFrame } from "./heif";
export { frameLayout, jpegFrame, type JpegLayout } from "./jpeg";
export { PNG_COLOR_TYPES, pngChunks, pngFrame, readPngHeader, type PngHeader } from "./png";
export { webpFrame } from "./webp";

/**
 * The check every upload passes before a decoder is loaded: the frame its header states (PNG IHDR,
 * JPEG SOFn, WebP VP8/VP8L/VP8X, HEIF `ispe` and grid) is refused when it has no pixels or a
 * malformed header (`undecodable_image`), is over the size ceiling (`image_too_large`, ../limits),
 * or is larger than the file's coded bytes can hold at the format's best compression
 * (`undecodable_image`: a truncated file or a lying header). Reads headers only: a few thousand
 * bytes, or one pass over a PNG's chunk list.
 */
export function checkHeader(bytes: Uint8Array, mediaType: string): FrameHeader {
  return checkFrame(() => readHeader(bytes, mediaType));
}

/** The same check on one format's header (each decoder runs it again on its own, called directly or not). */
export function checkFrame(read: () => FrameHeader): FrameHeader {
  let header: FrameHeader;
  try {
    header = read();
  } catch (err) {
    if (err instanceof DecodeFailure) throw err;
    throw new DecodeFailure("undecodable_image", `header could not be read: ${String(err)}`);
  }
  checkFrameSize(header.format, header.width, header.height, header.decoded);
  if (header.dataBytes < header.minBytes) {
    throw new DecodeFailure(
      "undecodable_image",
      `${header.format} header claims ${header.width}x${header.height}, which takes at least ${header.minBytes} bytes of coded data (${header.bound}); it carries ${header.dataBytes}`,
    );
  }
  return header;
}

function readHeader(bytes: Uint8Array, mediaType: string): FrameHeader {
  switch (mediaType) {
    case "image/jpeg":
      return jpegFrame(bytes);
    case "image/png":
      return pngFrame(bytes);
    case "image/webp":
      return webpFrame(bytes);
    case "image/heic":
    case "image/heif":
      return heifFrame(bytes);
    default:
      throw new DecodeFailure("undecodable_image", `no decoder for ${mediaType}`);
  }
}
