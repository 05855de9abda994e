import { describe, expect, it } from "vitest";
import { CERTIFICATE_PAGE_FILES, compressedSizes, PAGE_FILES } from "../../scripts/build-page.mjs";

/** The capture page is opened on phones over poor connections: its JS and CSS stay small. */
const BUDGET_BYTES = 60 * 1024;

describe("capture page size budget", () => {
  it(`keeps JS + CSS under ${BUDGET_BYTES / 1024} KB gzip-compressed`, () => {
    const sizes = compressedSizes(); // of the build made by this suite's globalSetup
    expect(Object.keys(sizes)).toEqual(PAGE_FILES);
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    expect(Object.values(sizes).every((s) => s > 0)).toBe(true);
    expect(total).toBeLessThan(BUDGET_BYTES);
  });
});

/** Whoever receives a certificate link may be on a phone too: the page that verifies it stays small. */
const CERTIFICATE_BUDGET_BYTES = 30 * 1024;

describe("certificate page size budget", () => {
  it(`keeps JS + CSS under ${CERTIFICATE_BUDGET_BYTES / 1024} KB gzip-compressed`, () => {
    const sizes = compressedSizes(CERTIFICATE_PAGE_FILES);
    expect(Object.values(sizes).every((s) => s > 0)).toBe(true);
    expect(Object.values(sizes).reduce((a, b) => a + b, 0)).toBeLessThan(CERTIFICATE_BUDGET_BYTES);
  });
});
