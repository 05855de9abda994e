import type { VerificationRecord } from "../../db/verifications";
import { iso } from "../../lib/time";
import { presentVerdict } from "../../model/verification/present";

/*
 * The words of outbound notifications: plain text, pure functions of the record. Every word is the
 * service's own: no tenant-supplied text (metadata, context, step descriptions, the display name)
 * and no end-user text (answers), so a notification can never carry someone else's message to an
 * inbox of their choosing. The tenant is named by the domain it proved (DNS TXT), else by its id.
 * Answers and metadata are carried only by the API and the webhook.
 */

/** Who asked for the verification, as far as the service vouches for it. */
export interface Requester {
  tenantId: string;
  verifiedDomain: string | null;
}

function requesterLine(requester: Requester): string {
  return requester.verifiedDomain
    ? `Requested by: ${requester.verifiedDomain} (a domain it proved it controls).`
    : `Requested by: an account of this service that has proved no domain (tenant ${requester.tenantId}).`;
}

const REASONS: Record<string, string> = {
  screen_detected: "the photo appears to show a screen rather than the real scene",
  ai_generated: "the image appears to be AI-generated",
  context_mismatch: "the images do not match the stated context",
  reverse_search_match: "the image was seen before, in earlier captures or online",
  depth_anomaly: "the depth data does not look like a real three-dimensional scene",
  not_assessed: "a required check could not be carried out on the photos",
};

interface VerdictView {
  label?: string;
  assessment?: string;
  score?: number;
  reason_code?: string;
  signals?: { reverse_search?: { found_online?: unknown } };
}

/** The verdict as served (`assessment` derived for verdicts stored before it existed). */
function verdictOf(record: VerificationRecord): VerdictView | null {
  const v = presentVerdict(record.row.verdict);
  return v && typeof v === "object" ? (v as VerdictView) : null;
}

/** Nothing evaluated is never a verdict: its stored label is not announced as a result. */
const NOTHING_ASSESSED = "not assessed";

function headlineLabel(verdict: VerdictView): string {
  return verdict.assessment === "none" ? NOTHING_ASSESSED : (verdict.label ?? "unknown");
}

/** "Found online" only for a web match (`found_online`); a match in the service's history is a photo seen before. */
function reasonWords(verdict: VerdictView, code: string): string {
  const found = verdict.signals?.reverse_search?.found_online;
  if (code === "reverse_search_match" && typeof found === "boolean") {
    return found ? "the image was already found online" : "the image was seen before, in an earlier capture";
  }
  return REASONS[code] ?? code;
}

function verdictLine(verdict: VerdictView): string {
  if (verdict.assessment === "none") return `Verdict: ${NOTHING_ASSESSED}: no check could be made (stored label ${verdict.label ?? "unknown"})`;
  const score = typeof verdict.score === "number" ? ` (score ${verdict.score.toFixed(2)})` : "";
  return `Verdict: ${verdict.label ?? "unknown"}${score}`;
}

/**
 * The machine code of a failure reason (`analysis_failed: <detail>` → `analysis_failed`). The
 * detail comes from decoders and providers fed with uploaded bytes, so it stays out of the email.
 */
function failureCode(reason: string | null): string | null {
  const code = reason?.split(":", 1)[0]?.trim();
  return code && /^[a-z][a-z0-9_]{0,63}$/.test(code) ? code : null;
}

export type EmailKind = "completed" | "expired" | "failed";

export function verificationEmail(record: VerificationRecord, kind: EmailKind, baseUrl: string, requester: Requester): { subject: string; body: string } {
  const { row } = record;
  const verdict = verdictOf(record);
  const lines: string[] = [];
  let subject: string;
  if (kind === "completed") {
    subject = `Verification ${row.id} completed: ${verdict ? headlineLabel(verdict) : "no verdict"}`;
    lines.push(`Verification ${row.id} has completed.`, "");
    if (verdict) {
      lines.push(verdictLine(verdict));
      if (verdict.reason_code) lines.push(`Reason: ${reasonWords(verdict, verdict.reason_code)}`);
    }
  } else if (kind === "expired") {
    subject = `Verification ${row.id} expired`;
    lines.push(`Verification ${row.id} expired before its evidence was complete.`);
  } else {
    subject = `Verification ${row.id} failed`;
    const code = failureCode(row.failureReason);
    lines.push(`Verification ${row.id} failed: no verdict could be produced${code ? ` (${code})` : ""}.`);
  }
  lines.push(requesterLine(requester), `Captures: ${row.capturesCount}`, `Created: ${iso(row.createdAt)}`);
  if (row.completedAt !== null) lines.push(`Completed: ${iso(row.completedAt)}`);
  if (kind === "expired") lines.push(`Expired: ${iso(row.expiresAt)}`);
  lines.push("", "The full record (API key required):", `  GET ${baseUrl}/v1/verifications/${row.id}`);
  return { subject, body: `${lines.join("\n")}\n` };
}

/** The verdict as a short chat message, for trial verifications started from WhatsApp. */
export function trialVerdictMessage(record: VerificationRecord): string {
  if (record.row.status === "failed") {
    const why = record.row.failureReason?.startsWith("unreadable_evidence")
      ? "the photo could not be read as an image"
      : "the photo could not be analysed";
    return `Your photo verification could not be completed: ${why}. Start a new one to try again with another photo.\nReference: ${record.row.id}`;
  }
  const verdict = verdictOf(record);
  if (verdict?.assessment === "none") {
    // Either every photo was an existing file, or no required check could run: neither is a result.
    return `Your photo verification is complete, but no check could be made on it: NOT ASSESSED.\nReference: ${record.row.id}`;
  }
  const label = verdict?.label;
  const confidence = typeof verdict?.score === "number" ? ` (confidence ${Math.round(verdict.score * 100)}%)` : "";
  const headline =
    label === "verified"
      ? `Your photo verification is complete: VERIFIED${confidence}.`
      : label === "suspicious"
        ? `Your photo verification is complete: SUSPICIOUS${confidence}.`
        : label === "failed"
          ? `Your photo verification is complete: FAILED${confidence}.`
          : "Your photo verification is complete.";
  const reason = verdict?.reason_code ? ` Why: ${REASONS[verdict.reason_code] ?? verdict.reason_code}.` : "";
  return `${headline}${reason}\nReference: ${record.row.id}`;
}
