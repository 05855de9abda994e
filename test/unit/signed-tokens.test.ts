import { describe, expect, it } from "vitest";
import { signToken, verifyToken } from "../../src/lib/crypto";

const SECRET = "a-test-secret-of-at-least-32-characters";
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

describe("signed tokens (upload URLs, evidence URLs, cursors)", () => {
  it("verify in their one spelling, and not with the signature's padding bits changed", async () => {
    const token = await signToken(SECRET, "upload", { id: "cap_1", exp: 1 });
    expect(await verifyToken(SECRET, "upload", token)).toEqual({ id: "cap_1", exp: 1 });
    // A 32-byte signature is 43 characters: the last holds 4 signature bits and 2 padding bits.
    const last = ALPHABET.indexOf(token.at(-1)!);
    const spellings = [1, 2, 3].map((pad) => token.slice(0, -1) + ALPHABET[(last & ~3) | ((last & 3) ^ pad)]);
    for (const other of spellings) {
      expect(other).not.toBe(token);
      expect(await verifyToken(SECRET, "upload", other), other).toBeNull();
    }
    expect(await verifyToken(SECRET, "cursor", token)).toBeNull();
  });
});
