import { describe, expect, it } from "vitest";
import { captureLinkFact } from "../../client/console/lib/capture-link";

// The console's summary said "Link expires <date>" of a failed or expired verification, as if its
// capture link were still open (bot/PDF probe of 2026-12-07); the report already said it as below.
describe("the console's capture link fact", () => {
  const now = Date.parse("2026-12-07T12:00:00Z");
  const base = { completed_at: undefined, redacted_at: undefined, expires_at: "2026-12-09T12:00:00Z" } as const;

  it("says the link is open, and until when, only while it takes captures", () => {
    for (const status of ["pending", "partially_captured", "abandoned"] as const) {
      expect(captureLinkFact({ ...base, status }, now)).toEqual({ term: "Capture link", value: expect.stringMatching(/^open until 9 Dec 2026/) });
    }
    expect(captureLinkFact({ ...base, status: "pending", redacted_at: "2026-12-07T11:00:00Z" }, now).value).toBe("closed");
  });

  it("says it closed, and when it expired, otherwise; a completed one says when it completed", () => {
    expect(captureLinkFact({ ...base, status: "failed" }, now)).toEqual({ term: "Capture link", value: "closed" });
    expect(captureLinkFact({ ...base, status: "expired", expires_at: "2026-12-06T12:00:00Z" }, now).value).toMatch(/^closed \(expired 6 Dec 2026/);
    expect(captureLinkFact({ ...base, status: "pending", expires_at: "2026-12-06T12:00:00Z" }, now).value).toMatch(/^closed \(expired/);
    expect(captureLinkFact({ ...base, status: "completed", completed_at: "2026-12-07T10:00:00Z" }, now)).toEqual({ term: "Completed", value: expect.stringMatching(/^7 Dec 2026/) });
  });
});
