import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { attestationVerifier, siteverifyVerifier, unconfiguredVerifier } from "../../src/providers/attestation";

const NOW = Date.parse("2026-11-22T10:00:00Z");

describe("siteverify attestation provider (against the loopback fake)", () => {
  const verifier = siteverifyVerifier({ secret: "test-attestation-secret", url: `${env.FAKES_URL}/siteverify` });

  it("pass, fail, upstream error and malformed replies", async () => {
    expect(await verifier.verify("pass-abc", "203.0.113.9", NOW)).toEqual({
      verdict: "pass",
      checked_at: "2026-11-22T10:00:00.000Z",
      provider: "siteverify",
      hostname: "localhost",
      action: "capture",
    });
    expect(await verifier.verify("fail-abc", undefined, NOW)).toMatchObject({ verdict: "fail", error_codes: ["invalid-input-response"] });
    expect(await verifier.verify("error-abc", undefined, NOW)).toMatchObject({ verdict: "error", error_codes: ["http_500"] });
    expect(await verifier.verify("garbage-abc", undefined, NOW)).toMatchObject({ verdict: "error" });
  });

  it("a wrong secret is a fail, an unreachable endpoint an error", async () => {
    const wrongSecret = siteverifyVerifier({ secret: "nope", url: `${env.FAKES_URL}/siteverify` });
    expect(await wrongSecret.verify("pass-abc", undefined, NOW)).toMatchObject({ verdict: "fail", error_codes: ["invalid-input-secret"] });
    const unreachable = siteverifyVerifier({ secret: "s", url: "http://127.0.0.1:9/siteverify" });
    expect(await unreachable.verify("pass-abc", undefined, NOW)).toMatchObject({ verdict: "error", error_codes: ["network_error"] });
  });

  it("without a configured secret, tokens are recorded as unverifiable errors, never as passes", async () => {
    expect(await unconfiguredVerifier.verify("pass-abc", undefined, NOW)).toMatchObject({ verdict: "error", error_codes: ["verifier_not_configured"] });
    const { ATTESTATION_SECRET: _s, ...unconfigured } = env;
    expect(attestationVerifier(unconfigured as Env)).toBe(unconfiguredVerifier);
  });
});
