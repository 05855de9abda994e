/**
 * Finalize leaves the status as it is, so a verification finalized while it still takes evidence
 * keeps taking it: its case analysis must then be run again over the captures received since.
 * A case analysis lists every capture it read (`analysis[].capture_id`; captures whose analysis
 * failed are left out, and then the verification fails), so it covers a set of captures when it
 * lists each of them.
 */
export function caseAnalysisCovers(stored: unknown, captureIds: readonly string[]): boolean {
  if (stored === null || typeof stored !== "object") return false;
  const listed = (stored as { analysis?: unknown }).analysis;
  if (!Array.isArray(listed)) return false;
  const read = new Set(listed.map((entry) => (entry as { capture_id?: unknown } | null)?.capture_id));
  return captureIds.every((id) => read.has(id));
}
