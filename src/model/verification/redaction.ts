import type { CaptureAnalysisRow } from "../../db/analyses";
import type { RedactionTarget } from "../../db/redaction";
import type { VerificationRecord, VerificationRow } from "../../db/verifications";
import { redactAnalysisResult } from "../evidence/analysis-view";
import type { VerificationConfig } from "./config";
import { presentVerification } from "./present";
import { isTerminal } from "./state";
import { UPLOAD_TTL_MS } from "./upload-slots";

/*
 * Redaction turns a verification into a tombstone: ids, statuses, timestamps, the SHA-256 digests
 * (captures, record seal) and the verdict stay; everything a person supplied or the evidence showed
 * goes. This module is the plan (pure); the verification's Durable Object runs it
 * (durable-objects/verification/redaction.ts: one D1 batch, then the R2 prefix), and the retention run
 * redacts settled verifications in bulk (domain/verification/redaction.ts).
 */

/**
 * After this long without a write, nothing can still be adding to a verification: every upload URL
 * minted before has expired (5 min) and any PUT or analysis under way has finished (6 min grace).
 */
export const QUIET_AFTER_MS = UPLOAD_TTL_MS + 6 * 60 * 1000;

/** Config fields that carry personal data or a claim's particulars. */
const PERSONAL_CONFIG_FIELDS = ["metadata", "context", "notify_email", "expected_location", "expected_object"] as const;

export function redactConfig(config: VerificationConfig): VerificationConfig {
  const out: VerificationConfig = { ...config };
  for (const field of PERSONAL_CONFIG_FIELDS) delete out[field];
  return out;
}

/**
 * The verification row's columns after redaction. The narrative, the case analysis and the
 * independent checks describe the evidence (or quote the address and object) and go; a review
 * keeps its decision, reviewer and time but not its note.
 */
export function redactedColumns(row: VerificationRow, now: number) {
  const review = row.review as { note?: string } | null;
  const { note: _note, ...kept } = review ?? {};
  return {
    config: redactConfig(row.config),
    narrative: null,
    caseAnalysis: null,
    objectMatch: null,
    locationMatch: null,
    condition: null,
    review: review ? kept : null,
    redactedAt: now,
  } satisfies Partial<VerificationRow>;
}

/** The record as it reads once redacted (what later webhooks and idempotent replays carry). */
export function redactedRecord(record: VerificationRecord, now: number): VerificationRecord {
  return {
    row: { ...record.row, ...redactedColumns(record.row, now) },
    captures: record.captures.map((c) => ({ ...c, location: null, captureIntegrity: redactCaptureIntegrity(c.captureIntegrity) })),
    answers: [],
  };
}

/**
 * A capture-integrity record as redaction keeps it: without the device's label, which can name a
 * person's device ("Jane's iPhone"); the frame measures and the controls describe no one and stay
 * with the verdict they explain. db/redaction.ts removes the same field in D1.
 */
export function redactCaptureIntegrity(value: unknown): unknown {
  if (!value || typeof value !== "object") return value ?? null;
  const record = value as { device?: Record<string, unknown> };
  if (!record.device || typeof record.device !== "object") return value;
  const { label: _label, ...device } = record.device;
  return { ...record, device };
}

/** What the tombstone's D1 batch writes besides the verification row (db/redaction.ts), from the record as loaded and its analyses. */
export function redactionTarget(record: VerificationRecord, analyses: CaptureAnalysisRow[], now: number, baseUrl: string): RedactionTarget {
  const { row } = record;
  const tombstone = presentVerification(redactedRecord(record, now), { baseUrl, audience: "tenant", now });
  return {
    verificationId: row.id,
    tenantId: row.tenantId,
    createdAt: row.createdAt,
    captureIds: record.captures.map((c) => c.id),
    analyses: analyses.map((a) => ({ captureId: a.captureId, result: redactAnalysisResult(a.result) })),
    tombstoneJson: JSON.stringify(tombstone),
    has: {
      answers: record.answers.length > 0,
      timelineText: row.finalizedAt !== null || row.review !== null,
      webhooks: Boolean(row.config.webhook_url),
      // notify_email, or a trial's verdict sent over messaging.
      messages: Boolean(row.config.notify_email) || row.originChannel !== null,
    },
  };
}

/**
 * Whether a verification can be redacted without its Durable Object: it is over, and has not been
 * written for long enough that no upload or analysis can still add to it (no final sweep needed).
 */
export function isSettled(record: VerificationRecord, now: number): boolean {
  return isTerminal(record.row.status) && record.row.redactedAt === null && record.row.updatedAt < now - QUIET_AFTER_MS;
}
