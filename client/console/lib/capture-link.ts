import type { components } from "../../../clients/typescript/src/schema";
import { formatDateTime } from "./format";

type Verification = components["schemas"]["Verification"];

/** The statuses a verification can still leave on its own (what live refresh watches). */
export const OPEN_STATUSES: readonly Verification["status"][] = ["pending", "partially_captured", "abandoned"];

/**
 * The summary's last date: when it completed, else whether its capture link still takes evidence
 * (as the evidence report says it). "Link expires" on a failed or expired case read as if it were open.
 */
export function captureLinkFact(v: Pick<Verification, "status" | "completed_at" | "expires_at" | "redacted_at">, now = Date.now()): { term: string; value: string } {
  if (v.completed_at) return { term: "Completed", value: formatDateTime(v.completed_at) };
  const expired = v.status === "expired" || Date.parse(v.expires_at) <= now;
  if (OPEN_STATUSES.includes(v.status) && !v.redacted_at && !expired) return { term: "Capture link", value: `open until ${formatDateTime(v.expires_at)}` };
  return { term: "Capture link", value: expired ? `closed (expired ${formatDateTime(v.expires_at)})` : "closed" };
}
