import type { CaptureRow, VerificationRecord } from "../../db/verifications";

/** Existing content (an upload step, or a verification in audit mode), not a live capture. */
export function isUploaded(record: VerificationRecord, capture: CaptureRow): boolean {
  return capture.stepType === "upload" || record.row.config.mode === "audit";
}
