/*
 * The capture-flow writes into one verification, counted where every one of them arrives anyway: the
 * verification's Durable Object (the third kind of counter in domain/public-limits.ts).
 */

const MINUTE = 60_000;

/**
 * The capture-flow writes (upload-url, captures, answers, submit, progress) into one verification,
 * from anywhere: counted by the verification's Durable Object (`VerificationObject`), which every one
 * of them calls, before it decides or writes anything.
 */
export const VERIFICATION_WRITE_LIMIT = {
  limit: 100,
  windowMs: MINUTE,
  message: "Too many requests for this verification; try again later.",
} as const;

/**
 * A fixed-window counter in memory (windows aligned to multiples of `windowMs`, as the binding's are).
 * Exact for a counter with a single owner: the verification's object, one instance worldwide. An
 * object that was evicted (idle for a while) starts from zero: a new window at worst.
 */
export class WriteWindow {
  #start = -1;
  #count = 0;

  constructor(readonly rule: { limit: number; windowMs: number }) {}

  /** Counts one request at `now`: undefined when it is within the limit, else the seconds until the window ends. */
  hit(now: number): number | undefined {
    const start = now - (now % this.rule.windowMs);
    if (start !== this.#start) {
      this.#start = start;
      this.#count = 0;
    }
    this.#count += 1;
    if (this.#count <= this.rule.limit) return undefined;
    return Math.max(1, Math.ceil((start + this.rule.windowMs - now) / 1000));
  }
}
