import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readC2pa } from "../../src/analysis/c2pa";
import { DEFAULT_TRUST, type C2paTrust } from "../../src/analysis/c2pa-trust";
import { C2PA_TRUST_LIST, C2PA_TSA_TRUST_LIST } from "../../src/analysis/c2pa-trust-list";
import { WebP } from "../../src/analysis/c2pa-webp";
import { readMetadata } from "../../src/analysis/metadata";
import { declaredScreenCapture, detectAiProvenance, SOURCE_TYPE_READING } from "../../src/analysis/signals/ai-provenance";
import { ActionType, DigitalSourceType, makeTestSigner, ocspResponse, signAsset, type TestSigner } from "../helpers/c2pa";
import { samplePhoto } from "../helpers/photos";
import { encodeJpeg, insertSegment, naturalScene, xmpSegment, xmpWithSourceType } from "../helpers/synth";

const scene = naturalScene(96, 64, 5);
const IPTC = "http://cv.iptc.org/newscodes/digitalsourcetype/";

function codes(result: { evidence: Array<{ code: string }> }): string[] {
  return result.evidence.map((e) => e.code);
}

function anchoredAt(signer: TestSigner): C2paTrust {
  return { ...DEFAULT_TRUST, anchorsPem: signer.rootPem };
}

describe("C2PA: every manifest in the store", () => {
  it("a generator label only in an ingredient manifest (a re-saved generated image) reads likely_ai, naming the ingredient and the assertion", async () => {
    const signer = await makeTestSigner("Editor");
    const resaved = await signAsset(encodeJpeg(scene), signer, undefined, { action: ActionType.C2paOpened, ingredientSourceType: DigitalSourceType.TrainedAlgorithmicMedia });
    const meta = await readMetadata(resaved, "image/jpeg", []);
    expect(meta.c2pa?.manifests).toHaveLength(2);
    const result = detectAiProvenance(meta);
    expect(result.label).toBe("likely_ai");
    const evidence = result.evidence.find((e) => e.code === "c2pa_generated_source_type");
    expect(evidence?.detail).toMatch(/^parentOf urn:[^:]+:[0-9a-f-]+.*: c2pa\.actions(\.v2)? c2pa\.created trainedAlgorithmicMedia$/);
  });

  it("an expired generator signer on the ingredient is still a generator's label", async () => {
    const expired = await makeTestSigner("Old Generator", { expired: true });
    const editor = await makeTestSigner("Editor");
    const resaved = await signAsset(encodeJpeg(scene), editor, undefined, { action: ActionType.C2paOpened, ingredientSourceType: DigitalSourceType.CompositeWithTrainedAlgorithmicMedia, ingredientSigner: expired });
    expect(detectAiProvenance(await readMetadata(resaved, "image/jpeg", [])).label).toBe("likely_ai");
  });

  it("an expired or untrusted signer on the active generator label still reads likely_ai", async () => {
    const expired = await makeTestSigner("Generator", { expired: true });
    const signed = await signAsset(encodeJpeg(scene), expired, DigitalSourceType.TrainedAlgorithmicMedia);
    const meta = await readMetadata(signed, "image/jpeg", []);
    expect(meta.c2pa?.valid).toBe(false);
    expect(meta.c2pa?.failures).toContain("signingCredential.expired");
    expect(detectAiProvenance(meta).label).toBe("likely_ai");
  });

  it("c2pa.created with no source type by a generator's agent (Microsoft Designer / Bing Image Creator) reads likely_ai", async () => {
    const signer = await makeTestSigner("Microsoft Responsible AI Image Provenance");
    const signed = await signAsset(encodeJpeg(scene), signer, undefined, { agent: "Image Creator from Designer" });
    const result = detectAiProvenance(await readMetadata(signed, "image/jpeg", []));
    expect(result.label).toBe("likely_ai");
    expect(result.evidence.find((e) => e.code === "c2pa_generator_agent")?.detail).toBe("active: c2pa.actions.v2 c2pa.created by Image Creator from Designer");
  });

  it("a camera's c2pa.created with no generator agent is not read as generated", async () => {
    const signer = await makeTestSigner("Camera");
    const signed = await signAsset(encodeJpeg(scene), signer, undefined, { agent: "Pixel Camera" });
    expect(detectAiProvenance(await readMetadata(signed, "image/jpeg", [])).label).toBe("unknown");
  });
});

describe("C2PA trust: chain to anchors, revocation", () => {
  it("a camera signer under an intermediate of a configured root reads trusted and likely_human", async () => {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true });
    const signed = await signAsset(encodeJpeg(scene), camera, DigitalSourceType.DigitalCapture);
    const meta = await readMetadata(signed, "image/jpeg", anchoredAt(camera));
    expect(meta.c2pa).toMatchObject({ valid: true, trusted: true });
    expect(meta.c2pa?.trust?.detail).toBe("anchored at CN=Camera Maker Test CA");
    const result = detectAiProvenance(meta);
    expect(result.label).toBe("likely_human");
    expect(codes(result)).toContain("c2pa_trusted_capture");
    // Without revocation evidence the evidence says so; it does not fail the chain.
    expect(result.evidence.find((e) => e.code === "c2pa_trusted_capture")?.detail).toContain("no stapled OCSP response: revocation not checked");
  });

  it("an ECDSA signature in ASN.1 DER (not COSE's r‖s, which the reference refuses) is invalid: never trusted, even under a listed root", async () => {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true, derSignature: true });
    const signed = await signAsset(encodeJpeg(scene), camera, DigitalSourceType.DigitalCapture);
    const meta = await readMetadata(signed, "image/jpeg", anchoredAt(camera));
    expect(meta.c2pa).toMatchObject({ valid: false, trusted: false });
    expect(meta.c2pa?.failures).toContain("claimSignature.mismatch");
    expect(detectAiProvenance(meta).label).toBe("unknown");
  });

  it("the same chain with its root not listed (the shipped list only) is untrusted: unknown, never likely_human", async () => {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true });
    const signed = await signAsset(encodeJpeg(scene), camera, DigitalSourceType.DigitalCapture);
    const meta = await readMetadata(signed, "image/jpeg", DEFAULT_TRUST);
    expect(meta.c2pa).toMatchObject({ valid: true, trusted: false });
    const result = detectAiProvenance(meta);
    expect(result.label).toBe("unknown");
    expect(codes(result)).toContain("c2pa_signer_untrusted");
  });

  it("C2PA_TRUST_LIST=none with no anchors trusts nobody; a pinned root fingerprint anchors its chain", async () => {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true });
    const signed = await signAsset(encodeJpeg(scene), camera, DigitalSourceType.DigitalCapture);
    expect((await readC2pa(signed, { officialList: false, anchorsPem: "", fingerprints: [] }))?.trust?.detail).toBe("no trust anchors configured");
    const pinnedLeaf = await readC2pa(signed, { officialList: false, anchorsPem: "", fingerprints: [camera.leafFingerprint] });
    expect(pinnedLeaf?.trusted).toBe(true);
  });

  it("a signer revoked by a stapled OCSP response is never trusted, even under a listed root", async () => {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true });
    const signed = await signAsset(encodeJpeg(scene), camera, DigitalSourceType.DigitalCapture, { ocsp: [await ocspResponse(camera, "revoked")] });
    const meta = await readMetadata(signed, "image/jpeg", anchoredAt(camera));
    expect(meta.c2pa?.valid).toBe(true);
    expect(meta.c2pa?.trusted).toBe(false);
    expect(meta.c2pa?.trust?.revocation).toBe("revoked");
    const result = detectAiProvenance(meta);
    expect(result.label).toBe("unknown");
    expect(codes(result)).toContain("c2pa_signer_revoked");
  });

  it("a stapled OCSP response saying good, signed by the issuer, is recorded as revocation evidence", async () => {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true });
    const signed = await signAsset(encodeJpeg(scene), camera, DigitalSourceType.DigitalCapture, { ocsp: [await ocspResponse(camera, "good")] });
    const meta = await readMetadata(signed, "image/jpeg", anchoredAt(camera));
    expect(meta.c2pa?.trusted).toBe(true);
    expect(meta.c2pa?.trust).toMatchObject({ revocation: "good", revocation_detail: "stapled OCSP: not revoked" });
  });

  it("a revoked generator signer's label still reads likely_ai", async () => {
    const generator = await makeTestSigner("Generator", { intermediate: true });
    const signed = await signAsset(encodeJpeg(scene), generator, DigitalSourceType.TrainedAlgorithmicMedia, { ocsp: [await ocspResponse(generator, "revoked")] });
    expect(detectAiProvenance(await readMetadata(signed, "image/jpeg", anchoredAt(generator))).label).toBe("likely_ai");
  });

  it("the shipped C2PA Trust List and TSA Trust List parse, and each fingerprint is its certificate's", async () => {
    expect(C2PA_TRUST_LIST.length).toBeGreaterThanOrEqual(20);
    expect(C2PA_TSA_TRUST_LIST.length).toBeGreaterThanOrEqual(10);
    for (const cert of [...C2PA_TRUST_LIST, ...C2PA_TSA_TRUST_LIST]) {
      const der = Uint8Array.from(atob(cert.der), (c) => c.charCodeAt(0));
      const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", der))].map((b) => b.toString(16).padStart(2, "0")).join("");
      expect(digest).toBe(cert.sha256);
    }
  });
});

describe("C2PA in WebP (RIFF C2PA chunk)", () => {
  it("a WebP's manifest is read and validated", async () => {
    const webp = await samplePhoto("dune.webp");
    const signer = await makeTestSigner("Generator");
    const signed = await signAsset(webp, signer, DigitalSourceType.TrainedAlgorithmicMedia);
    const meta = await readMetadata(signed, "image/webp", []);
    expect(meta.c2pa).toMatchObject({ valid: true, digital_source_types: [`${IPTC}trainedAlgorithmicMedia`] });
    expect(detectAiProvenance(meta).label).toBe("likely_ai");
    // A byte changed outside the manifest breaks the hard binding.
    const tampered = signed.slice();
    tampered[40] = tampered[40]! ^ 0xff;
    expect((await readMetadata(tampered, "image/webp", [])).c2pa?.failures).toContain("assertion.dataHash.mismatch");
  });

  it("a HEIC's manifest (BMFF uuid box) is read too", async () => {
    const signer = await makeTestSigner("Generator");
    const signed = await signAsset(await samplePhoto("dune.heic"), signer, DigitalSourceType.TrainedAlgorithmicMedia);
    const meta = await readMetadata(signed, "image/heic", []);
    expect(meta.c2pa?.digital_source_types).toEqual([`${IPTC}trainedAlgorithmicMedia`]);
    expect(detectAiProvenance(meta).label).toBe("likely_ai");
  });

  it("a chunk stating more bytes than the file has, or too many chunks, is refused before looping on", async () => {
    const webp = (await samplePhoto("dune.webp")).slice();
    new DataView(webp.buffer).setUint32(16, 0x7fffffff, true);
    expect((await readC2pa(webp, []))?.failures[0]).toMatch(/^asset\.malformed: Error: WebP chunk at 12 states/);
    const many = new Uint8Array(12 + 8 * (WebP.MAX_CHUNKS + 1));
    many.set([0x52, 0x49, 0x46, 0x46], 0);
    new DataView(many.buffer).setUint32(4, many.length - 8, true);
    many.set([0x57, 0x45, 0x42, 0x50], 8);
    for (let at = 12; at < many.length; at += 8) many.set([0x4a, 0x55, 0x4e, 0x4b], at);
    expect((await readC2pa(many, []))?.failures[0]).toMatch(/more than 4096 chunks/);
  });
});

describe("digital source types: every term decided", () => {
  it("the composite and algorithmic types read as generated; algorithmicallyEnhanced, film, edits and data-driven media do not", () => {
    for (const t of ["trainedAlgorithmicMedia", "compositeWithTrainedAlgorithmicMedia", "algorithmicMedia", "compositeSynthetic"]) expect(SOURCE_TYPE_READING[t]).toBe("generated");
    for (const t of ["algorithmicallyEnhanced", "negativeFilm", "minorHumanEdits", "composite", "compositeCapture", "virtualRecording", "dataDrivenMedia"]) expect(SOURCE_TYPE_READING[t]).toBe("none");
  });

  it("a trusted C2PA screenCapture is screen_detection evidence, naming the manifest and assertion", async () => {
    const signer = await makeTestSigner("Phone OS");
    const signed = await signAsset(encodeJpeg(scene), signer, `${IPTC}screenCapture` as DigitalSourceType);
    const meta = await readMetadata(signed, "image/jpeg", []);
    expect(declaredScreenCapture(meta)).toEqual({ code: "provenance_screen_capture", detail: "C2PA active: c2pa.actions.v2 c2pa.created screenCapture" });
  });

  it("XMP screenCapture is screen_detection evidence; an XMP digitalCapture is no camera without a signature", async () => {
    const shot = insertSegment(encodeJpeg(scene), 0xe1, xmpSegment(xmpWithSourceType(`${IPTC}screenCapture`)));
    expect(declaredScreenCapture(await readMetadata(shot, "image/jpeg", []))?.code).toBe("provenance_screen_capture");
    const camera = insertSegment(encodeJpeg(scene), 0xe1, xmpSegment(xmpWithSourceType(`${IPTC}digitalCapture`)));
    expect(detectAiProvenance(await readMetadata(camera, "image/jpeg", [])).label).toBe("unknown");
  });

  it("an untrusted C2PA digitalCapture is no camera", async () => {
    const signer = await makeTestSigner("Unknown App");
    const signed = await signAsset(encodeJpeg(scene), signer, DigitalSourceType.DigitalCapture);
    expect(detectAiProvenance(await readMetadata(signed, "image/jpeg", [])).label).toBe("unknown");
  });
});

describe("public C2PA files (scripts/c2pa-files/manifest.tsv, npm run c2pa-files)", async () => {
  const rows = (await (await fetch(`${env.FAKES_URL}/photos/c2pa/manifest.json`)).json()) as Array<{ name: string; expect: string }>;
  const fetchFile = async (name: string) => {
    const res = await fetch(`${env.FAKES_URL}/photos/c2pa/${name}`);
    return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
  };
  const cached = (await fetchFile(rows[0]!.name)) !== null;

  it.skipIf(!cached).each(rows.map((r) => [r.name, r.expect] as const))("%s: a generator's label read exactly when its manifests declare one (%s)", async (name, expect_) => {
    const bytes = (await fetchFile(name))!;
    const type = name.endsWith(".png") ? "image/png" : "image/jpeg";
    const meta = await readMetadata(bytes, type, DEFAULT_TRUST);
    expect(meta.c2pa).not.toBeNull();
    expect(detectAiProvenance(meta).label).toBe(expect_ === "ai" ? "likely_ai" : "unknown");
  });

  it.skipIf(!cached)("OpenAI's gpt-image file chains to the shipped C2PA Trust List (its stapled OCSP read)", async () => {
    const meta = await readMetadata((await fetchFile("openai-gpt-image.png"))!, "image/png", DEFAULT_TRUST);
    expect(meta.c2pa).toMatchObject({ valid: true, trusted: true });
    expect(meta.c2pa?.trust?.detail).toMatch(/^anchored at CN=/);
  });
});
