import { isUploaded } from "./uploaded";
import { SIGNAL_KEYS } from "../../analysis/verdict";
import { analysesOf, type CaptureAnalysisRow } from "../../db/analyses";
import { captureOwner, depthMapDigests } from "../../db/captures";
import type { Db } from "../../db/client";
import { loadTenantRecord, type CaptureRow, type VerificationRecord } from "../../db/verifications";
import { settings } from "../../env";
import { ApiError } from "../../lib/errors";
import { isId } from "../../lib/ids";
import { signEvidenceUrl, type EvidenceVariant } from "../../storage/evidence-urls";
import type { StoredThumbnail } from "../../analysis/thumbnail";
import { presentAnalysis } from "../../model/evidence/analysis-view";
import { presentCapture, type CaptureUrls, type CaptureView } from "./present";
import { signingKey } from "../../lib/signing-keys";
import { c2paSignerConfig } from "../../lib/c2pa-signer-config";
import { credentialsOffered } from "../credentials/offer";

/** A verification's captures in capture order, each with its analysis and fresh signed URLs (404 for another tenant's). */
export async function listCaptures(env: Env, db: Db, tenantId: string, verificationId: string, now: number): Promise<CaptureView[]> {
  const record = isId("verification", verificationId) ? await loadTenantRecord(db, tenantId, verificationId) : null;
  if (!record) throw ApiError.notFound("verification");
  return presentCaptures(env, db, record, record.captures, now);
}

/** One capture by id (404 for an unknown id and for another tenant's capture alike). */
export async function getCapture(env: Env, db: Db, tenantId: string, captureId: string, now: number): Promise<CaptureView> {
  const owner = isId("capture", captureId) ? await captureOwner(db, captureId) : null;
  const record = owner && owner.tenantId === tenantId ? await loadTenantRecord(db, tenantId, owner.verificationId) : null;
  const capture = record?.captures.find((c) => c.id === captureId);
  if (!record || !capture) throw ApiError.notFound("capture");
  const [view] = await presentCaptures(env, db, record, [capture], now);
  return view!;
}

/** A capture as the evidence report shows it: the API's view without signed URLs, its stored thumbnail and signals. */
export interface ReportedCapture {
  view: CaptureView;
  thumbnail: StoredThumbnail | null;
  signals: Record<string, unknown> | null;
  /** A signed copy (Content Credentials) is offered for it when the deployment has a C2PA signer (domain/credentials/offer.ts). */
  credentialsOffered: boolean;
}

/** The record's captures in capture order for the evidence report (no URL is signed: the report embeds the thumbnails). */
export async function capturesForReport(db: Db, record: VerificationRecord): Promise<ReportedCapture[]> {
  const byCapture = new Map((await analysesOf(db, record.row.id)).map((a) => [a.captureId, a]));
  return record.captures.map((capture) => {
    const analysis = byCapture.get(capture.id);
    const result = analysis?.result as { signals?: Record<string, unknown> } | null | undefined;
    return {
      view: captureView(record, capture, analysis, {}),
      thumbnail: record.row.redactedAt === null ? ((analysis?.thumbnail as StoredThumbnail | null | undefined) ?? null) : null,
      signals: result?.signals ?? null,
      credentialsOffered: record.row.redactedAt === null && credentialsOffered(capture, analysis),
    };
  });
}

async function presentCaptures(env: Env, db: Db, record: VerificationRecord, captures: CaptureRow[], now: number): Promise<CaptureView[]> {
  const { row } = record;
  const [analyses, depthDigests] = await Promise.all([
    analysesOf(db, row.id),
    captures.some((c) => c.forensicBufferKey) ? depthMapDigests(db, row.id) : Promise.resolve(new Map<string, string>()),
  ]);
  const byCapture = new Map(analyses.map((a) => [a.captureId, a]));
  const { baseUrl } = settings(env);
  const key = await signingKey(env, "evidence_urls");
  const sign = (captureId: string, variant: EvidenceVariant, sha256: string) => signEvidenceUrl(key, baseUrl, { captureId, variant, sha256 }, now);
  const signsCredentials = c2paSignerConfig(env) !== null;

  return Promise.all(
    captures.map(async (capture) => {
      const analysis = byCapture.get(capture.id);
      const urls: CaptureUrls = {};
      // A redacted verification has no bytes left to point at.
      if (row.redactedAt === null) {
        urls.image = await sign(capture.id, "image", capture.sha256);
        const thumbnail = analysis?.thumbnail as StoredThumbnail | null | undefined;
        if (thumbnail) urls.thumbnail = await sign(capture.id, "thumbnail", thumbnail.sha256);
        const depthDigest = capture.forensicBufferKey ? depthDigests.get(capture.forensicBufferKey) : undefined;
        if (depthDigest) urls.depthMap = await sign(capture.id, "depth_map", depthDigest);
        // The signed copy states the signals: offered once the analysis completed.
        if (signsCredentials && credentialsOffered(capture, analysis)) urls.credentials = await sign(capture.id, "credentials", capture.sha256);
      }
      return captureView(record, capture, analysis, urls);
    }),
  );
}

/** One capture in its wire shape: its source, its analysis limited to the required signals, these URLs. */
function captureView(record: VerificationRecord, capture: CaptureRow, analysis: CaptureAnalysisRow | undefined, urls: CaptureUrls): CaptureView {
  return presentCapture(capture, {
    source: isUploaded(record, capture) ? "upload" : "live",
    analysis: presentAnalysis(analysis, record.row.config.signals_required.map((name) => SIGNAL_KEYS[name])),
    result: analysis?.result,
    urls,
    redactedAt: record.row.redactedAt,
  });
}
