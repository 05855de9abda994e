import type { AnswerRow, CaptureRow, VerificationRecord, VerificationRow } from "../../db/verifications";
import { iso } from "../../lib/time";
import type { VerificationConfig } from "./config";
import { sealOf } from "./seal";
import { effectiveStatus } from "./state";
import { aiMethodOf, assessmentOf, isNotApplicable, isNotAssessed } from "../../analysis/evidence";

/** Who is looking decides what a Verification shows. */
export type Audience =
  /** Tenant back-end (API key): everything but the operator-only progress snapshot. */
  | "tenant"
  /** Operator dashboard (session cookie): everything, progress included. */
  | "operator"
  /** The end user holding the capture link: steps and their own answers; no verdict, no tenant-private config. */
  | "capture";

export function captureUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/c/${id}`;
}

/**
 * The config as the end user may see it: the steps to take and nothing else. Everything else in it
 * (context, expectations, signals, metadata, where results go) is the tenant's private business.
 */
function capturePageConfig(config: VerificationConfig): Pick<VerificationConfig, "max_captures" | "steps" | "mode"> {
  return { max_captures: config.max_captures, steps: config.steps, ...(config.mode ? { mode: config.mode } : {}) };
}

/**
 * What the capture audience's view reads of a record, and no more: the verification's object answers
 * the capture flow's writes with this instead of the whole record (every capture's analysis inputs,
 * attestation and location, and the tenant's config would otherwise cross the RPC on each write).
 */
export interface CaptureFlowRecord {
  row: Pick<VerificationRow, "id" | "status" | "createdAt" | "expiresAt" | "readyAt" | "capturesCount" | "sealHash" | "submittedAt"> & {
    config: ReturnType<typeof capturePageConfig>;
  };
  captures: Pick<CaptureRow, "id" | "stepKey" | "createdAt">[];
  answers: Pick<AnswerRow, "stepKey" | "value" | "answeredAt">[];
}

export function captureFlowRecord({ row, captures, answers }: VerificationRecord): CaptureFlowRecord {
  return {
    row: {
      id: row.id,
      status: row.status,
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
      readyAt: row.readyAt,
      capturesCount: row.capturesCount,
      sealHash: row.sealHash,
      submittedAt: row.submittedAt,
      config: capturePageConfig(row.config),
    },
    captures: captures.map((c) => ({ id: c.id, stepKey: c.stepKey, createdAt: c.createdAt })),
    answers: answers.map((a) => ({ stepKey: a.stepKey, value: a.value, answeredAt: a.answeredAt })),
  };
}

interface PresentOptions {
  baseUrl: string;
  audience: Audience;
  now?: number;
}

/** The Verification resource in its wire shape (snake_case, RFC 3339 times). */
export function presentVerification(record: CaptureFlowRecord, options: PresentOptions & { audience: "capture" }): Record<string, unknown>;
export function presentVerification(record: VerificationRecord, options: PresentOptions): Record<string, unknown>;
export function presentVerification(record: CaptureFlowRecord | VerificationRecord, options: PresentOptions): Record<string, unknown> {
  // Only the capture audience may pass the projection (the overloads), and it reads nothing else.
  const { row, captures, answers } = record as VerificationRecord;
  const now = options.now ?? Date.now();
  const full = options.audience !== "capture";
  const out: Record<string, unknown> = {
    id: row.id,
    status: effectiveStatus(row, now),
    capture_url: captureUrl(options.baseUrl, row.id),
    created_at: iso(row.createdAt),
    expires_at: iso(row.expiresAt),
    ...(full && row.templateId ? { template: { id: row.templateId, version: row.templateVersion ?? 1 } } : {}),
    captures_count: row.capturesCount,
    config: full ? row.config : capturePageConfig(row.config),
  };
  if (answers.length > 0) {
    out.answers = Object.fromEntries(
      [...answers]
        .sort((a, b) => a.stepKey.localeCompare(b.stepKey))
        .map((a) => [a.stepKey, { value: a.value, answered_at: iso(a.answeredAt) }]),
    );
  }
  const seal = sealOf(row.sealHash);
  if (seal) out.record_seal = seal;
  out.captures = captures.map((c) => ({
    id: c.id,
    step_key: c.stepKey,
    created_at: iso(c.createdAt),
    ...(full && c.attestation ? { attestation: c.attestation } : {}),
  }));
  if (row.submittedAt !== null) out.submitted_at = iso(row.submittedAt);
  if (!full) return out;
  if (row.verdict) out.verdict = presentVerdict(row.verdict);
  if (row.completedAt !== null) out.completed_at = iso(row.completedAt);
  if (row.failureReason) out.failure_reason = row.failureReason;
  if (row.narrative !== null) out.narrative = row.narrative;
  if (row.caseAnalysis) out.case_analysis = row.caseAnalysis;
  if (row.objectMatch) out.object_match = row.objectMatch;
  if (row.locationMatch) out.location_match = row.locationMatch;
  if (row.condition) out.condition = row.condition;
  if (options.audience === "operator" && row.progress) out.progress = row.progress;
  if (row.review) out.review = presentReview(row.review);
  if (row.redactedAt !== null) out.redacted_at = iso(row.redactedAt);
  return out;
}

/** A stored review `{decision, note?, by, at (ms)}` in its wire shape. */
function presentReview(stored: unknown): Record<string, unknown> {
  const review = stored as { decision: string; note?: string; by: string; at: number };
  return { decision: review.decision, ...(review.note !== undefined ? { note: review.note } : {}), by: review.by, at: iso(review.at) };
}

/** The share-safe certificate projection: verdict label only, nothing personal or tenant-private. */
export function presentPublic(record: VerificationRecord, tenantName: string, now = Date.now()): Record<string, unknown> {
  const { row } = record;
  // Nothing evaluated is never a verdict: the share-safe projection shows a label only when a check ran
  // (the certificate is refused on the same rule).
  const verdict = presentVerdict(row.verdict) as { label?: string; assessment?: string } | null;
  const label = verdict?.assessment === "none" ? undefined : verdict?.label;
  return {
    id: row.id,
    status: effectiveStatus(row, now),
    tenant: { display_name: tenantName },
    created_at: iso(row.createdAt),
    ...(row.completedAt !== null ? { completed_at: iso(row.completedAt) } : {}),
    captures_count: row.capturesCount,
    ...(label ? { verdict: { label } } : {}),
  };
}

/**
 * A stored verdict as served. Verdicts written before `assessment` existed get it derived from their
 * signals, and those written before `none` existed say `none` when nothing was evaluated (every
 * signal not applicable); an `ai_detection` written before `method` existed was decided from
 * provenance metadata (the only method then) and says so; `not_assessed` is derived where it was not
 * stored. Every response has the same shape and meaning.
 */
export function presentVerdict(stored: unknown): unknown {
  if (!stored || typeof stored !== "object") return stored;
  const verdict = withAiMethod(stored as { signals?: Record<string, unknown>; assessment?: string; not_assessed?: string[] });
  const signals = Object.entries(verdict.signals ?? {});
  const missing = signals.filter(([, v]) => isNotAssessed(v)).map(([k]) => k);
  const evaluated = signals.filter(([, v]) => !isNotAssessed(v) && !isNotApplicable(v)).length;
  // A stored `partial` or `none` stands (a signal one capture assessed and another could not reads as
  // assessed but is partial); a stored `complete` may predate `none`. Migration 0017 wrote the
  // derived value into older rows without `not_assessed`, which is derived here.
  const assessment = verdict.assessment !== undefined && verdict.assessment !== "complete" ? verdict.assessment : assessmentOf(evaluated, missing.length);
  return { ...verdict, assessment, not_assessed: verdict.not_assessed ?? missing };
}

function withAiMethod<T extends { signals?: Record<string, unknown> }>(verdict: T): T {
  const ai = verdict.signals?.ai_detection as { label?: unknown; method?: unknown; provider?: unknown } | undefined;
  if (!ai || typeof ai !== "object" || ai.label === undefined || ai.method !== undefined) return verdict;
  return { ...verdict, signals: { ...verdict.signals, ai_detection: { ...ai, method: aiMethodOf(ai) } } };
}
