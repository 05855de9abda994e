import type { VerificationStatus } from "./state";

/**
 * While a verification can still take captures (pending, partially captured or abandoned, which a
 * capture or an answer brings back; not expired, not redacted), its id is its capture link's
 * credential: whoever holds `/v1/verify/{id}` may add captures and answers. Documents that travel
 * (the evidence report, a capture's Content Credentials copy) then carry only its time part.
 */
export function takesCaptures(v: { status: VerificationStatus; expiresAt: number; redacted: boolean }, now: number): boolean {
  return (v.status === "pending" || v.status === "partially_captured" || v.status === "abandoned") && v.expiresAt > now && !v.redacted;
}

/** The id's prefix and time part (`vfy_` and 10 characters), without the random rest. */
export function idTimePart(id: string): string {
  return id.slice(0, "vfy_".length + 10);
}
