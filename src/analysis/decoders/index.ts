import { checkHeader } from "./header";
import { DecodeFailure, type DecodedImage, type DecodeRequest } from "./types";

export * from "./types";

/**
 * Decodes the capture in the Worker: JPEG (libjpeg-turbo), PNG (streamed), WebP (libwebp) and
 * HEIC/HEIF (libheif), each codec loaded on first use. No path holds a whole frame at native
 * resolution except libjpeg's coefficients of a small progressive JPEG (a larger one keeps its DC
 * values and the tiles' blocks only); measured peaks are in docs/signals.md.
 * Throws DecodeFailure (`undecodable_image` or `image_too_large`) when there are no pixels.
 *
 * Every input first passes the header check (./header): a frame over the size ceiling, or larger
 * than the file's bytes can hold, is refused there, before a codec is loaded or a row is walked.
 */
export async function decodeImage(bytes: Uint8Array, mediaType: string, request: DecodeRequest = {}): Promise<DecodedImage> {
  checkHeader(bytes, mediaType);
  switch (mediaType) {
    case "image/jpeg":
      return (await import("./jpeg")).decodeJpeg(bytes, request);
    case "image/png":
      return (await import("./png")).decodePng(bytes, request);
    case "image/webp":
      return (await import("./webp")).decodeWebp(bytes, request);
    case "image/heic":
    case "image/heif":
      return (await import("./heif")).decodeHeif(bytes, request);
    default:
      throw new DecodeFailure("undecodable_image", `no decoder for ${mediaType}`);
  }
}
