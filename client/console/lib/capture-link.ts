import type { components } from "../../../clients/typescript/src/schema";
import { takesCaptures } from "../../../src/model/verification/capture-credential";
import { formatDateTime } from "./format";

type Verification = components["schemas"]["Verification"];

/**
 * The summary's last date: when it completed, else whether its capture link still takes evidence
 * (the rule the evidence report reads, `takesCaptures`). "Link expires" on a failed or expired case read as if it were open.
 */
export function captureLinkFact(v: Pick<Verification, "status" | "completed_at" | "expires_at" | "redacted_at">, now = Date.now()): { term: string; value: string } {
  if (v.completed_at) return { term: "Completed", value: formatDateTime(v.completed_at) };
  const expiresAt = Date.parse(v.expires_at);
  if (takesCaptures({ status: v.status, expiresAt, redacted: Boolean(v.redacted_at) }, now)) return { term: "Capture link", value: `open until ${formatDateTime(v.expires_at)}` };
  const expired = v.status === "expired" || expiresAt <= now;
  return { term: "Capture link", value: expired ? `closed (expired ${formatDateTime(v.expires_at)})` : "closed" };
}
