import { describe, expect, it } from "vitest";
import { I18n } from "../../client/capture-page/i18n";
import { en } from "../../src/capture-page/strings/en";

/* Probe of 2026-12-04: sizes were divided by 1024 and labelled MB, so a 2 000 000-byte limit read "1.9 MB". */
describe("the capture page's sizes", () => {
  const i18n = new I18n("en", en);

  it("are decimal, as a phone shows a file's size", () => {
    expect(i18n.bytes(2_000_000)).toBe("2 MB");
    expect(i18n.bytes(3_000_004)).toBe("3 MB");
    expect(i18n.bytes(10_485_760)).toBe("10 MB");
    expect(i18n.bytes(1_500_000)).toBe("1.5 MB");
    expect(i18n.bytes(999)).toBe("999 B");
    expect(i18n.bytes(64_000)).toBe("64 KB");
  });

  it("a file just over a limit never reads as the limit itself", () => {
    expect(i18n.bytesPair(2_000_001, 2_000_000)).toEqual(["2,000,001 B", "2,000,000 B"]);
    expect(i18n.bytesPair(2_600_000, 2_000_000)).toEqual(["2.6 MB", "2 MB"]);
  });
});
