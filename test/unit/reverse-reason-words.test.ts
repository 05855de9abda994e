import { describe, expect, it } from "vitest";
import { explainCode, reasonLabel } from "../../client/console/lib/signals";
import type { VerificationRecord } from "../../src/db/verifications";
import { trialVerdictMessage, verificationEmail } from "../../src/domain/notifications/texts";

/*
 * CONTRACT: `found_online` is true only for a web match. A reverse-search match found in the
 * service's own history is a photo seen before, and the console and the notify email say so
 * rather than "found online".
 */

const verdictWith = (foundOnline: boolean) => ({
  label: "suspicious",
  score: 0.55,
  reason_code: "reverse_search_match" as const,
  signals: { reverse_search: { found_online: foundOnline, match_count: 1, sources: ["service_history"] } },
  assessment: "complete",
  not_assessed: [],
});

function emailReason(verdict: object): string | undefined {
  const row = { id: "vrf_1", tenantId: "ten_1", verdict, status: "completed", failureReason: null, capturesCount: 1, createdAt: 0, completedAt: 1000, expiresAt: 2000 } as unknown as VerificationRecord["row"];
  const { body } = verificationEmail({ row, captures: [], answers: [] }, "completed", "https://verify.example", { tenantId: "ten_1", verifiedDomain: null });
  return body.split("\n").find((line) => line.startsWith("Reason:"));
}

describe("a reverse-search match in words", () => {
  it("is 'found online' only when the web search found it", () => {
    expect(reasonLabel(verdictWith(true))).toBe("found online");
    expect(emailReason(verdictWith(true))).toBe("Reason: the image was already found online");
  });

  it("is a capture seen before when only the service's history matched", () => {
    expect(reasonLabel(verdictWith(false))).toBe("seen in earlier captures");
    expect(emailReason(verdictWith(false))).toBe("Reason: the image was seen before, in an earlier capture");
  });

  it("names both places when the verdict does not say which", () => {
    const bare = { ...verdictWith(false), signals: {} };
    expect(reasonLabel(bare)).toBe("seen before (in earlier captures or online)");
    expect(emailReason(bare)).toBe("Reason: the image was seen before, in earlier captures or online");
  });
});

describe("a verdict that evaluated nothing in words", () => {
  const none = { label: "verified", score: 0, signals: { screen_detection: { status: "not_applicable" } }, assessment: "none", not_assessed: [] };
  const row = (verdict: object) =>
    ({ id: "vrf_1", tenantId: "ten_1", verdict, status: "completed", failureReason: null, capturesCount: 1, createdAt: 0, completedAt: 1000, expiresAt: 2000 }) as unknown as VerificationRecord["row"];

  it("is 'not assessed' in the notify email's subject and verdict line, never 'verified'", () => {
    const { subject, body } = verificationEmail({ row: row(none), captures: [], answers: [] }, "completed", "https://verify.example", { tenantId: "ten_1", verifiedDomain: null });
    expect(subject).toBe("Verification vrf_1 completed: not assessed");
    expect(body).toContain("Verdict: not assessed: no check could be made (stored label verified)");
    // A verdict stored before `assessment` existed, with nothing evaluated, reads the same.
    const { assessment: _a, not_assessed: _n, ...old } = none;
    expect(verificationEmail({ row: row(old), captures: [], answers: [] }, "completed", "https://verify.example", { tenantId: "ten_1", verifiedDomain: null }).subject).toBe(
      "Verification vrf_1 completed: not assessed",
    );
  });

  it("is NOT ASSESSED in the trial's chat message, never VERIFIED", () => {
    const message = trialVerdictMessage({ row: row(none), captures: [], answers: [] });
    expect(message).toContain("NOT ASSESSED");
    expect(message).not.toContain("VERIFIED");
    const checked = trialVerdictMessage({ row: row({ ...none, score: 0.9, assessment: "complete", signals: { screen_detection: { status: "assessed" } } }), captures: [], answers: [] });
    expect(checked).toContain("VERIFIED (confidence 90%)");
  });
});

describe("a capped history lookup in words", () => {
  it("tells the reviewer the count is a floor, not the service's row jargon", () => {
    const words = explainCode("near_duplicate_lookup_capped", "more of the history shares this picture's index bands than one lookup reads (10000 rows)");
    expect(words).toContain("there may be more than counted");
    expect(words).not.toContain("index bands");
  });
});
