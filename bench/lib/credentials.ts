/**
 * What bench/worker.ts signs Content Credentials with (bench/credentials.ts): a test CA's signer made
 * in the isolate once (as a deployment's configured key and certificate, imported once per isolate
 * by domain/credentials/signer.ts), and the facts a completed capture's manifest states.
 */
import type { CaptureFacts } from "../../src/domain/credentials/facts";
import type { SignableMediaType } from "../../src/domain/credentials/offer";
import type { C2paSignerConfig } from "../../src/lib/c2pa-signer-config";
import { makeTestSigner } from "../../test/helpers/c2pa";
import { deploymentSigner, uploadFacts } from "../../test/helpers/credentials";

const SERVICE = "Bench Verification Service";
let made: Promise<{ config: C2paSignerConfig; kid: string }> | null = null;

export async function benchCredentials(mediaType: SignableMediaType, sizeBytes: number): Promise<{ config: C2paSignerConfig; kid: string; facts: CaptureFacts }> {
  made ??= makeTestSigner(SERVICE, { intermediate: true }).then((test) => deploymentSigner(test, { withIssuer: true }));
  const { config, kid } = await made;
  const assessed = (value: Record<string, unknown>, evidence: string[]) => ({ status: "assessed" as const, value, confidence: 0.8, evidence, method_version: "bench" });
  const facts = uploadFacts(SERVICE, { media_type: mediaType, size_bytes: sizeBytes, sha256: "0".repeat(64), width: null, height: null }, {
    screen: assessed({ label: "not_screen" }, ["moire_absent"]),
    ai: assessed({ label: "unknown" }, ["no_generator_marker"]),
    reverse_search: assessed({ matches: 0 }, ["no_prior_match"]),
    depth: { status: "not_applicable", reason: "an upload carries no depth map" },
  });
  return { config, kid, facts };
}
