import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { signAndStore } from "../../src/domain/credentials/serve";
import { makeTestSigner } from "../helpers/c2pa";
import { deploymentSigner, uploadFacts } from "../helpers/credentials";
import { sha256Hex } from "../helpers/images";
import { encodePngRgb, naturalScene } from "../helpers/synth";

/*
 * One isolate signs a copy at a time (withCredentialsSigningTurn), but two isolates may both find no
 * stored copy and sign it: each signing has random manifest ids, so without a guard the later put
 * replaces the copy the first download was already served, and that download then matches nothing
 * the service holds.
 */
it("two signings of one copy (two isolates that both found none) store the first: the second stores nothing and is told to serve it", async () => {
  const { config, kid } = await deploymentSigner(await makeTestSigner("Sign Once Deployment"));
  const png = encodePngRgb(naturalScene(96, 64, 4401));
  const imageKey = `verifications/vfy_signonce/cap_${crypto.randomUUID()}`;
  await env.EVIDENCE.put(imageKey, png);
  const facts = uploadFacts("Sign Once Deployment", { media_type: "image/png", size_bytes: png.length, sha256: await sha256Hex(png), width: 96, height: 64 }, {
    depth: { status: "not_applicable", reason: "an upload carries no depth map" },
  });
  const capture = { imageKey, sizeBytes: png.length, mediaType: "image/png" as const };
  const key = `${imageKey}.c2pa`;

  const [first, second] = await Promise.all([signAndStore(env.EVIDENCE, capture, facts, config, kid, key), signAndStore(env.EVIDENCE, capture, facts, config, kid, key)]);
  expect(first).not.toBeNull();
  expect(second).toBeNull();
  const stored = await env.EVIDENCE.get(key);
  expect(await sha256Hex(new Uint8Array(await stored!.arrayBuffer()))).toBe(first!.sha256);
  expect(await sha256Hex(first!.signed)).toBe(first!.sha256);
});
