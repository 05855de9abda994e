import { describe, expect, it } from "vitest";
import { formatDateTime } from "../../client/console/lib/format";

describe("the console's dates", () => {
  // Console probe of 2026-12-07: "7 Dec 2026, 03:54" in New York beside a certificate's "08:54 UTC".
  it("say their time zone, as the certificate and the report do", () => {
    expect(formatDateTime("2026-12-07T08:54:06Z")).toBe("7 Dec 2026, 08:54 UTC");
    expect(formatDateTime(undefined)).toBe("—");
  });
});
