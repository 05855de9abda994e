import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import type { CaptureFacts } from "../../src/domain/credentials/facts";
import { signerKid } from "../../src/domain/credentials/offer";
import { signAndStore } from "../../src/domain/credentials/serve";
import type { C2paSignerConfig } from "../../src/lib/c2pa-signer-config";
import { makeTestSigner } from "../helpers/c2pa";
import { sha256Hex } from "../helpers/images";
import { encodePngRgb, naturalScene } from "../helpers/synth";

/*
 * One isolate signs a copy at a time (withCredentialsSigningTurn), but two isolates may both find no
 * stored copy and sign it: each signing has random manifest ids, so without a guard the later put
 * replaces the copy the first download was already served, and that download then matches nothing
 * the service holds.
 */
it("two signings of one copy (two isolates that both found none) store the first: the second stores nothing and is told to serve it", async () => {
  const test = await makeTestSigner("Sign Once Deployment");
  const config: C2paSignerConfig = { key: new Uint8Array((await crypto.subtle.exportKey("pkcs8", test.leafKey)) as ArrayBuffer), certs: [new Uint8Array(test.leaf.rawData)] };
  const kid = await signerKid(config);
  const png = encodePngRgb(naturalScene(96, 64, 4401));
  const imageKey = `verifications/vfy_signonce/cap_${crypto.randomUUID()}`;
  await env.EVIDENCE.put(imageKey, png);
  const facts: CaptureFacts = {
    schema_version: 1,
    service: { name: "Sign Once Deployment", url: "https://verify.example" },
    tenant_id: "tnt_signonce",
    verification_id: "vfy_signonce",
    capture_id: "cap_signonce",
    step_key: "front",
    source: "upload",
    received: { at: "2026-12-03T06:00:00.000Z", media_type: "image/png", size_bytes: png.length, sha256: await sha256Hex(png), width: 96, height: 64 },
    analysis: { status: "completed", analyzed_at: "2026-12-03T06:00:05.000Z" },
    signals: { depth: { status: "not_applicable", reason: "an upload carries no depth map" } },
  };
  const capture = { imageKey, sizeBytes: png.length, mediaType: "image/png" as const };
  const key = `${imageKey}.c2pa`;

  const [first, second] = await Promise.all([signAndStore(env.EVIDENCE, capture, facts, config, kid, key), signAndStore(env.EVIDENCE, capture, facts, config, kid, key)]);
  expect(first).not.toBeNull();
  expect(second).toBeNull();
  const stored = await env.EVIDENCE.get(key);
  expect(await sha256Hex(new Uint8Array(await stored!.arrayBuffer()))).toBe(first!.sha256);
  expect(await sha256Hex(first!.signed)).toBe(first!.sha256);
});
