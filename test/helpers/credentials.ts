/**
 * What the Content Credentials tests and bench/worker.ts sign with: a deployment's signer made of a
 * test signer (its key and chain as a deployment configures them, and their kid), and the facts a
 * completed upload's manifest states.
 */
import type { CaptureFacts } from "../../src/domain/credentials/facts";
import { signerKid } from "../../src/domain/credentials/offer";
import type { C2paSignerConfig } from "../../src/lib/c2pa-signer-config";
import type { TestSigner } from "./c2pa";

/** `test`'s leaf key and certificate as a deployment's signer; `withIssuer`: its chain carries the issuing (intermediate) CA too. */
export async function deploymentSigner(test: TestSigner, { withIssuer = false } = {}): Promise<{ config: C2paSignerConfig; kid: string }> {
  const key = new Uint8Array((await crypto.subtle.exportKey("pkcs8", test.leafKey)) as ArrayBuffer);
  const certs = [new Uint8Array(test.leaf.rawData), ...(withIssuer ? [new Uint8Array(test.issuer.rawData)] : [])];
  const config: C2paSignerConfig = { key, certs };
  return { config, kid: await signerKid(config) };
}

/** The facts of a completed upload of `received` (what the manifest states), with the signals given. */
export function uploadFacts(serviceName: string, received: Omit<CaptureFacts["received"], "at">, signals: CaptureFacts["signals"]): CaptureFacts {
  return {
    schema_version: 1,
    service: { name: serviceName, url: "https://verify.example" },
    tenant_id: "tnt_credentials",
    verification_id: "vfy_credentials",
    capture_id: "cap_credentials",
    step_key: "front",
    source: "upload",
    received: { at: "2026-12-02T12:00:00.000Z", ...received },
    analysis: { status: "completed", analyzed_at: "2026-12-02T12:00:05.000Z" },
    signals,
  };
}
