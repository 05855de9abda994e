import type { Verification } from "../api";
import { STATUS_LABEL, VERDICT_LABEL } from "../lib/format";
import { reasonLabel } from "../lib/signals";
import { Badge } from "./ui";

const STATUS_TONE = {
  pending: "neutral",
  partially_captured: "info",
  completed: "good",
  expired: "neutral",
  failed: "bad",
  abandoned: "warn",
} as const;

export function StatusBadge(props: { status: Verification["status"] }) {
  return <Badge tone={STATUS_TONE[props.status]}>{STATUS_LABEL[props.status]}</Badge>;
}

export function VerdictBadge(props: { verification: Verification; withReason?: boolean }) {
  const { verdict, status } = props.verification;
  // Expired and failed verifications get none: not "yet".
  if (!verdict) return <span class="muted">{status === "completed" ? "Analysing…" : status === "expired" || status === "failed" ? "No verdict" : "No verdict yet"}</span>;
  // Nothing evaluated is never a verdict: the stored label is not shown as a result (the certificate is refused too).
  if (verdict.assessment === "none") {
    return (
      <span class="verdict">
        <Badge tone="neutral" title={`Stored label: ${VERDICT_LABEL[verdict.label]}; no check could be made`}>
          Not assessed
        </Badge>
      </span>
    );
  }
  const tone = verdict.label === "verified" ? "good" : verdict.label === "suspicious" ? "warn" : "bad";
  return (
    <span class="verdict">
      <Badge tone={tone}>{VERDICT_LABEL[verdict.label]}</Badge>
      {props.withReason !== false && verdict.reason_code ? <span class="reason">{reasonLabel(verdict)}</span> : null}
    </span>
  );
}

const REVIEW = { approved: ["Approved", "good"], rejected: ["Rejected", "bad"], needs_more: ["Needs more", "warn"] } as const;

/** The operator's latest decision, beside the machine verdict (absent until someone reviews). */
export function ReviewBadge(props: { review: Verification["review"] }) {
  if (!props.review) return <span class="muted">Not reviewed</span>;
  const [label, tone] = REVIEW[props.review.decision];
  return <Badge tone={tone}>{label}</Badge>;
}
