import { checkFrameSize } from "../limits";
import { DecodeFailure } from "../types";
import type { FrameHeader } from "./frame-header";

/*
 * WebP's frame size, from the RIFF container (https://developers.google.com/speed/webp/docs/riff_container):
 * a simple file is one `VP8 ` (lossy) or `VP8L` (lossless) chunk; an extended one starts with `VP8X`,
 * whose canvas size a still image's bitstream must match (libwebp refuses the file otherwise).
 */

interface Bitstream {
  lossless: boolean;
  width: number;
  height: number;
  /** The chunk's bytes (header included). */
  size: number;
}

function fourcc(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}

function undecodable(message: string): never {
  throw new DecodeFailure("undecodable_image", `WebP ${message}`);
}

/** The frame size a `VP8 ` or `VP8L` chunk's bitstream header states (chunk at `at`, its body at `at + 8`). */
function bitstream(bytes: Uint8Array, at: number, size: number): Bitstream {
  const body = at + 8;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (fourcc(bytes, at) === "VP8L") {
    if (body + 5 > bytes.length || bytes[body] !== 0x2f) undecodable("lossless bitstream without its signature");
    const bits = view.getUint32(body + 1, true);
    if (bits >>> 29 !== 0) undecodable("lossless bitstream of an unknown version");
    return { lossless: true, width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, size };
  }
  // A key frame: 3-byte frame tag (bit 0 clear), start code 9d 01 2a, then 14-bit width and height.
  if (body + 10 > bytes.length || (bytes[body]! & 1) !== 0 || bytes[body + 3] !== 0x9d || bytes[body + 4] !== 0x01 || bytes[body + 5] !== 0x2a) {
    undecodable("lossy bitstream without a key frame header");
  }
  return { lossless: false, width: view.getUint16(body + 6, true) & 0x3fff, height: view.getUint16(body + 8, true) & 0x3fff, size };
}

/**
 * A VP8 key frame codes every 16×16 macroblock's luma and chroma prediction modes in its first
 * partition with fixed probabilities (RFC 6386 §11.2: kf_ymode_prob {145, 156, 163, 128},
 * kf_uv_mode_prob {142, 114, 183}): at least -log2(145/256) + -log2(142/256) = 1.67 bits a
 * macroblock. The bound takes one bit. A lossless (VP8L) stream has none: a Huffman code of one
 * symbol takes zero bits, so a one-colour 16 384×16 384 frame is a few dozen bytes.
 */
function minimumBytes(frame: Bitstream): number {
  return frame.lossless ? 0 : Math.ceil((Math.ceil(frame.width / 16) * Math.ceil(frame.height / 16)) / 8);
}

export function webpFrame(bytes: Uint8Array): FrameHeader {
  if (bytes.length < 20 || fourcc(bytes, 0) !== "RIFF" || fourcc(bytes, 8) !== "WEBP") undecodable("without a RIFF header");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let canvas: { width: number; height: number } | null = null;
  let frame: Bitstream | null = null;
  // Chunks are walked until the bitstream: each is at least 8 bytes, so this ends within the file.
  for (let at = 12; at + 8 <= bytes.length && !frame; ) {
    const type = fourcc(bytes, at);
    const size = view.getUint32(at + 4, true);
    if (at === 12 && type === "VP8X") {
      if (at + 18 > bytes.length) undecodable("extended header is cut short");
      if (bytes[at + 8]! & 0x02) undecodable("is animated: not a still photo");
      canvas = { width: 1 + (bytes[at + 12]! | (bytes[at + 13]! << 8) | (bytes[at + 14]! << 16)), height: 1 + (bytes[at + 15]! | (bytes[at + 16]! << 8) | (bytes[at + 17]! << 16)) };
    } else if (type === "VP8 " || type === "VP8L") {
      frame = bitstream(bytes, at, Math.min(8 + size, bytes.length - at));
    } else if (at === 12 || type === "ANMF") {
      undecodable(`starts with an unknown chunk "${type}"`);
    }
    at += 8 + size + (size & 1);
  }
  if (!frame) undecodable("without a bitstream chunk");
  // The canvas is what libwebp reports and sizes its output by; a still image's frame must match it.
  if (canvas) checkFrameSize("WebP canvas", canvas.width, canvas.height);
  if (canvas && (canvas.width !== frame.width || canvas.height !== frame.height)) {
    undecodable(`canvas ${canvas.width}x${canvas.height} does not match its ${frame.width}x${frame.height} bitstream`);
  }
  return {
    format: frame.lossless ? "WebP (lossless)" : "WebP (lossy)",
    width: canvas?.width ?? frame.width,
    height: canvas?.height ?? frame.height,
    decoded: frame.width * frame.height,
    dataBytes: frame.size,
    minBytes: minimumBytes(frame),
    bound: frame.lossless ? "lossless: no bound" : "at least one bit per 16x16 macroblock",
  };
}
