import { describe, expect, it } from "vitest";
import { freshBotNonce, signBotRequest } from "../../src/auth/bot";
import { safeReturnTo } from "../../src/auth/oauth-flow";
import { randomCode } from "../../src/domain/accounts/otp";

describe("safeReturnTo", () => {
  it("keeps paths of this service and refuses everything that could leave it", () => {
    expect(safeReturnTo("/v1/api-keys?x=1")).toBe("/v1/api-keys?x=1");
    for (const outside of [undefined, "", "//evil.example", "/\\evil.example", "https://evil.example/", "evil", "/ x", "javascript:alert(1)", "/\u0001/evil.example", "/a\u007f", "/\u0085x"]) {
      expect(safeReturnTo(outside)).toBe("/v1/me");
    }
  });
});

describe("bot signature", () => {
  it("is t=<seconds>,v1=<hex HMAC-SHA256 of '<t>.<body>'> (the contract's),v2=<hex HMAC-SHA256 of '<t>.<METHOD>.<path>.<body>'>", async () => {
    // Reference values: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac secret
    //                   printf '1700000000.POST./v1/bot/otp.{"a":1}' | openssl dgst -sha256 -hmac secret
    expect(await signBotRequest("secret", { method: "post", path: "/v1/bot/otp", rawBody: '{"a":1}' }, 1_700_000_000)).toBe(
      "t=1700000000,v1=49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686,v2=96601f62502a89abc5a8f15aef60c1c8d4cecbc16b4533cf1944aab964171e30",
    );
  });

  it("with a nonce is t=<seconds>,n=<nonce>,v2=<hex HMAC-SHA256 of '<t>.<n>.<METHOD>.<path>.<body>'>, never with v1", async () => {
    // Reference value: printf '1700000000.0123456789abcdef_-XY.POST./v1/bot/otp.{"a":1}' | openssl dgst -sha256 -hmac secret
    const request = { method: "post", path: "/v1/bot/otp", rawBody: '{"a":1}' };
    expect(await signBotRequest("secret", request, 1_700_000_000, { nonce: "0123456789abcdef_-XY" })).toBe(
      "t=1700000000,n=0123456789abcdef_-XY,v2=aaf11b2a43e5ee7375b3625efa3a7cb3bce0ad67bd9e0810f4d018fe5ed84436",
    );
    await expect(signBotRequest("secret", request, 1_700_000_000, { nonce: "0123456789abcdef", schemes: ["v1", "v2"] })).rejects.toThrow(/v2 only/);
    await expect(signBotRequest("secret", request, 1_700_000_000, { nonce: "short" })).rejects.toThrow(/16-64/);
  });

  it("fresh nonces are base64url, 24 characters, and differ", () => {
    const nonces = Array.from({ length: 200 }, freshBotNonce);
    expect(nonces.every((n) => /^[A-Za-z0-9_-]{24}$/.test(n))).toBe(true);
    expect(new Set(nonces).size).toBe(200);
  });
});

describe("one-time codes", () => {
  it("are six digits, leading zeros included", () => {
    const codes = Array.from({ length: 500 }, randomCode);
    expect(codes.every((c) => /^\d{6}$/.test(c))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(490);
  });
});
