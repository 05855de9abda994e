/*
 * The preview's frames as the page keeps them for the burst (no DOM here: the evaluation script runs
 * the same code on fixture videos in Node): each frame reduced to at most REDUCED_MAX_SIDE px of
 * luma, fingerprinted so that a looping clip shows itself (a camera's noise never lets two frames
 * match), and the frames around the shutter picked out. The service measures the frames; the page
 * only counts repeats in its preview, which it reports as its claim.
 */
import { FLAT_FRAME_STD, frameStd, PATCH_SIDE, type GreyFrame } from "../../../src/model/evidence/grey-frame";
import { BURST_LIMITS } from "../../../src/schemas/burst-limits";

export { FLAT_FRAME_STD, frameStd, PATCH_SIDE, type GreyFrame };

export const REDUCED_MAX_SIDE: number = BURST_LIMITS.frameMaxSide;

/** Rec. 601 luma of RGBA pixels (what canvas getImageData gives), into `out`. */
export function lumaOf(rgba: Uint8ClampedArray | Uint8Array, out: Uint8Array = new Uint8Array(rgba.length / 4)): Uint8Array {
  for (let i = 0, j = 0; j < out.length; i += 4, j += 1) out[j] = (rgba[i]! * 77 + rgba[i + 1]! * 150 + rgba[i + 2]! * 29) >> 8;
  return out;
}

/** A 64-bit fingerprint (two independent 32-bit FNV-1a variants) of a frame's bytes, as a string key. */
export function fingerprint(frame: Pick<GreyFrame, "luma">): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  const bytes = frame.luma;
  for (let i = 0; i < bytes.length; i += 1) {
    a = Math.imul(a ^ bytes[i]!, 0x01000193);
    b = Math.imul(b ^ bytes[i]!, 0x5bd1e995) ^ (b >>> 15);
  }
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}

/**
 * Watches the preview's frames for exact repeats: a looping clip shows the same frame again after
 * different ones; a camera's sensor noise never lets two frames match. Keeps the last `window`
 * fingerprints only. Flat frames (nothing in view) are not compared.
 */
export class RepeatWatch {
  frames = 0;
  repeated = 0;
  private readonly seen = new Map<string, number>();
  private readonly order: string[] = [];
  private previous = "";
  /** Index of the last frame that differed from the one before it. */
  private lastChange = -1;

  constructor(private readonly window = 1800) {}

  add(key: string, flat: boolean): void {
    const index = this.frames;
    this.frames += 1;
    if (key !== this.previous) this.lastChange = index;
    this.previous = key;
    if (flat) return;
    const earlier = this.seen.get(key);
    // Seen before, and a different frame came in between: a repeat, not a frozen run.
    if (earlier !== undefined && earlier < index - 1 && this.lastChange > earlier + 1) this.repeated += 1;
    if (earlier === undefined) this.order.push(key);
    this.seen.set(key, index);
    if (this.order.length > this.window) this.seen.delete(this.order.shift()!);
  }
}

/** The burst is the frames of the last BURST_BEFORE_MS before the shutter and those just after it. */
export const BURST_BEFORE_MS = 400;
/** The page keeps at most this many recent frames (enough for BURST_BEFORE_MS at 60 fps). */
export const BURST_RING = 28;
/** Native patches: the one on screen at the shutter and the next ones, enough consecutive pairs for the noise. */
export const NOISE_PATCHES = 6;

/** A burst is complete with this many frames over this long (a little over the service's 5 and 300 ms). */
export const BURST_MIN_FRAMES = 6;
export const BURST_MIN_SPAN_MS = 350;

/**
 * The burst around a shutter pressed at `shutterAt`, from recent frames (oldest first): the frames
 * from BURST_BEFORE_MS before it on, once at least one came after it and they are BURST_MIN_FRAMES
 * over BURST_MIN_SPAN_MS (a page that read the preview sparingly reads on after the shutter), at
 * most the schema's maximum (evenly thinned, so the span stays); null until then.
 */
export function burstAround(recent: readonly GreyFrame[], shutterAt: number): GreyFrame[] | null {
  const burst = recent.filter((f) => f.t >= shutterAt - BURST_BEFORE_MS);
  const after = burst.findIndex((f) => f.t > shutterAt);
  if (after === -1) return null;
  const enough = (n: number) => n >= BURST_MIN_FRAMES && burst[n - 1]!.t - burst[0]!.t >= BURST_MIN_SPAN_MS;
  for (let n = after + 1; n <= burst.length; n += 1) if (enough(n)) return thin(burst.slice(0, n), BURST_LIMITS.maxFrames);
  return null;
}

/** At most `max` of `frames`, evenly spaced, the first and the last kept. */
export function thin<T>(frames: readonly T[], max: number): T[] {
  if (frames.length <= max) return [...frames];
  return Array.from({ length: max }, (_, i) => frames[Math.round((i * (frames.length - 1)) / (max - 1))]!);
}
