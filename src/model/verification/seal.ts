import canonicalize from "canonicalize";
import { sha256Hex } from "../../lib/crypto";
import { iso } from "../../lib/time";
import type { VerificationConfig } from "./config";
import type { AnswerValue } from "./state";

export interface RecordSeal {
  algorithm: "sha256";
  hash: string;
  covers: ["record", "answers"];
  answers_provenance: "user_declared";
}

/**
 * SHA-256 hex of the RFC 8785 canonical JSON of
 * `{record: {id, created_at, config}, answers: {step_key: {value, answered_at}}}`, with every value
 * exactly as a fetched Verification shows it, so a tenant can recompute it from the API response.
 * Null when sealing is off or nothing is answered.
 */
export async function computeSealHash(input: {
  id: string;
  createdAt: number;
  config: VerificationConfig;
  sealEnabled: boolean;
  answers: Record<string, AnswerValue>;
}): Promise<string | null> {
  const keys = Object.keys(input.answers);
  if (!input.sealEnabled || keys.length === 0) return null;
  // Own entries only, defined rather than assigned: a step keyed `__proto__` is an answer like any other.
  const answers = Object.fromEntries(Object.entries(input.answers).map(([key, a]) => [key, { value: a.value, answered_at: iso(a.answeredAt) }]));
  const document = { record: { id: input.id, created_at: iso(input.createdAt), config: input.config }, answers };
  const canonical = canonicalize(document);
  if (canonical === undefined) throw new Error("record seal document is not serialisable");
  return sha256Hex(canonical);
}

export function sealOf(hash: string | null): RecordSeal | undefined {
  return hash ? { algorithm: "sha256", hash, covers: ["record", "answers"], answers_provenance: "user_declared" } : undefined;
}
