import { Crypto as C2paCrypto } from "@trustnxt/c2pa-ts/crypto";
import { describe, expect, it } from "vitest";
import { installStreamingDigest } from "../../src/analysis/c2pa-digest";

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("c2pa-ts's streaming digest in workerd (crypto.DigestStream, no concatenated copy)", () => {
  it("hashes ranges written in turn exactly as SHA-256 of their concatenation, and replaces c2pa-ts's concatenating provider", async () => {
    installStreamingDigest();
    // c2pa-ts's own provider is a class instance (its WebCryptoProvider, not exported); ours is a
    // plain object. Checked by shape, not against the provider before: the quick tier shares one
    // isolate between files (`npm run test:quick`), where another file may have installed it first.
    expect(Object.getPrototypeOf(C2paCrypto.provider)).toBe(Object.prototype);
    const image = crypto.getRandomValues(new Uint8Array(60_000));
    // A data hash's ranges: before and after the manifest's exclusion.
    const digest = C2paCrypto.streamingDigest("SHA-256");
    digest.update(image.subarray(0, 1_000));
    digest.update(image.subarray(5_000));
    const expected = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array([...image.subarray(0, 1_000), ...image.subarray(5_000)])));
    expect(hex(await digest.final())).toBe(hex(expected));
    const empty = C2paCrypto.streamingDigest("SHA-384");
    expect(hex(await empty.final())).toBe(hex(new Uint8Array(await crypto.subtle.digest("SHA-384", new Uint8Array(0)))));
  });
});
