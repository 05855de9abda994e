import canonicalize from "canonicalize";
import type { Verification } from "../api";

/**
 * Recomputes a verification's record seal from the Verification exactly as the API served it:
 * SHA-256 hex of the RFC 8785 canonical JSON of
 * `{record: {id, created_at, config}, answers: {step_key: {value, answered_at}}}` (README, CONTRACT).
 */
export async function recomputeSeal(v: Verification): Promise<string> {
  const answers = Object.fromEntries(Object.entries(v.answers ?? {}).map(([key, a]) => [key, { value: a.value, answered_at: a.answered_at }]));
  const canonical = canonicalize({ record: { id: v.id, created_at: v.created_at, config: v.config }, answers });
  if (canonical === undefined) throw new Error("The record could not be serialised.");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
