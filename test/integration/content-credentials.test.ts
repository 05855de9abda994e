import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createDb } from "../../src/db/client";
import { gatherReport } from "../../src/domain/report/gather";
import { reportText } from "../../src/domain/report/render";
import { settings } from "../../src/env";
import { signingKey } from "../../src/lib/signing-keys";
import { credentialsPrefixFor } from "../../src/storage/evidence";
import { signEvidenceUrl } from "../../src/storage/evidence-urls";
import type { ReferenceValidation } from "../fakes/c2pa-reference";
import { call, callJson, createVerification, seedTenant, type TestTenant } from "../helpers/api";
import { tamperSignature } from "../helpers/tamper";
import { callWithEnv } from "../helpers/app";
import { sentIntegrity, syntheticCapture, type SyntheticCapture } from "../helpers/bursts";
import { captureByKey, captureInline, hasVerdict, pollVerification } from "../helpers/capture";
import { sha256Hex, uniqueJpeg } from "../helpers/images";
import { samplePhoto } from "../helpers/photos";
import { DigitalSourceType, makeTestSigner, signAsset, signJpeg } from "../helpers/c2pa";
import { withoutC2pa } from "../../client/certificate-page/photos";
import { assetFor, readC2pa, type C2paSummary } from "../../src/analysis/c2pa";
import { analysesOf } from "../../src/db/analyses";
import { decodeImage } from "../../src/analysis/decoders";
import { encodeJpeg, encodePngRgb, naturalScene } from "../helpers/synth";
import { CREDENTIALS_SIGNINGS, credentialsSigningTurns, withCredentialsSigningTurn } from "../../src/domain/public-limits";

/*
 * Content Credentials on what the capture link received (issue 43, item 3): each capture's
 * `credentials_url` serves the received image with a C2PA manifest this deployment signs, which the
 * reference implementation (c2pa-rs as WebAssembly, test/fakes/c2pa-reference.ts; not c2pa-ts, which
 * signs it) validates: signature, hard binding, the deployment named as signer.
 */

const IPTC = "http://cv.iptc.org/newscodes/digitalsourcetype/";

/** The name the test deployment's signing certificate carries (vitest.config.ts). */
const DEPLOYMENT = "Verification Service Test Deployment";

let t: TestTenant;
let live: SyntheticCapture;
beforeAll(async () => {
  t = await seedTenant();
  live = await syntheticCapture("scene3d", 4301);
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function fetchUrl(url: string, headers: Record<string, string> = {}) {
  const u = new URL(url);
  const res = await call(u.pathname + u.search, { headers });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function reference(bytes: Uint8Array, format: string): Promise<ReferenceValidation> {
  const res = await fetch(`${env.FAKES_URL}/c2pa-reference?format=${encodeURIComponent(format)}`, { method: "POST", body: bytes });
  expect(res.status).toBe(200);
  return (await res.json()) as ReferenceValidation;
}

async function liveCaptured() {
  const v = await createVerification(t.key, { max_captures: 1 });
  await captureInline(v.id, live.photo, { capture_integrity: await sentIntegrity(v.id, live) });
  await pollVerification(t.key, v.id, hasVerdict);
  const list = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
  expect(list.status).toBe(200);
  return { v, capture: list.body.items[0] };
}

describe("Content Credentials (credentials_url)", () => {
  it("serves the received JPEG with a manifest the reference implementation validates, signed by the deployment; a changed byte fails it", async () => {
    const { v, capture } = await liveCaptured();
    expect(capture.credentials_url).toMatch(/^http:\/\/localhost:8787\/v1\/evidence\//);
    const { res, bytes } = await fetchUrl(capture.credentials_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/jpeg");
    expect(res.headers.get("ETag")).toBe(`"${await sha256Hex(bytes)}"`);
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="${capture.id}.c2pa.jpg"`);

    // The image data is the received file's, byte for byte: only the manifest's APP11 segments were added.
    expect(await sha256Hex(withoutC2pa(bytes)!)).toBe(capture.sha256);

    const valid = await reference(bytes, "image/jpeg");
    expect(valid.failure).toEqual([]);
    expect(valid.validation_state).toBe("Trusted");
    expect(valid.success).toEqual(expect.arrayContaining(["claimSignature.validated", "signingCredential.trusted", "assertion.dataHash.match"]));
    expect(valid.signer).toMatchObject({ common_name: DEPLOYMENT, issuer: DEPLOYMENT, alg: "Es256" });
    const stated = valid.assertions["com.verification-service.capture"] as any;
    expect(stated).toMatchObject({
      service: { name: DEPLOYMENT, url: settings(env).baseUrl },
      tenant_id: t.id,
      verification_id: v.id,
      capture_id: capture.id,
      source: "live",
      received: { at: capture.created_at, media_type: "image/jpeg", size_bytes: capture.size_bytes, sha256: capture.sha256 },
      analysis: { status: "completed" },
    });
    // Every signal as assessed, the live capture's measured integrity (depth) among them, and the burst as received without its nonce.
    expect(Object.keys(stated.signals).sort()).toEqual(Object.keys(capture.analysis.signals).sort());
    expect(stated.signals.depth).toMatchObject({ status: capture.analysis.signals.depth.status, method_version: capture.analysis.signals.depth.method_version });
    expect(stated.signals.depth.evidence).toEqual(capture.analysis.signals.depth.evidence.map((e: { code: string }) => e.code));
    expect(stated.capture_integrity).toBeUndefined(); // the page's record is the client's word, named so
    expect(stated.client_reported_capture_integrity).toMatchObject({ schema_version: 2, frames: { sha256: capture.capture_integrity.frames.sha256 } });
    expect(stated.client_reported_capture_integrity.nonce).toBeUndefined();
    expect(valid.assertions["c2pa.actions.v2"]).toMatchObject({ actions: [{ action: "c2pa.opened" }] });

    const changed = bytes.slice();
    changed[changed.length - 64]! ^= 0x01;
    const invalid = await reference(changed, "image/jpeg");
    expect(invalid.validation_state).toBe("Invalid");
    expect(invalid.failure.map((f) => f.code)).toContain("assertion.dataHash.mismatch");

    // Signed once, then served from R2: the same bytes again, and 304 for the ETag held.
    const again = await fetchUrl(capture.credentials_url);
    expect(again.bytes).toEqual(bytes);
    expect((await fetchUrl(capture.credentials_url, { "If-None-Match": res.headers.get("ETag")! })).res.status).toBe(304);
    const stored = await env.EVIDENCE.list({ prefix: credentialsPrefixFor(v.id, capture.id) });
    expect(stored.objects).toHaveLength(1);
  });

  it("a PNG upload: the caBX chunk is the only change, and the reference implementation validates it", async () => {
    const png = encodePngRgb(naturalScene(160, 120, 4302));
    const v = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] });
    await captureByKey(v.id, png, "image/png", { step_key: "docs" });
    await pollVerification(t.key, v.id, hasVerdict);
    const [capture] = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items;
    const { res, bytes } = await fetchUrl(capture.credentials_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/png");
    expect(withoutC2pa(bytes)).toEqual(png);
    const valid = await reference(bytes, "image/png");
    expect(valid.failure).toEqual([]);
    expect(valid.validation_state).toBe("Trusted");
    expect(valid.assertions["com.verification-service.capture"]).toMatchObject({ source: "upload", received: { sha256: capture.sha256, media_type: "image/png" } });
  });

  it("a WebP upload: a RIFF C2PA chunk appended (and the RIFF size) is the only change, and the reference implementation validates it", async () => {
    const webp = await samplePhoto("dune.webp");
    const v = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] });
    await captureByKey(v.id, webp, "image/webp", { step_key: "docs" });
    await pollVerification(t.key, v.id, hasVerdict);
    const [capture] = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items;
    expect(capture.credentials_url).toEqual(expect.any(String));
    const { res, bytes } = await fetchUrl(capture.credentials_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/webp");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="${capture.id}.c2pa.webp"`);
    expect(withoutC2pa(bytes)).toEqual(webp);
    const valid = await reference(bytes, "image/webp");
    expect(valid.failure).toEqual([]);
    expect(valid.validation_state).toBe("Trusted");
    expect(valid.success).toEqual(expect.arrayContaining(["claimSignature.validated", "assertion.dataHash.match"]));
    expect(valid.signer).toMatchObject({ common_name: DEPLOYMENT });
    expect(valid.assertions["com.verification-service.capture"]).toMatchObject({ source: "upload", received: { sha256: capture.sha256, media_type: "image/webp" } });
    const changed = bytes.slice();
    changed[40]! ^= 0x01; // inside the VP8 bitstream, before the appended chunk
    const invalid = await reference(changed, "image/webp");
    expect(invalid.validation_state).toBe("Invalid");
    expect(invalid.failure.map((f) => f.code)).toContain("assertion.dataHash.mismatch");
  });

  it("a HEIC upload: a c2pa.hash.bmff.v3 binding the reference implementation validates; the coded image is unchanged, a changed byte fails it", async () => {
    const heic = await samplePhoto("dune.heic");
    const v = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] });
    await captureByKey(v.id, heic, "image/heic", { step_key: "docs" });
    await pollVerification(t.key, v.id, hasVerdict);
    const [capture] = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items;
    expect(capture.credentials_url).toEqual(expect.any(String));
    const { res, bytes } = await fetchUrl(capture.credentials_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/heic");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="${capture.id}.c2pa.heic"`);
    const valid = await reference(bytes, "image/heic");
    expect(valid.failure).toEqual([]);
    expect(valid.validation_state).toBe("Trusted");
    expect(valid.success).toEqual(expect.arrayContaining(["claimSignature.validated", "assertion.bmffHash.match"]));
    expect(valid.signer).toMatchObject({ common_name: DEPLOYMENT });
    expect(valid.assertions["com.verification-service.capture"]).toMatchObject({ received: { sha256: capture.sha256, media_type: "image/heic" } });
    // The boxes after the manifest moved (their item locations rewritten): the pixels are the received ones.
    const [before, after] = [await decodeImage(heic, "image/heic"), await decodeImage(bytes, "image/heic")];
    expect([after.width, after.height]).toEqual([before.width, before.height]);
    expect(after.overview.data).toEqual(before.overview.data);
    const changed = bytes.slice();
    changed[changed.length - 64]! ^= 0x01; // inside mdat, the coded image
    const invalid = await reference(changed, "image/heic");
    expect(invalid.validation_state).toBe("Invalid");
    expect(invalid.failure.map((f) => f.code)).toContain("assertion.bmffHash.mismatch");
  });

  it("a WebP manifest of odd length (a pad byte after the chunk) binds as the reference implementation expects, as one of even length does", async () => {
    const signer = await makeTestSigner("Odd And Even");
    const webp = await samplePhoto("dune.webp");
    const lengths = new Set<number>();
    for (const agent of ["a", "ab"]) {
      const signed = await signAsset(webp, signer, DigitalSourceType.DigitalCapture, { agent });
      lengths.add(new DataView(signed.buffer, signed.byteOffset).getUint32(webp.length + 4, true) & 1);
      const read = await reference(signed, "image/webp");
      expect(read.success).toContain("assertion.dataHash.match");
      expect(read.failure.map((f) => f.code)).not.toContain("assertion.dataHash.mismatch");
      expect((await readC2pa(signed, [signer.leafFingerprint]))?.valid).toBe(true);
    }
    expect(lengths).toEqual(new Set([0, 1]));
  });

  it("an expired credentials URL is 410 expired, an altered one 401 unauthorized", async () => {
    const { capture } = await liveCaptured();
    const s = settings(env);
    const stale = await signEvidenceUrl(await signingKey(env, "evidence_urls"), s.baseUrl, { captureId: capture.id, variant: "credentials", sha256: capture.sha256 }, Date.now() - 5 * 60 * 1000 - 1);
    const expired = await fetchUrl(stale);
    expect(expired.res.status).toBe(410);
    expect(JSON.parse(new TextDecoder().decode(expired.bytes))).toEqual({ error: { code: "expired", message: expect.stringMatching(/expired/) } });
    const url: string = capture.credentials_url;
    // (Changing the last two characters once decoded to the same signature: a 200.)
    const altered = tamperSignature(url);
    const bad = await fetchUrl(altered);
    expect(bad.res.status).toBe(401);
    expect(JSON.parse(new TextDecoder().decode(bad.bytes))).toMatchObject({ error: { code: "unauthorized" } });
  });

  it("a copy of a verification that still takes captures carries only its id's time part (the id is the capture link's credential); once it takes none, a new copy names it whole", async () => {
    // Security probe of 2026-12-07: the copy of an open case's photo carried the whole id, and with it
    // anyone given the file overwrote the answer, added a capture and completed the case.
    const v = await createVerification(t.key, { max_captures: 2 });
    await captureInline(v.id, live.photo, { capture_integrity: await sentIntegrity(v.id, live) });
    let capture: any;
    for (const deadline = Date.now() + 25_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      [capture] = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items;
      if (capture?.credentials_url) break;
    }
    expect(capture.credentials_url).toBeDefined();
    expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.status).toBe("partially_captured");
    const open = await fetchUrl(capture.credentials_url);
    expect(open.res.status).toBe(200);
    const withheld = (await reference(open.bytes, "image/jpeg")).assertions["com.verification-service.capture"] as any;
    expect(withheld).toMatchObject({ verification_id: `${v.id.slice(0, 14)}…`, verification_id_withheld: true, capture_id: capture.id });
    const text = new TextDecoder("latin1").decode(open.bytes);
    expect(text.includes(v.id)).toBe(false);
    expect(text.includes(v.id.slice(14))).toBe(false);

    await captureInline(v.id, uniqueJpeg());
    await pollVerification(t.key, v.id, hasVerdict);
    const closed = await fetchUrl(((await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items as any[]).find((c) => c.id === capture.id).credentials_url);
    expect(closed.res.status).toBe(200);
    expect(closed.bytes).not.toEqual(open.bytes);
    const whole = (await reference(closed.bytes, "image/jpeg")).assertions["com.verification-service.capture"] as any;
    expect(whole.verification_id).toBe(v.id);
    expect(whole.verification_id_withheld).toBeUndefined();
  });

  async function uploaded(bytes: Uint8Array, mediaType: string) {
    const v = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] });
    await captureByKey(v.id, bytes, mediaType, { step_key: "docs" });
    await pollVerification(t.key, v.id, hasVerdict);
    const [capture] = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items;
    return { v, capture };
  }

  /** The manifest store a file carries, as its bytes (c2pa-ts reads the asset's C2PA segments, chunk or box). */
  async function storeOf(bytes: Uint8Array): Promise<Uint8Array> {
    const jumbf = await assetFor(bytes)!.getManifestJUMBF();
    expect(jumbf).toBeDefined();
    return jumbf!;
  }

  it("a file that arrived with a C2PA manifest keeps it whole: the deployment's manifest joins its store as the active one, the arrived manifest its parent ingredient; a changed byte fails it", async () => {
    const generator = await makeTestSigner("Some Generator");
    const received = await signJpeg(encodeJpeg(naturalScene(200, 150, 4303), 90), generator, DigitalSourceType.TrainedAlgorithmicMedia);
    const arrived = (await readC2pa(received, [generator.leafFingerprint]))!;
    expect(arrived.manifests).toHaveLength(1);
    const arrivedLabel = arrived.manifests[0]!;
    const { v, capture } = await uploaded(received, "image/jpeg");
    expect(capture.analysis.status).toBe("completed");
    // The service's own analysis reads the manifest the file arrived with, as ever: its label, its source type.
    const analysed = async () => ((await analysesOf(createDb(env.DB), v.id))[0]!.result as { metadata: { c2pa: C2paSummary } }).metadata.c2pa;
    const read = await analysed();
    expect(read).toMatchObject({ manifests: [arrivedLabel], valid: true, signer: "CN=Some Generator" });
    expect(read.declarations).toEqual([expect.objectContaining({ manifest: arrivedLabel, role: "active", source_type: `${IPTC}trainedAlgorithmicMedia` })]);
    expect(capture.credentials_url).toEqual(expect.any(String));

    const { res, bytes } = await fetchUrl(capture.credentials_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/jpeg");
    // The image data is the received file's: set the C2PA segments aside in both and they are the same bytes.
    expect(withoutC2pa(bytes)).toEqual(withoutC2pa(received));
    // The store it arrived with is there byte for byte (its box length grown by the appended manifest).
    const [before, after] = [await storeOf(received), await storeOf(bytes)];
    expect(after.length).toBeGreaterThan(before.length);
    expect(after.subarray(4, before.length)).toEqual(before.subarray(4));

    const valid = await reference(bytes, "image/jpeg");
    expect(valid.failure).toEqual([]);
    expect(valid.success).toEqual(expect.arrayContaining(["claimSignature.validated", "assertion.dataHash.match"]));
    expect(valid.signer).toMatchObject({ common_name: DEPLOYMENT, issuer: DEPLOYMENT });
    expect(valid.manifests).toHaveLength(2);
    expect(valid.manifests).toContain(arrivedLabel);
    expect(valid.active_manifest).not.toBe(arrivedLabel);
    expect(valid.assertions["com.verification-service.capture"]).toMatchObject({ capture_id: capture.id, received: { sha256: capture.sha256 } });
    expect(valid.ingredients).toHaveLength(1);
    expect(valid.ingredients[0]).toMatchObject({ relationship: "parentOf", active_manifest: arrivedLabel, description: expect.stringContaining(`It arrived with a C2PA manifest store of 1 manifest, kept whole in this store, none altered; this ingredient's active manifest is that store's active one, ${arrivedLabel} (signed by CN=Some Generator).`) });
    // The reference found the ingredient's hashed URI to be the arrived manifest; the generator's root is not this run's anchor, so it stays untrusted (the state "Valid", not "Trusted").
    expect(valid.ingredient_deltas).toEqual([{ failure: ["signingCredential.untrusted"], success: expect.arrayContaining(["ingredient.manifest.validated"]) }]);
    expect(valid.validation_state).toBe("Valid");

    const changed = bytes.slice();
    changed[changed.length - 64]! ^= 0x01;
    const invalid = await reference(changed, "image/jpeg");
    expect(invalid.validation_state).toBe("Invalid");
    expect(invalid.failure.map((f) => f.code)).toContain("assertion.dataHash.mismatch");

    expect(await analysed()).toEqual(read);
    expect((await env.EVIDENCE.list({ prefix: credentialsPrefixFor(v.id, capture.id) })).objects).toHaveLength(1);
  });

  it.each([
    ["PNG", "image/png", async () => encodePngRgb(naturalScene(160, 120, 4304)), "assertion.dataHash.match"],
    ["WebP", "image/webp", () => samplePhoto("dune.webp"), "assertion.dataHash.match"],
    ["HEIC", "image/heic", () => samplePhoto("dune.heic"), "assertion.bmffHash.match"],
  ] as const)("a %s that arrived signed: its store kept whole, the deployment's manifest added as the active one over it", async (_name, mediaType, image, binding) => {
    const camera = await makeTestSigner("Some Camera");
    const received = await signAsset(await image(), camera, DigitalSourceType.DigitalCapture);
    const arrivedLabel = (await readC2pa(received, [camera.leafFingerprint]))!.manifests[0]!;
    const { capture } = await uploaded(received, mediaType);
    expect(capture.credentials_url).toEqual(expect.any(String));
    const { res, bytes } = await fetchUrl(capture.credentials_url);
    expect(res.status).toBe(200);
    const [before, after] = [await storeOf(received), await storeOf(bytes)];
    expect(after.subarray(4, before.length)).toEqual(before.subarray(4));
    // The same pixels as received (a HEIC's boxes moved to make room for the larger store).
    const [was, is] = [await decodeImage(received, mediaType), await decodeImage(bytes, mediaType)];
    expect(is.overview.data).toEqual(was.overview.data);
    const valid = await reference(bytes, mediaType);
    expect(valid.failure).toEqual([]);
    expect(valid.success).toEqual(expect.arrayContaining(["claimSignature.validated", binding]));
    expect(valid.signer).toMatchObject({ common_name: DEPLOYMENT });
    expect(valid.manifests).toEqual(expect.arrayContaining([arrivedLabel]));
    expect(valid.ingredients[0]).toMatchObject({ relationship: "parentOf", active_manifest: arrivedLabel });
    expect(valid.ingredient_deltas[0]!.success).toContain("ingredient.manifest.validated");
  });

  it("signs one copy at a time per isolate: concurrent downloads of an unsigned copy sign it once, one more waiting is 429, a stored copy never waits", async () => {
    const ready = await uploaded(encodePngRgb(naturalScene(160, 120, 4310)), "image/png");
    const first = await fetchUrl(ready.capture.credentials_url);
    expect(first.res.status).toBe(200);
    const { v, capture } = await uploaded(encodePngRgb(naturalScene(160, 120, 4311)), "image/png");

    // A signing holds this isolate's turn until released.
    let release!: () => void;
    const holding = withCredentialsSigningTurn(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      await vi.waitFor(() => expect(credentialsSigningTurns()).toEqual({ signing: 1, waiting: 0 }));
      const waiting = Array.from({ length: CREDENTIALS_SIGNINGS.queuedPerIsolate }, () => fetchUrl(capture.credentials_url));
      await vi.waitFor(() => expect(credentialsSigningTurns()).toEqual({ signing: 1, waiting: CREDENTIALS_SIGNINGS.queuedPerIsolate }));

      // One more than the queue holds: 429 in the standard error body (call() checked it against the document).
      const refused = await fetchUrl(capture.credentials_url);
      expect(refused.res.status).toBe(429);
      expect(refused.res.headers.get("Retry-After")).toBe("1");
      expect(JSON.parse(new TextDecoder().decode(refused.bytes))).toEqual({ error: { code: "too_many_requests", message: CREDENTIALS_SIGNINGS.busyMessage } });

      // A stored copy (and a 304 for it) is served at once, the turn still held and the queue full.
      const stored = await fetchUrl(ready.capture.credentials_url);
      expect(stored.res.status).toBe(200);
      expect(stored.bytes).toEqual(first.bytes);
      expect((await fetchUrl(ready.capture.credentials_url, { "If-None-Match": first.res.headers.get("ETag")! })).res.status).toBe(304);
      expect(credentialsSigningTurns()).toEqual({ signing: 1, waiting: CREDENTIALS_SIGNINGS.queuedPerIsolate });
      expect((await env.EVIDENCE.list({ prefix: credentialsPrefixFor(v.id, capture.id) })).objects).toHaveLength(0);

      release();
      await holding;
      // The first waiting signs; the others find its copy stored when their turn comes and serve it.
      const served = await Promise.all(waiting);
      expect(served.map((s) => s.res.status)).toEqual(served.map(() => 200));
      const digests = new Set(await Promise.all(served.map((s) => sha256Hex(s.bytes))));
      expect(digests.size).toBe(1);
      const [digest] = [...digests];
      expect(served.map((s) => s.res.headers.get("ETag"))).toEqual(served.map(() => `"${digest}"`));
      const copies = await env.EVIDENCE.list({ prefix: credentialsPrefixFor(v.id, capture.id) });
      expect(copies.objects).toHaveLength(1);
      expect(await sha256Hex(new Uint8Array(await (await env.EVIDENCE.get(copies.objects[0]!.key))!.arrayBuffer()))).toBe(digest);
      const valid = await reference(served[0]!.bytes, "image/png");
      expect(valid.failure).toEqual([]);
      expect(valid.validation_state).toBe("Trusted");
      expect(valid.assertions["com.verification-service.capture"]).toMatchObject({ capture_id: capture.id });
      expect(credentialsSigningTurns()).toEqual({ signing: 0, waiting: 0 });
    } finally {
      release();
      await holding;
    }
  });

  it("a file whose C2PA manifest store cannot be read gets none (a store is extended only once read), and a URL minted for it anyway is 404", async () => {
    const signed = await signJpeg(encodeJpeg(naturalScene(200, 150, 4305), 90), await makeTestSigner("Some Camera"), DigitalSourceType.DigitalCapture);
    // A box inside the store states a length beyond its superbox: the analysis reads it as manifest.malformed.
    const at = signed.findIndex((_, i) => i > signed.findIndex((__, j) => String.fromCharCode(...signed.subarray(j, j + 4)) === "jumb") && String.fromCharCode(...signed.subarray(i, i + 4)) === "jumb");
    const broken = signed.slice();
    new DataView(broken.buffer).setUint32(at - 4, 3_103_785_410);
    const { v, capture } = await uploaded(broken, "image/jpeg");
    expect(capture.analysis.status).toBe("completed");
    expect(capture.image_url).toBeDefined();
    expect(capture.credentials_url).toBeUndefined();
    const minted = await signEvidenceUrl(await signingKey(env, "evidence_urls"), settings(env).baseUrl, { captureId: capture.id, variant: "credentials", sha256: capture.sha256 }, Date.now());
    expect((await fetchUrl(minted)).res.status).toBe(404);
    expect((await env.EVIDENCE.list({ prefix: credentialsPrefixFor(v.id, capture.id) })).objects).toHaveLength(0);
  });

  it("the evidence report names the signed copy and how to get it, never its URL (which dies within minutes)", async () => {
    const { v } = await liveCaptured();
    const content = await gatherReport(env, createDb(env.DB), { tenantId: t.id, verificationId: v.id, audience: "tenant", now: Date.now() });
    expect(content.captures.map((c) => c.credentials)).toEqual([true]);
    const text = await reportText(content);
    const at = text.indexOf("Content Credentials");
    expect(at).toBeGreaterThan(-1);
    const said = text.slice(at + 1, at + 6).join(" ");
    expect(said).toMatch(/A copy of this file with a C2PA manifest signed by http:\/\/localhost:8787/);
    expect(said).toMatch(/console or through the captures API \(credentials_url\)/);
    expect(text.join("\n")).not.toContain("/v1/evidence/");
  });

  it("a key that is not the certificate's signs nothing: the download is 500 and the log names the mismatch", async () => {
    const { v, capture } = await liveCaptured();
    const stranger = (await makeTestSigner("Someone Else")).signer.certificate.toString("pem");
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const res = await callWithEnv({ C2PA_SIGNING_CERTS: stranger }, new URL(capture.credentials_url).pathname);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: "internal_error", message: expect.any(String) } });
    expect(spy.mock.calls.map((args) => args.map(String).join(" ")).join("\n")).toMatch(/C2PA_SIGNING_KEY is not the key of the first certificate in C2PA_SIGNING_CERTS/);
    expect((await env.EVIDENCE.list({ prefix: credentialsPrefixFor(v.id, capture.id) })).objects).toHaveLength(0);
  });

  it("redaction removes it: no credentials_url afterwards, the stored signed copy is deleted, the old URL is 404", async () => {
    const { v, capture } = await liveCaptured();
    expect((await fetchUrl(capture.credentials_url)).res.status).toBe(200);
    expect((await env.EVIDENCE.list({ prefix: credentialsPrefixFor(v.id, capture.id) })).objects).toHaveLength(1);
    expect((await callJson(`/v1/verifications/${v.id}/redact`, { method: "POST", key: t.key })).status).toBe(200);
    const after = await callJson(`/v1/captures/${capture.id}`, { key: t.key });
    expect(after.status).toBe(200);
    expect(after.body.credentials_url).toBeUndefined();
    expect((await env.EVIDENCE.list({ prefix: credentialsPrefixFor(v.id, capture.id) })).objects).toHaveLength(0);
    expect((await fetchUrl(capture.credentials_url)).res.status).toBe(404);
    const report = await gatherReport(env, createDb(env.DB), { tenantId: t.id, verificationId: v.id, audience: "tenant", now: Date.now() });
    expect(report.captures.map((c) => c.credentials)).toEqual([false]);
    expect((await reportText(report)).join("\n")).not.toContain("Content Credentials");
  });
});
