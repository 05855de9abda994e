import * as x509 from "@peculiar/x509";
import { describe, expect, it } from "vitest";
import { DEFAULT_TRUST, stapledRevocation, type C2paTrust } from "../../src/analysis/c2pa-trust";
import { readMetadata } from "../../src/analysis/metadata";
import { detectAiProvenance } from "../../src/analysis/signals/ai-provenance";
import {
  DigitalSourceType,
  forgedSigner,
  issuedBy,
  makeTestSigner,
  makeTestTsa,
  ocspResponse,
  signAsset,
  timestampProvider,
  unrelatedResponder,
  type TestSigner,
  type TestTsa,
} from "../helpers/c2pa";
import { encodeJpeg, naturalScene } from "../helpers/synth";

const scene = naturalScene(96, 64, 5);
const DAY = 24 * 3600_000;
const OCSP_SIGNING = x509.ExtendedKeyUsage.ocspSigning;

function chainOf(signer: TestSigner): Uint8Array[] {
  return [signer.leaf, signer.issuer].map((c) => new Uint8Array(c.rawData));
}

function issuerOf(signer: TestSigner) {
  return { cert: signer.issuer, key: signer.issuerKey };
}

function anchored(...pems: string[]): C2paTrust {
  return { ...DEFAULT_TRUST, anchorsPem: pems.join("\n") };
}

describe("stapled OCSP: who may sign it (RFC 6960 4.2.2.2)", () => {
  it("a response signed by the issuer counts, good and revoked", async () => {
    const camera = await makeTestSigner("Camera", { intermediate: true });
    expect(await stapledRevocation([await ocspResponse(camera, "good")], chainOf(camera))).toEqual({ status: "good", detail: "stapled OCSP: not revoked" });
    expect((await stapledRevocation([await ocspResponse(camera, "revoked")], chainOf(camera))).status).toBe("revoked");
  });

  it("a responder the issuer certified with id-kp-OCSPSigning counts, good and revoked", async () => {
    const camera = await makeTestSigner("Camera", { intermediate: true });
    const responder = await issuedBy(issuerOf(camera), "Camera OCSP Responder", [OCSP_SIGNING]);
    expect((await stapledRevocation([await ocspResponse(camera, "good", responder)], chainOf(camera))).status).toBe("good");
    const revoked = await stapledRevocation([await ocspResponse(camera, "revoked", responder)], chainOf(camera));
    expect(revoked.status).toBe("revoked");
    expect(revoked.detail).toMatch(/^signer revoked at \d{4}-\d\d-\d\dT.* \(stapled OCSP\)$/);
  });

  it("a certificate of the same issuer without id-kp-OCSPSigning is no responder: its answer counts for nothing", async () => {
    const camera = await makeTestSigner("Camera", { intermediate: true });
    const sibling = await issuedBy(issuerOf(camera), "Another Signer", [x509.ExtendedKeyUsage.emailProtection]);
    expect((await stapledRevocation([await ocspResponse(camera, "good", sibling)], chainOf(camera))).status).toBe("unknown");
    expect((await stapledRevocation([await ocspResponse(camera, "revoked", sibling)], chainOf(camera))).status).toBe("unknown");
  });

  it("an unrelated key (even with id-kp-OCSPSigning) counts for nothing, good or revoked", async () => {
    const camera = await makeTestSigner("Camera", { intermediate: true });
    const stranger = await unrelatedResponder("Stranger OCSP");
    expect((await stapledRevocation([await ocspResponse(camera, "good", stranger)], chainOf(camera))).status).toBe("unknown");
    const revoked = await stapledRevocation([await ocspResponse(camera, "revoked", stranger)], chainOf(camera));
    expect(revoked).toEqual({ status: "unknown", detail: "stapled OCSP response says revoked but is signed neither by the issuer nor by a responder it delegated to: ignored" });
  });

  it("a responder certified by another CA with the same responder key usage does not vouch for this issuer's signer", async () => {
    const camera = await makeTestSigner("Camera", { intermediate: true });
    const other = await makeTestSigner("Other Maker", { intermediate: true });
    const foreign = await issuedBy(issuerOf(other), "Other OCSP Responder", [OCSP_SIGNING]);
    expect((await stapledRevocation([await ocspResponse(camera, "good", foreign)], chainOf(camera))).status).toBe("unknown");
  });

  it("an unsigned-for revoked response stapled in a genuine capture leaves it trusted, the response named as ignored", async () => {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true });
    const stranger = await unrelatedResponder("Stranger OCSP");
    const signed = await signAsset(encodeJpeg(scene), camera, DigitalSourceType.DigitalCapture, { ocsp: [await ocspResponse(camera, "revoked", stranger)] });
    const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem));
    expect(meta.c2pa).toMatchObject({ valid: true, trusted: true });
    expect(meta.c2pa?.trust?.revocation).toBe("unknown");
  });
});

describe("signer chain", () => {
  it("a signer certificate naming a listed intermediate as issuer but not signed by it is not trusted", async () => {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true });
    const forged = await forgedSigner(camera);
    const signed = await signAsset(encodeJpeg(scene), forged, DigitalSourceType.DigitalCapture);
    const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem));
    expect(meta.c2pa?.trusted).toBe(false);
    expect(detectAiProvenance(meta).label).toBe("unknown");
  });
});

describe("trusted timestamps (sigTst / sigTst2) as the chain's validation time", () => {
  const withinValidity = () => new Date(Date.now() - 1.5 * 365 * DAY); // the expired signer ran from -2 y to -1 y

  async function expiredCapture(tsa: TestTsa | null, at = withinValidity(), version: "sigTst" | "sigTst2" = "sigTst2", extra: Parameters<typeof timestampProvider>[2] = {}) {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true, expired: true });
    const timestamp = tsa ? { provider: timestampProvider(tsa, at, { bareToken: version === "sigTst2", ...extra }), version } : undefined;
    const signed = await signAsset(encodeJpeg(scene), camera, DigitalSourceType.DigitalCapture, { timestamp });
    return { camera, signed };
  }

  it("an expired signer with a C2PA 2.x sigTst2 time-stamp token inside its validity is trusted at the stamped time", async () => {
    const tsa = await makeTestTsa();
    const at = withinValidity();
    const { camera, signed } = await expiredCapture(tsa, at);
    const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem, tsa.rootPem));
    expect(meta.c2pa).toMatchObject({ valid: true, trusted: true });
    expect(meta.c2pa?.trust).toMatchObject({ time_source: "timestamp", checked_at: at.toISOString() });
    expect(detectAiProvenance(meta).label).toBe("likely_human");
  });

  it("a v1 sigTst time-stamp (a TimeStampResp over the claim) is trusted the same way", async () => {
    const tsa = await makeTestTsa();
    const { camera, signed } = await expiredCapture(tsa, withinValidity(), "sigTst");
    const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem, tsa.rootPem));
    expect(meta.c2pa).toMatchObject({ valid: true, trusted: true });
    expect(meta.c2pa?.trust?.time_source).toBe("timestamp");
  });

  it("an expired signer without a time-stamp is not trusted (checked now); an expired generator's label still reads likely_ai", async () => {
    const { camera, signed } = await expiredCapture(null);
    const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem));
    expect(meta.c2pa).toMatchObject({ valid: false, trusted: false });
    expect(meta.c2pa?.trust?.time_source).toBe("now");
    expect(detectAiProvenance(meta).label).toBe("unknown");
    const generator = await makeTestSigner("Generator", { intermediate: true, expired: true });
    const generated = await signAsset(encodeJpeg(scene), generator, DigitalSourceType.TrainedAlgorithmicMedia);
    const generatedMeta = await readMetadata(generated, "image/jpeg", anchored(generator.rootPem));
    expect(generatedMeta.c2pa?.trusted).toBe(false);
    expect(detectAiProvenance(generatedMeta).label).toBe("likely_ai");
  });

  it("a time-stamp after the signer expired does not rescue it", async () => {
    const tsa = await makeTestTsa();
    const { camera, signed } = await expiredCapture(tsa, new Date(Date.now() - 0.5 * 365 * DAY));
    const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem, tsa.rootPem));
    expect(meta.c2pa?.trusted).toBe(false);
    expect(meta.c2pa?.failures).toContain("timeStamp.outsideValidity");
  });

  it("a time-stamp from a TSA under no anchor is not the validation time", async () => {
    const tsa = await makeTestTsa();
    const { camera, signed } = await expiredCapture(tsa);
    const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem));
    expect(meta.c2pa?.trusted).toBe(false);
    expect(meta.c2pa?.trust?.time_source).toBe("now");
  });

  it("a time-stamp whose message imprint is over other bytes, or whose signature is not the TSA's, is not trusted", async () => {
    const tsa = await makeTestTsa();
    const stranger = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    for (const extra of [{ otherImprint: true }, { signingKey: stranger.privateKey }]) {
      const { camera, signed } = await expiredCapture(tsa, withinValidity(), "sigTst2", extra);
      const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem, tsa.rootPem));
      expect(meta.c2pa?.trusted).toBe(false);
      expect(meta.c2pa?.failures).toContain("timeStamp.mismatch");
      expect(meta.c2pa?.trust?.time_source).toBe("now");
    }
  });

  it("a time-stamp whose TSA certificate fails C2PA's certificate profile is not the validation time (c2pa-ts also reports it trusted)", async () => {
    const tsa = await makeTestTsa("Sloppy TSA", { keyUsageCritical: false });
    const { camera, signed } = await expiredCapture(tsa);
    const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem, tsa.rootPem));
    expect(meta.c2pa?.failures).toContain("timeStamp.untrusted");
    expect(meta.c2pa?.trust?.time_source).toBe("now");
    expect(meta.c2pa?.trusted).toBe(false);
  });

  it("a signer stamping its own backdated time (its certificate lacks id-kp-timeStamping) is no TSA, even under an anchored root", async () => {
    const camera = await makeTestSigner("Camera Maker", { intermediate: true, expired: true });
    const self: TestTsa = { rootPem: camera.rootPem, cert: camera.leaf, key: camera.leafKey, chain: [camera.issuer] };
    const signed = await signAsset(encodeJpeg(scene), camera, DigitalSourceType.DigitalCapture, { timestamp: { provider: timestampProvider(self, withinValidity(), { bareToken: true }) } });
    const meta = await readMetadata(signed, "image/jpeg", anchored(camera.rootPem));
    expect(meta.c2pa?.trust?.time_source).toBe("now");
    expect(meta.c2pa?.trusted).toBe(false);
  });
});
