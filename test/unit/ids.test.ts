import { describe, expect, it } from "vitest";
import { idPattern, idTime, newId, type IdKind } from "../../src/lib/ids";

/** Every kind that is, or is derived into, a credential: the capture link, upload keys, sign-in records. */
const CREDENTIAL_KINDS: IdKind[] = ["verification", "capture", "magicLink", "otp", "tenant", "user", "apiKey", "template"];

describe("ids", () => {
  it.each(CREDENTIAL_KINDS)("%s: 1 000 ids minted in one millisecond share no 40-bit random prefix", (kind) => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0, 0);
    const prefixes = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = newId(kind, now);
      expect(id).toMatch(idPattern(kind));
      expect(idTime(id)).toBe(now);
      const body = id.slice(id.indexOf("_") + 1);
      prefixes.add(body.slice(10, 18)); // the random part's first 8 characters = 40 bits
    }
    expect(prefixes.size).toBe(1000);
  });

  it("the random part is uniform enough: every base32 character appears in every position", () => {
    const now = Date.now();
    const seen = Array.from({ length: 16 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) {
      const body = newId("verification", now).slice(4);
      for (let p = 0; p < 16; p++) seen[p]!.add(body[10 + p]!);
    }
    for (const chars of seen) expect(chars.size).toBe(32);
  });

  it("timeline ids keep their order within one millisecond", () => {
    const now = Date.now();
    const ids = Array.from({ length: 50 }, () => newId("event", now));
    expect([...ids].sort()).toEqual(ids);
  });
});
