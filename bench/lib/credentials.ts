/**
 * What bench/worker.ts signs Content Credentials with (bench/credentials.ts): a test CA's signer made
 * in the isolate once (as a deployment's configured key and certificate, imported once per isolate
 * by domain/credentials/signer.ts), and the facts a completed capture's manifest states.
 */
import type { CaptureFacts } from "../../src/domain/credentials/facts";
import { signerKid, type SignableMediaType } from "../../src/domain/credentials/offer";
import type { C2paSignerConfig } from "../../src/lib/c2pa-signer-config";
import { makeTestSigner } from "../../test/helpers/c2pa";

let made: Promise<{ config: C2paSignerConfig; kid: string }> | null = null;

async function makeConfig(): Promise<{ config: C2paSignerConfig; kid: string }> {
  const test = await makeTestSigner("Bench Verification Service", { intermediate: true });
  const key = new Uint8Array((await crypto.subtle.exportKey("pkcs8", test.leafKey)) as ArrayBuffer);
  const config: C2paSignerConfig = { key, certs: [new Uint8Array(test.leaf.rawData), new Uint8Array(test.issuer.rawData)] };
  return { config, kid: await signerKid(config) };
}

export async function benchCredentials(mediaType: SignableMediaType, sizeBytes: number): Promise<{ config: C2paSignerConfig; kid: string; facts: CaptureFacts }> {
  made ??= makeConfig();
  const { config, kid } = await made;
  const assessed = (value: Record<string, unknown>, evidence: string[]) => ({ status: "assessed" as const, value, confidence: 0.8, evidence, method_version: "bench" });
  const facts: CaptureFacts = {
    schema_version: 1,
    service: { name: "Bench Verification Service", url: "https://verify.example" },
    tenant_id: "tnt_bench",
    verification_id: "ver_bench",
    capture_id: "cap_bench",
    step_key: "front",
    source: "upload",
    received: { at: "2026-12-02T12:00:00.000Z", media_type: mediaType, size_bytes: sizeBytes, sha256: "0".repeat(64), width: null, height: null },
    analysis: { status: "completed", analyzed_at: "2026-12-02T12:00:05.000Z" },
    signals: {
      screen: assessed({ label: "not_screen" }, ["moire_absent"]),
      ai: assessed({ label: "unknown" }, ["no_generator_marker"]),
      reverse_search: assessed({ matches: 0 }, ["no_prior_match"]),
      depth: { status: "not_applicable", reason: "an upload carries no depth map" },
    },
  };
  return { config, kid, facts };
}
