import type { VerificationRecord } from "../../db/verifications";
import { iso } from "../../lib/time";
import { IMAGE_STEP_MAX_BYTES } from "./config";
import { toState } from "./record";
import { effectiveStatus } from "./state";
import { guardOpen, isReady, submitBlockers } from "./transitions";

/**
 * `GET /v1/verify/{token}`: what the capture page needs to render and resume, and nothing more:
 * never answer values, signals, verdict, metadata, webhook or email fields.
 */
export function presentCaptureFlow(
  record: VerificationRecord,
  options: { tenantName: string; siteKey?: string | undefined; limits: { inline_max_bytes: number; upload_url_ttl_seconds: number } },
): Record<string, unknown> {
  const { row } = record;
  const state = toState(record);
  const counts = new Map<string, number>();
  for (const c of record.captures) counts.set(c.stepKey, (counts.get(c.stepKey) ?? 0) + 1);
  const answered = new Set(record.answers.map((a) => a.stepKey));
  const steps = row.config.steps.map((step) =>
    step.type === "text" ? { ...step, answered: answered.has(step.key) } : { ...step, captured: counts.get(step.key) ?? 0 },
  );
  const now = Date.now();
  // The rule `submit` applies, and nothing else: the page decides "ready to send" from it alone.
  const readyForSubmit = guardOpen(state, now) === null && submitBlockers(state).length === 0;
  return {
    id: row.id,
    status: effectiveStatus(row, now),
    expires_at: iso(row.expiresAt),
    tenant: { display_name: options.tenantName },
    mode: row.config.mode ?? "verification",
    steps,
    captures_count: row.capturesCount,
    max_captures: row.config.max_captures,
    submitted: row.submittedAt !== null || (row.readyAt !== null && isReady(state)),
    ready_for_submit: readyForSubmit,
    limits: { ...options.limits, image_max_bytes: IMAGE_STEP_MAX_BYTES },
    ...(options.siteKey ? { attestation: { site_key: options.siteKey } } : {}),
  };
}
