/** Uniform in [0, 1) from the platform CSPRNG (for jitter; never for ids or secrets: use crypto directly). */
export function uniform(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! / 0x1_0000_0000;
}
