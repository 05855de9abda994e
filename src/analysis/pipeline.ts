import { analysesOf, indexAndFindNearDuplicates, recordForAnalysis, saveAnalysisThenSettling } from "../db/analyses";
import { createDb, type Db } from "../db/client";
import { loadRecord, settlingColumns, type CaptureRow, type SettlingColumns, type VerificationRecord } from "../db/verifications";
import { isTerminal } from "../model/verification/state";
import { verificationObject } from "../durable-objects/verification-client";
import { analysisProviders } from "../providers/analysis";
import { GeocoderUnavailable, geocodeCached, geocoderGate } from "../providers/geocoder";
import { NO_VISION_PROVIDER } from "../providers/vision";
import { readEvidence } from "../storage/evidence";
import { analyzeImage, type CaptureAnalysisResult } from "./analyze-image";
import { storeEvidenceThumbnail, type StoredThumbnail } from "./thumbnail";
import { aggregateCondition, aggregateObjectMatch } from "./independent-checks";
import { matchLocation, type GeocodedPoint, type ObservedFix } from "./signals/location";
import { aggregateVerdict, unreadableEvidence } from "./verdict";
import { failVerification } from "../domain/verification/fail";
import { isUploaded } from "../domain/evidence/uploaded";
import { DEFAULT_CHANNEL } from "./capabilities";
import type { CaptureIntegrity } from "../schemas/capture-integrity";
import { receivedBurst } from "./burst/received";
import { CaseNotReady, runCaseAnalysis } from "./case-runner";

/** Evidence that is missing from storage: retried by the queue, then the verification fails. */
export class EvidenceUnreadable extends Error {
  override name = "EvidenceUnreadable";
}

/**
 * Analyses one capture: its bytes are read from R2 once, every signal runs, the result is stored
 * (first write wins, so duplicate deliveries are harmless), then the verification is settled if this
 * was the last piece it waited for. Three D1 round trips in all: the record with whether the capture
 * was analysed already; the near-duplicate index's write and lookup; the analysis's write with the
 * settling columns read after it.
 */
export async function analyzeCapture(env: Env, verificationId: string, captureId: string, options: SettleOptions = {}): Promise<void> {
  const db = createDb(env.DB);
  const { record, analysed, aiDetectionProvider } = await recordForAnalysis(db, verificationId, captureId);
  const capture = record?.captures.find((c) => c.id === captureId);
  if (!record || !capture || record.row.redactedAt !== null) return;
  if (analysed || isTerminal(record.row.status)) {
    // Nothing written: the row just read (after the analysis it found, if any) decides settling.
    await settleFrom(env, verificationId, record.row, options);
    await recaseIfFinalized(env, record);
    return;
  }
  const { result, thumbnail } = await runAnalysis(env, db, record, capture, aiDetectionProvider);
  const settling = await saveAnalysisThenSettling(db, { captureId, verificationId, status: "completed", result, error: null, analyzedAt: Date.now(), thumbnail });
  await settleFrom(env, verificationId, settling, options);
  await recaseIfFinalized(env, record);
}

/**
 * A capture analysed after its verification was finalized (finalize leaves the flow open): the case
 * analysis runs again so that it reads this capture too (a no-op if it already did). Each analysis
 * is stored before this runs, so the last capture to finish finds every analysis in and runs it; the
 * others find one missing (`CaseNotReady`) and leave it to that one.
 */
async function recaseIfFinalized(env: Env, record: VerificationRecord): Promise<void> {
  if (record.row.finalizedAt === null || record.row.redactedAt !== null) return;
  try {
    await runCaseAnalysis(env, record.row.id);
  } catch (err) {
    if (!(err instanceof CaseNotReady)) throw err;
  }
}

async function runAnalysis(
  env: Env,
  db: Db,
  record: VerificationRecord,
  capture: CaptureRow,
  aiProviderSetting: string | null,
): Promise<{ result: CaptureAnalysisResult; thumbnail: StoredThumbnail | null }> {
  const bytes = await readEvidence(env.EVIDENCE, capture.imageKey);
  if (!bytes) throw new EvidenceUnreadable(`capture ${capture.id}: no bytes at ${capture.imageKey}`);
  const depthPng = capture.forensicBufferKey ? await readEvidence(env.EVIDENCE, capture.forensicBufferKey) : null;
  if (capture.forensicBufferKey && !depthPng) throw new EvidenceUnreadable(`capture ${capture.id}: no depth map at ${capture.forensicBufferKey}`);
  const { config } = record.row;
  const now = Date.now();
  const providers = analysisProviders(env);
  // The tenant's `ai_detection_provider` decides which detection provider sees its images, if any.
  const ai = providers.aiProviderFor(aiProviderSetting);
  const channel = config.capture_channel ?? DEFAULT_CHANNEL;
  const integrity = (capture.captureIntegrity as CaptureIntegrity | null) ?? null;
  // The burst is read only where it decides something: a live capture of a hosted-page verification.
  const burst = channel === "hosted_page" && integrity?.schema_version === 2 && !isUploaded(record, capture) ? await receivedBurst({ env, db, capture, captures: record.captures, now }, integrity) : null;
  let thumbnail: StoredThumbnail | null = null;
  const result = await analyzeImage(
    {
      captureId: capture.id,
      tenantId: capture.tenantId,
      bytes,
      mediaType: capture.contentType,
      uploaded: isUploaded(record, capture),
      depthPng,
      channel,
      captureIntegrity: integrity,
      burst,
      location: capture.location,
      clientCapturedAt: capture.clientCapturedAt,
      required: config.signals_required,
      ...(config.context ? { context: config.context } : {}),
      ...(config.expected_object ? { expectedObject: config.expected_object } : {}),
      ...(config.condition_aspects ? { conditionAspects: config.condition_aspects } : {}),
    },
    {
      searchHistory: (fingerprint) => indexAndFindNearDuplicates(db, { captureId: capture.id, verificationId: record.row.id, tenantId: capture.tenantId, fingerprint, now }),
      vision: providers.vision,
      web: providers.web,
      // A pixel detector would plug in here once `pixels` is no longer reserved (schemas/ai-methods.ts).
      aiPixels: null,
      aiProvider: ai.provider,
      aiProviderWithheld: ai.withheld,
      trustedSigners: providers.trustedSigners,
      testMarkers: providers.testMarkers,
      thumbnail: async (decoded) => {
        thumbnail = await storeEvidenceThumbnail(env.EVIDENCE, capture, decoded, bytes);
      },
    },
  );
  return { result, thumbnail };
}

/**
 * Writes the verdict once the evidence is complete (`ready_at`) and every capture is analysed. Called
 * after each capture's analysis and on `verification.ready`; whichever comes last does the work, and
 * a second writer is refused by the Durable Object (the verdict is decided once).
 */
export interface SettleOptions {
  /** Last tries: a provider outage (geocoder) degrades the check instead of retrying again. */
  degradeProviders?: boolean;
}

export async function settleVerification(env: Env, verificationId: string, options: SettleOptions = {}): Promise<void> {
  // Most calls follow a capture's analysis while the end user is still capturing: the row alone says so.
  await settleFrom(env, verificationId, await settlingColumns(createDb(env.DB), verificationId), options);
}

/** `settleVerification` from settling columns read after the caller's last write (null: no such verification). */
async function settleFrom(env: Env, verificationId: string, settling: SettlingColumns | null, options: SettleOptions): Promise<void> {
  if (!settling || !awaitsVerdict(settling)) return;
  const db = createDb(env.DB);
  const record = await loadRecord(db, verificationId);
  if (!record || !awaitsVerdict(record.row)) return;
  const rows = await analysesOf(db, verificationId);
  const byCapture = new Map(rows.map((r) => [r.captureId, r]));
  if (record.captures.some((c) => !byCapture.has(c.id))) return;
  const failed = rows.find((r) => r.status === "failed");
  if (failed) {
    await failVerification(env, verificationId, `analysis_failed: ${failed.error ?? "capture could not be analysed"}`);
    return;
  }
  const results = record.captures.map((c) => byCapture.get(c.id)!.result as CaptureAnalysisResult);
  if (unreadableEvidence(results.map((r) => ({ capture_id: r.capture_id, uploaded: r.uploaded, signals: r.signals })))) {
    await failVerification(env, verificationId, "unreadable_evidence: no live capture is an image any decoder can read");
    return;
  }
  const outcome = await verdictAndChecks(env, db, record, results, options);
  const result = await verificationObject(env, verificationId).complete(verificationId, outcome);
  if (!result.ok && result.error.code !== "invalid_state") throw new Error(`complete refused: ${result.error.message}`);
}

/** The evidence is complete (`ready_at`) and no verdict was written yet (nor was it redacted). */
function awaitsVerdict(row: SettlingColumns): boolean {
  return !isTerminal(row.status) && row.readyAt !== null && row.redactedAt === null;
}

export async function verdictAndChecks(env: Env, db: Db, record: VerificationRecord, results: CaptureAnalysisResult[], options: SettleOptions = {}) {
  const { config } = record.row;
  const verdict = aggregateVerdict(
    config.signals_required,
    results.map((r) => ({ capture_id: r.capture_id, uploaded: r.uploaded, signals: r.signals })),
  );
  const outcome: { verdict: unknown; objectMatch?: unknown; locationMatch?: unknown; condition?: unknown } = { verdict };
  if (config.expected_object) {
    outcome.objectMatch = aggregateObjectMatch(config.expected_object, results.map((r) => r.vision?.object && !r.vision.error ? r.vision.object : null));
  }
  if (config.condition_aspects) {
    const reason = results.find((r) => r.vision?.error)?.vision?.error ?? NO_VISION_PROVIDER;
    outcome.condition = aggregateCondition(config.condition_aspects, results.map((r) => r.vision?.condition ?? null), `Could not be assessed: ${reason}.`);
  }
  if (config.expected_location) {
    const live = results.filter((r) => !r.uploaded && r.location);
    const fixes = (live.length > 0 ? live : results.filter((r) => r.location)).map((r) => r.location as ObservedFix);
    // Resolved even when nothing can be compared (no fix, a mock fix): `expected_point` says where the
    // address is either way (docs/api.md), and the cache makes a repeated address free.
    let point: GeocodedPoint | null = null;
    try {
      point = await geocodeCached(db, analysisProviders(env).geocoder, geocoderGate(env), config.expected_location);
    } catch (err) {
      // Retry while there are tries left; on the last ones the address stays ungeocoded.
      if (!(err instanceof GeocoderUnavailable) || !options.degradeProviders) throw err;
    }
    const { evidence: _evidence, ...match } = matchLocation(config.expected_location, fixes, point);
    outcome.locationMatch = match;
  }
  return outcome;
}

