/**
 * The domain events after which a verification's certificate is signed (again): completion, and the
 * later changes a certificate states (review, finalize, redaction). The events consumer signs on
 * them; `currentCertificate` signs nothing when the certified content did not change.
 */
export const CERTIFIED_EVENT_NAMES = ["verification.completed", "verification.reviewed", "verification.case.completed", "verification.redacted"] as const;
