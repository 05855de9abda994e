import type { VerificationRecord, VerificationRow } from "../../db/verifications";
import { iso } from "../../lib/time";
import { isUploaded } from "../evidence/uploaded";
import { presentVerdict } from "../../model/verification/present";
import type { VerificationStatus } from "../../model/verification/state";

/*
 * What a certificate says: the share-safe facts of a completed verification, as this service saw
 * and decided them. Built from an allow-list (each field below is chosen), never by removing fields
 * from a richer view, so a field added to the Verification later cannot leak into a certificate.
 * Nothing a person typed or the evidence shows: no answers, metadata, context, config, locations,
 * narrative, case analysis, signal details, photos or URLs. docs/api.md "Certificates" is the
 * reader's description; src/schemas/certificates.ts the schema.
 */

/** The JWS `typ` header (RFC 8725 §3.11 explicit typing): a verifier refuses any other token. */
export const CERTIFICATE_TYPE = "verification-certificate+jwt";
/** `schema_version` of the payload; a change of meaning gets a new number. */
export const CERTIFICATE_SCHEMA_VERSION = 1;
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
  /** `live`: taken on the capture page's camera; `uploaded`: an existing file (upload step or audit mode). */
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
    tenant: { display_name: string };
    status: VerificationStatus;
    created_at: string;
    completed_at: string;
    finalized_at?: string;
    redacted_at?: string;
    verdict: { label: string; reason_code?: string; assessment: string };
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

/** A verification gets certificates once it is completed with its verdict; until then there is nothing to certify. */
export function isCertifiable(row: Pick<VerificationRow, "status" | "verdict" | "completedAt">): boolean {
  return row.status === "completed" && row.verdict !== null && row.completedAt !== null;
}

/** The certified content of a certifiable verification (throws otherwise: callers check `isCertifiable`). */
export function certifiedContent(record: VerificationRecord, tenantName: string, issuer: string): CertifiedContent {
  const { row } = record;
  if (!isCertifiable(row)) throw new Error(`verification ${row.id} is not certifiable (status ${row.status})`);
  // As the API serves it (`assessment` derived for verdicts stored before it, or before `none`).
  const verdict = presentVerdict(row.verdict) as { label: string; reason_code?: string; assessment: string };
  const review = row.review as { decision: string; at: number } | null;
  return {
    iss: issuer,
    schema_version: CERTIFICATE_SCHEMA_VERSION,
    verification: {
      id: row.id,
      tenant: { display_name: tenantName },
      status: row.status,
      created_at: iso(row.createdAt),
      completed_at: iso(row.completedAt!),
      ...(row.finalizedAt !== null ? { finalized_at: iso(row.finalizedAt) } : {}),
      ...(row.redactedAt !== null ? { redacted_at: iso(row.redactedAt) } : {}),
      verdict: {
        label: verdict.label,
        ...(verdict.reason_code ? { reason_code: verdict.reason_code } : {}),
        assessment: verdict.assessment,
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

