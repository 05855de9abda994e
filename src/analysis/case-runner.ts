import { analysesOf, type CaptureAnalysisRow } from "../db/analyses";
import { createDb } from "../db/client";
import { loadRecord, type VerificationRecord } from "../db/verifications";
import { unwrap, verificationObject } from "../durable-objects/verification-client";
import { caseAnalysisCovers } from "../model/verification/case-coverage";
import { analysisProviders } from "../providers/analysis";
import type { VisionJudge } from "../providers/vision";
import { readEvidence } from "../storage/evidence";
import type { CaptureAnalysisResult } from "./analyze-image";
import { analyzeCase, type CaseCapture, type NarrativeJudgement } from "./case-analysis";
import type { StoredThumbnail } from "./thumbnail";

/** The per-capture analyses are not all stored yet: the queued job retries later. */
export class CaseNotReady extends Error {
  override name = "CaseNotReady";
}

/** At most this many captures are shown to the vision provider for the narrative (cost bound). */
const NARRATIVE_CAPTURES = 6;

/**
 * Runs the case analysis of a finalized verification over every capture it holds and records it
 * through its Durable Object. A run when the stored analysis already read each capture is a no-op;
 * one after evidence received since finalize replaces it (`caseAnalysisCovers`). Returns the updated
 * record, or null when there is nothing to do (unknown or not finalized).
 */
export async function runCaseAnalysis(env: Env, verificationId: string): Promise<VerificationRecord | null> {
  const db = createDb(env.DB);
  const record = await loadRecord(db, verificationId);
  if (!record || record.row.redactedAt !== null || record.row.finalizedAt === null || record.row.narrative === null) return null;
  const rows = new Map((await analysesOf(db, verificationId)).map((r) => [r.captureId, r]));
  if (record.captures.some((c) => !rows.has(c.id))) throw new CaseNotReady(`verification ${verificationId}: captures still being analysed`);
  const captures: CaseCapture[] = record.captures
    .filter((c) => rows.get(c.id)!.status === "completed")
    .map((c) => ({ capture_id: c.id, seq: c.seq, created_at: c.createdAt, analysis: rows.get(c.id)!.result as CaptureAnalysisResult }));
  const read = captures.map((c) => c.capture_id);
  if (record.row.caseAnalysis && caseAnalysisCovers(record.row.caseAnalysis, read)) return record;
  const providers = analysisProviders(env);
  const vision = providers.vision;
  const narrative = vision ? await judgeNarrative(env, vision, record, rows, record.row.narrative) : null;
  const caseAnalysis = analyzeCase({
    captures,
    narrative: narrative?.judgements ?? null,
    narrativeModel: narrative ? `${vision!.name}:${narrative.model}` : null,
    webSearched: providers.web !== null,
  });
  const failedCount = record.captures.length - captures.length;
  if (failedCount > 0) caseAnalysis.uncertainty_areas.unshift(`${failedCount} capture(s) could not be analysed and were left out.`);
  caseAnalysis.uncertainty_areas = caseAnalysis.uncertainty_areas.slice(0, 12);
  const recorded = await verificationObject(env, verificationId).recordCaseAnalysis(verificationId, caseAnalysis, read);
  // Redacted while this ran: the analysis is dropped with the rest of the evidence.
  if (!recorded.ok && recorded.error.code === "redacted") return null;
  return unwrap(recorded).record;
}

/**
 * The vision provider sees each capture's evidence thumbnail (the ≤ 480 px JPEG its analysis
 * stored), never the original: finalize runs this in the API Worker, which must not decode a 50 MP
 * photo beside the capture links it serves. A capture without a thumbnail (undecodable) is skipped.
 */
async function judgeNarrative(env: Env, vision: VisionJudge, record: VerificationRecord, rows: Map<string, CaptureAnalysisRow>, narrative: string): Promise<{ judgements: NarrativeJudgement[]; model: string }> {
  const judgements: NarrativeJudgement[] = [];
  let model = "unknown";
  for (const capture of record.captures.slice(0, NARRATIVE_CAPTURES)) {
    const thumbnail = rows.get(capture.id)?.thumbnail as StoredThumbnail | null | undefined;
    const image = thumbnail ? await readEvidence(env.EVIDENCE, thumbnail.key) : null;
    if (!image) continue;
    const judgement = await vision.judge({ image, context: { kind: "insurance or inspection claim", summary: narrative } });
    model = judgement.model;
    const context = judgement.context;
    if (!context || judgement.error) continue;
    judgements.push({ capture_id: capture.id, status: context.status, confidence: context.confidence, reasons: context.reasons });
  }
  return { judgements, model };
}
