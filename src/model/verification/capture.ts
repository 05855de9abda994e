import type { UploadDigest } from "../../db/uploads";
import type { CaptureRow } from "../../db/verifications";
import type { MediaType } from "../../schemas/steps";
import type { EvidenceStep } from "./config";

/** A capture the Worker checked and stored, as the verification's Durable Object is asked to add it. */
export interface CaptureInput {
  captureId: string;
  stepKey?: string;
  imageKey: string;
  mediaType: MediaType;
  sizeBytes: number;
  sha256: string;
  surface?: string;
  clientCapturedAt?: number;
  location?: unknown;
  forensicBufferKey?: string;
  attestation?: unknown;
  /** The capture page's capture-integrity record, as validated (schemas/capture-integrity.ts). */
  captureIntegrity?: unknown;
  /** direct uploads this capture inspected first: recorded in the capture's commit */
  uploads?: UploadDigest[];
}

/** The capture's row once `acceptCapture` chose its step and numbered it. */
export function captureRow(
  owner: { verificationId: string; tenantId: string },
  input: CaptureInput,
  accepted: { step: EvidenceStep; seq: number },
  now: number,
): CaptureRow {
  return {
    id: input.captureId,
    verificationId: owner.verificationId,
    tenantId: owner.tenantId,
    stepKey: accepted.step.key,
    stepType: accepted.step.type,
    seq: accepted.seq,
    imageKey: input.imageKey,
    contentType: input.mediaType,
    sizeBytes: input.sizeBytes,
    sha256: input.sha256,
    surface: input.surface ?? null,
    clientCapturedAt: input.clientCapturedAt ?? null,
    location: input.location ?? null,
    forensicBufferKey: input.forensicBufferKey ?? null,
    attestation: input.attestation ?? null,
    captureIntegrity: input.captureIntegrity ?? null,
    createdAt: now,
  };
}
