/** What a file's own header says about its frame, read before any decoder runs. */
export interface FrameHeader {
  format: string;
  width: number;
  height: number;
  /** Pixels the codec will decode (a HEIF grid's tiles may overhang the frame). */
  decoded: number;
  /** The bytes that carry the coded frame (PNG: its IDAT chunks; WebP: its bitstream chunk; else the file). */
  dataBytes: number;
  /** The fewest such bytes a valid file with this frame can have: the format's best compression. */
  minBytes: number;
  /** Where `minBytes` comes from, in words (for the refusal's message). */
  bound: string;
}
