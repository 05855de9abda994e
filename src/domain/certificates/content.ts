import type { VerificationRecord, VerificationRow } from "../../db/verifications";
import { iso } from "../../lib/time";
import { isUploaded } from "../evidence/uploaded";
import { presentVerdict } from "../../model/verification/present";
import type { VerificationStatus } from "../../model/verification/state";
import { certifiedSignals, type CertifiedSignal, type StoredCaptureSignals } from "./signals";

/*
 * What a certificate says: the share-safe facts of a completed verification, as this service saw
 * and decided them. Built from an allow-list (each field below is chosen), never by removing fields
 * from a richer view, so a field added to the Verification later cannot leak into a certificate.
 * Nothing a person typed or the evidence shows: no answers, metadata, context, config, locations,
 * narrative, case analysis, signal values or evidence, photos or URLs. The one text a tenant typed,
 * its display name, is labelled as declared by it; a domain it proved by DNS is `verified_domain`.
 * docs/api.md "Certificates" is the reader's description; src/schemas/certificates.ts the schema.
 */

/** The JWS `typ` header (RFC 8725 §3.11 explicit typing): a verifier refuses any other token. */
export const CERTIFICATE_TYPE = "verification-certificate+jwt";
/**
 * `schema_version` of the payload; a change of meaning gets a new number. 2 added `tenant.id`,
 * `tenant.verified_domain` and `verdict.signals` (1 had neither); verifiers read both.
 */
export const CERTIFICATE_SCHEMA_VERSION = 2;
export const CERTIFICATE_ALGORITHM = "EdDSA";
/**
 * A certificate expires (`exp`) this long after it was signed: revoking a link stops it from
 * serving, and what it served before stops verifying within this time.
 */
export const CERTIFICATE_LIFETIME_SECONDS = 7 * 86_400;
/**
 * A stored certificate is served while it has more than this left; then the same statement is
 * signed again (the next sequence). So whatever is handed out verifies for at least this long.
 */
export const CERTIFICATE_RENEW_BEFORE_SECONDS = CERTIFICATE_LIFETIME_SECONDS / 2;

export interface CertifiedCapture {
  id: string;
  step_key: string;
  /**
   * `live`: submitted through the capture link for an image step (the service cannot tell a camera
   * from a file chosen there); `uploaded`: an existing file (an upload step, or audit mode).
   */
  kind: "live" | "uploaded";
  /** When the service accepted the capture (its clock, not the device's). */
  received_at: string;
  /** SHA-256 (hex) of the bytes exactly as received and stored. */
  sha256: string;
}

/** The payload without its issue (`iat`, `sequence`): what decides whether a new certificate is needed. */
export interface CertifiedContent {
  iss: string;
  schema_version: typeof CERTIFICATE_SCHEMA_VERSION;
  verification: {
    id: string;
    /** `display_name` as the tenant declared it; `verified_domain` only when it proved the domain by DNS. */
    tenant: { id: string; display_name: string; verified_domain?: string };
    status: VerificationStatus;
    created_at: string;
    completed_at: string;
    finalized_at?: string;
    redacted_at?: string;
    verdict: { label: string; reason_code?: string; assessment: string; signals: Record<string, CertifiedSignal> };
    review?: { decision: string; reviewed_at: string };
    record_seal?: { algorithm: "sha256"; hash: string };
    captures: CertifiedCapture[];
  };
}

export interface CertificatePayload extends CertifiedContent {
  /** Issued at (unix seconds). */
  iat: number;
  /** Expires at (unix seconds): `iat` + CERTIFICATE_LIFETIME_SECONDS. */
  exp: number;
  /** 1 for a verification's first certificate, then +1 for each one signed after it. */
  sequence: number;
}

/** The tenant as a certificate names it. */
export interface CertifiedTenant {
  id: string;
  displayName: string;
  verifiedDomain: string | null;
}

type CertifiableRow = Pick<VerificationRow, "status" | "verdict" | "completedAt">;

/** Why a verification has no certificate (yet or ever); null when it has one. */
export function uncertifiable(row: CertifiableRow): "not_completed" | "nothing_evaluated" | null {
  if (row.status !== "completed" || row.verdict === null || row.completedAt === null) return "not_completed";
  // Nothing evaluated is never a verdict: `assessment: none` (every signal not applicable) is not certified.
  if ((presentVerdict(row.verdict) as { assessment?: string }).assessment === "none") return "nothing_evaluated";
  return null;
}

/** A verification gets certificates once it is completed with a verdict that evaluated something. */
export function isCertifiable(row: CertifiableRow): boolean {
  return uncertifiable(row) === null;
}

/** The 409 a read or a link of an uncertifiable verification answers. */
export const UNCERTIFIABLE_MESSAGES = {
  not_completed: "A certificate is issued when the verification completes with its verdict; there is none yet.",
  nothing_evaluated: "This verification gets no certificate: nothing was evaluated (its verdict's assessment is none, e.g. every capture was existing content).",
} as const;

/** The certified content of a certifiable verification (throws otherwise: callers check `isCertifiable`). */
export function certifiedContent(record: VerificationRecord, tenant: CertifiedTenant, analyses: readonly StoredCaptureSignals[], issuer: string): CertifiedContent {
  const { row } = record;
  if (!isCertifiable(row)) throw new Error(`verification ${row.id} is not certifiable (status ${row.status})`);
  // As the API serves it (`assessment` derived for verdicts stored before it, or before `none`).
  const verdict = presentVerdict(row.verdict) as { label: string; reason_code?: string; assessment: string; signals?: Record<string, unknown> };
  // Only a review of the verification as it ended: one recorded while it still took evidence would
  // stand in the certificate beside evidence sent after it (the API and console still show it).
  const latestReview = row.review as { decision: string; at: number } | null;
  const review = latestReview && latestReview.at >= row.completedAt! ? latestReview : null;
  return {
    iss: issuer,
    schema_version: CERTIFICATE_SCHEMA_VERSION,
    verification: {
      id: row.id,
      tenant: { id: tenant.id, display_name: tenant.displayName, ...(tenant.verifiedDomain ? { verified_domain: tenant.verifiedDomain } : {}) },
      status: row.status,
      created_at: iso(row.createdAt),
      completed_at: iso(row.completedAt!),
      ...(row.finalizedAt !== null ? { finalized_at: iso(row.finalizedAt) } : {}),
      ...(row.redactedAt !== null ? { redacted_at: iso(row.redactedAt) } : {}),
      verdict: {
        label: verdict.label,
        ...(verdict.reason_code ? { reason_code: verdict.reason_code } : {}),
        assessment: verdict.assessment,
        signals: certifiedSignals(record, verdict.signals ?? {}, analyses),
      },
      ...(review ? { review: { decision: review.decision, reviewed_at: iso(review.at) } } : {}),
      ...(row.sealHash ? { record_seal: { algorithm: "sha256" as const, hash: row.sealHash } } : {}),
      captures: record.captures.map((c) => ({
        id: c.id,
        step_key: c.stepKey,
        kind: isUploaded(record, c) ? ("uploaded" as const) : ("live" as const),
        received_at: iso(c.createdAt),
        sha256: c.sha256,
      })),
    },
  };
}

