import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { memberships, tenants } from "../../db/schema";
import { loadTenantRecord, timelineEnds } from "../../db/verifications";
import { readEvidence } from "../../storage/evidence";
import { settings } from "../../env";
import { ApiError } from "../../lib/errors";
import { isId } from "../../lib/ids";
import { presentVerification } from "../../model/verification/present";
import { findUser, userLabel, type UserRow } from "../accounts/users";
import { certifiedSignals } from "../certificates/signals";
import { isActiveLinkOf } from "../certificates/links";
import { certificateLinkUrl } from "../certificates/present";
import { capturesForReport, type ReportedCapture } from "../evidence/captures";
import { c2paSignerConfig } from "../../lib/c2pa-signer-config";
import { reportEvents, type ReportCapture, type ReportContent, type VerificationView } from "./content";

/** A printed timeline shows its first and last this many entries, and how many lie between. */
export const TIMELINE_ENDS = 40;

export interface ReportRequest {
  tenantId: string;
  verificationId: string;
  audience: "tenant" | "operator";
  /** A certificate link token the caller holds, to print with its QR code (400 unless it is an active link of this verification). */
  certificateLink?: string;
  now: number;
}

/**
 * Everything the report of one of the tenant's verifications shows (404 for an unknown id and for
 * another tenant's alike), read in a handful of D1 queries and one R2 read per thumbnail.
 */
export async function gatherReport(env: Env, db: Db, request: ReportRequest): Promise<ReportContent> {
  const { tenantId, verificationId, now } = request;
  const record = isId("verification", verificationId) ? await loadTenantRecord(db, tenantId, verificationId) : null;
  if (!record) throw ApiError.notFound("verification");
  const redacted = record.row.redactedAt !== null;
  const { baseUrl } = settings(env);

  let certificateLink: string | null = null;
  if (request.certificateLink !== undefined) {
    if (!(await isActiveLinkOf(db, tenantId, verificationId, request.certificateLink))) {
      const why = "Not an active certificate link of this verification (the token `cert_…` of a URL from POST /v1/verifications/{id}/certificate-link).";
      throw ApiError.invalid({ certificate_link: why }, why);
    }
    certificateLink = certificateLinkUrl(baseUrl, request.certificateLink);
  }

  const stored = record.row.review as { by?: string } | null;
  const [tenant, captures, events, reviewer] = await Promise.all([
    db.select({ id: tenants.id, displayName: tenants.displayName, verifiedDomain: tenants.verifiedDomain }).from(tenants).where(eq(tenants.id, tenantId)).get(),
    capturesForReport(db, record),
    timelineEnds(db, verificationId, TIMELINE_ENDS),
    stored?.by && !redacted ? currentMember(db, tenantId, stored.by) : Promise.resolve(undefined),
  ]);
  const view = presentVerification(record, { baseUrl, audience: request.audience, now }) as VerificationView;
  const verdictSignals = (view.verdict?.signals ?? {}) as Record<string, unknown>;

  return {
    generatedAt: new Date(now).toISOString(),
    issuer: baseUrl,
    tenant: { id: tenantId, displayName: tenant?.displayName ?? "", verifiedDomain: tenant?.verifiedDomain ?? null },
    verification: redacted ? redactedView(view) : view,
    signals: view.verdict ? certifiedSignals(record, verdictSignals, captures.map((c) => ({ captureId: c.view.id, signals: c.signals }))) : {},
    captures: await Promise.all(captures.map((c) => reportCapture(env, c, redacted))),
    reviewer: reviewer ? userLabel(reviewer) : null,
    timeline: { first: reportEvents(events.head), between: events.between, last: reportEvents(events.tail) },
    certificateLinkUrl: certificateLink,
    redacted,
  };
}

/**
 * The review's author while they are still a member of the tenant, else undefined: a report names
 * a reviewer by their address only while that person belongs to the tenant (one who left, or was
 * removed, is "a former member").
 */
async function currentMember(db: Db, tenantId: string, userId: string): Promise<UserRow | undefined> {
  const member = await db.select({ userId: memberships.userId }).from(memberships).where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId))).get();
  return member ? findUser(db, userId) : undefined;
}

async function reportCapture(env: Env, capture: ReportedCapture, redacted: boolean): Promise<ReportCapture> {
  const { image_url: _i, thumbnail_url: _t, depth_map_url: _d, credentials_url: _c, location, capture_integrity: _ci, attestation: _a, ...rest } = capture.view;
  const view = redacted ? rest : { ...rest, ...(location ? { location } : {}) };
  const credentials = !redacted && capture.credentialsOffered && c2paSignerConfig(env) !== null;
  if (redacted || !capture.thumbnail) return { view, image: null, credentials };
  const jpeg = await readEvidence(env.EVIDENCE, capture.thumbnail.key);
  return { view, image: jpeg ? { jpeg, width: capture.thumbnail.width, height: capture.thumbnail.height } : null, credentials };
}

/**
 * What a redacted verification's report may show: ids, dates, status, the verdict, the review's
 * decision, the seal. Not the config (step texts, expected location, metadata, contact fields),
 * answers, narrative, case analysis, location, object or condition checks, or the review's note.
 */
function redactedView(view: VerificationView): VerificationView {
  const { config, answers: _a, narrative: _n, case_analysis: _c, location_match: _l, object_match: _o, condition: _co, review, progress: _p, ...kept } = view;
  return {
    ...kept,
    config: { ...config, steps: [], metadata: undefined, context: undefined, notify_email: undefined, webhook_url: undefined, expected_location: undefined, expected_object: undefined, condition_aspects: undefined },
    ...(review ? { review: { decision: review.decision, by: "", at: review.at } } : {}),
  } as VerificationView;
}
