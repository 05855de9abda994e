/*
 * The capture burst's bounds (CONTRACT.md, fifth release), in a module of their own: the capture
 * page imports them, and the zod schema beside them (capture-integrity.ts) would bring zod into its
 * bundle.
 */

/** The burst's bounds: the page sends within them, the capture endpoint refuses anything outside (400). */
export const BURST_LIMITS = {
  /** Each reduced frame's longest side (the page reduces the preview to it) and its shortest allowed side. */
  frameMaxSide: 160,
  frameMinSide: 16,
  /** Fewer frames or patches than the measures need are still accepted: the service then says the burst was too short. */
  minFrames: 2,
  maxFrames: 16,
  /** The native-resolution centre patches: side, and how many. */
  patchSide: 64,
  minPatches: 1,
  maxPatches: 8,
  /** PNG bytes of each strip (before base64). 16 frames of 160 × 120 are 300 KiB raw; a camera's compress to about half. */
  maxFramesBytes: 224 * 1024,
  maxPatchesBytes: 40 * 1024,
  /** Frame times are milliseconds from the shutter press, within this much of it. */
  maxOffsetMs: 2000,
} as const;
