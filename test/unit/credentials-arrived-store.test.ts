import { JPEG } from "@trustnxt/c2pa-ts/asset";
import { describe, expect, it } from "vitest";
import { checkPhoto } from "../../client/certificate-page/photos";
import type { CertificatePayload } from "../../clients/typescript/src/certificate";
import { readC2pa } from "../../src/analysis/c2pa";
import { appendManifest, readArrivedStore, STORE_PARSE_BUDGET_BYTES, UnextendableStoreError, type ArrivedStore } from "../../src/domain/credentials/arrived-store";
import type { CaptureFacts } from "../../src/domain/credentials/facts";
import { embedCredentials } from "../../src/domain/credentials/manifest";
import { credentialsOffered } from "../../src/domain/credentials/offer";
import { DigitalSourceType, makeTestSigner, signJpeg } from "../helpers/c2pa";
import { sha256Hex } from "../helpers/images";
import { encodeJpeg, naturalScene } from "../helpers/synth";

/* Content Credentials on a file that arrived with a C2PA manifest store: which captures get them, and the store kept whole. */

const JPEG_CAPTURE = { contentType: "image/jpeg", sizeBytes: 1000 };
const completed = (c2pa: unknown) => ({ status: "completed", result: { metadata: { c2pa } } });

describe("credentialsOffered", () => {
  it("offers a file that arrived with a readable manifest store, as one without", () => {
    expect(credentialsOffered(JPEG_CAPTURE, completed(null))).toBe(true);
    expect(credentialsOffered(JPEG_CAPTURE, completed({ manifests: ["urn:c2pa:1"], failures: [] }))).toBe(true);
    expect(credentialsOffered(JPEG_CAPTURE, completed({ manifests: ["urn:c2pa:1"], failures: ["signingCredential.expired", "assertion.dataHash.mismatch"] }))).toBe(true);
  });

  it("offers none for a store the analysis could not read, or one with no manifest", () => {
    expect(credentialsOffered(JPEG_CAPTURE, completed({ manifests: [], failures: ["manifest.malformed: JUMBF box at 8 states 3103785410 bytes, beyond its superbox"] }))).toBe(false);
    expect(credentialsOffered(JPEG_CAPTURE, completed({ manifests: [], failures: ["asset.malformed: Error"] }))).toBe(false);
    expect(credentialsOffered(JPEG_CAPTURE, completed({ manifests: ["urn:c2pa:1"], failures: ["manifest.malformed: c2pa-ts"] }))).toBe(false);
    expect(credentialsOffered(JPEG_CAPTURE, completed({ manifests: [], failures: [] }))).toBe(false);
  });
});

function storeWith(bytes: number[], header: ArrivedStore["header"]): ArrivedStore {
  return { bytes: Uint8Array.from(bytes), header } as ArrivedStore;
}

describe("appendManifest", () => {
  it("keeps the store's bytes and grows the 32-bit length in its header", () => {
    const store = storeWith([0, 0, 0, 12, 0x6a, 0x75, 0x6d, 0x62, 9, 8, 7, 6], { lengthAt: 0, headerLength: 8 });
    expect([...appendManifest(store, Uint8Array.from([1, 2, 3]))]).toEqual([0, 0, 0, 15, 0x6a, 0x75, 0x6d, 0x62, 9, 8, 7, 6, 1, 2, 3]);
  });

  it("grows an XLBox length (LBox 1) in place", () => {
    const store = storeWith([0, 0, 0, 1, 0x6a, 0x75, 0x6d, 0x62, 0, 0, 0, 0, 0, 0, 0, 17, 5], { lengthAt: 8, headerLength: 16 });
    expect([...appendManifest(store, Uint8Array.from([1, 2]))]).toEqual([0, 0, 0, 1, 0x6a, 0x75, 0x6d, 0x62, 0, 0, 0, 0, 0, 0, 0, 19, 5, 1, 2]);
  });
});

describe("readArrivedStore", () => {
  it("names the store's active manifest and hashes its box and its claim signature box as they arrived", async () => {
    const camera = await makeTestSigner("Some Camera");
    const received = await signJpeg(encodeJpeg(naturalScene(120, 90, 78), 90), camera, DigitalSourceType.DigitalCapture);
    const asset = new JPEG(received);
    const jumbf = asset.getManifestJUMBF()!;
    const arrived = await readArrivedStore(asset, jumbf);
    const label = (await readC2pa(received, [camera.leafFingerprint]))!.manifests[0]!;
    expect(arrived).toMatchObject({ manifestCount: 1, activeLabel: label, activeSigner: "CN=Some Camera" });
    expect(arrived.bytes).toEqual(jumbf);
    // The manifest box is the store's only content box after its description box: its payload is the store's tail past its 8-byte header.
    const descriptionEnd = 8 + new DataView(jumbf.buffer, jumbf.byteOffset).getUint32(8);
    expect(arrived.activeManifest).toMatchObject({ uri: `self#jumbf=/c2pa/${label}`, algorithm: "SHA-256" });
    expect(Buffer.from(arrived.activeManifest.hash).toString("hex")).toBe(await sha256Hex(jumbf.subarray(descriptionEnd + 8)));
    expect(arrived.claimSignature.uri).toBe(`self#jumbf=/c2pa/${label}/c2pa.signature`);
    expect(arrived.validationResults.activeManifest.failure).toEqual([]);
    expect(arrived.validationResults.activeManifest.success.map((s) => s.code)).toEqual(expect.arrayContaining(["claimSignature.validated", "assertion.dataHash.match"]));
    // c2pa-ts checks the certificate against no trust list: its "trusted" is not written down as a trust verdict.
    expect(arrived.validationResults.activeManifest.success.map((s) => s.code)).not.toContain("signingCredential.trusted");
  });

  it("refuses a store whose box length is not its size", async () => {
    const received = await signJpeg(encodeJpeg(naturalScene(120, 90, 79), 90), await makeTestSigner("Some Camera"), DigitalSourceType.DigitalCapture);
    const asset = new JPEG(received);
    const jumbf = asset.getManifestJUMBF()!.slice();
    new DataView(jumbf.buffer).setUint32(0, jumbf.length - 1);
    await expect(readArrivedStore(asset, jumbf)).rejects.toBeInstanceOf(UnextendableStoreError);
  });
});

describe("readArrivedStore: bounded before c2pa-ts reads", () => {
  it("refuses a store whose nesting would have c2pa-ts copy more than the budget, before reading it", async () => {
    // 12 superboxes nested in one another around a 1.5 MB payload: 1.5 MB of store, about 18 MB copied by a read.
    let box = new Uint8Array(1_500_000);
    for (let i = 0; i < 12; i++) {
      const outer = new Uint8Array(box.length + 8);
      new DataView(outer.buffer).setUint32(0, outer.length);
      outer.set([0x6a, 0x75, 0x6d, 0x62], 4);
      outer.set(box, 8);
      box = outer;
    }
    const asset = new JPEG(await signJpeg(encodeJpeg(naturalScene(40, 30, 81), 90), await makeTestSigner("Some Camera"), DigitalSourceType.DigitalCapture));
    await expect(readArrivedStore(asset, box)).rejects.toThrow(new UnextendableStoreError(`reading the manifest store would copy more than ${STORE_PARSE_BUDGET_BYTES} bytes`));
  });

  it("refuses a store nested deeper than 16 superboxes, and one whose box overruns its superbox, before reading it", async () => {
    const nested = (levels: number) => {
      let box = new Uint8Array(0);
      for (let i = 0; i < levels; i++) {
        const outer = new Uint8Array(box.length + 8);
        new DataView(outer.buffer).setUint32(0, outer.length);
        outer.set([0x6a, 0x75, 0x6d, 0x62], 4);
        outer.set(box, 8);
        box = outer;
      }
      return box;
    };
    const asset = new JPEG(await signJpeg(encodeJpeg(naturalScene(40, 30, 82), 90), await makeTestSigner("Some Camera"), DigitalSourceType.DigitalCapture));
    await expect(readArrivedStore(asset, nested(17))).rejects.toThrow(new UnextendableStoreError("JUMBF superboxes nest deeper than 16 levels"));
    // 16 levels are walked; c2pa-ts then finds no manifest in them.
    await expect(readArrivedStore(asset, nested(16))).rejects.toThrow(UnextendableStoreError);
    await expect(readArrivedStore(asset, nested(16))).rejects.not.toThrow("JUMBF superboxes nest deeper than 16 levels");
    const overrun = nested(3);
    new DataView(overrun.buffer).setUint32(8, 17);
    await expect(readArrivedStore(asset, overrun)).rejects.toThrow(new UnextendableStoreError("JUMBF box at 8 states 17 bytes, beyond its superbox"));
  });
});

describe("a copy of a file that arrived signed, on the certificate page", () => {
  it("does not match the certified file (which holds only the manifest it arrived with); the file as received does", async () => {
    const received = await signJpeg(encodeJpeg(naturalScene(120, 90, 80), 90), await makeTestSigner("Some Camera"), DigitalSourceType.DigitalCapture);
    const sha256 = await sha256Hex(received);
    const facts = { service: { name: "Deployment" }, received: { sha256, at: "2026-01-01T00:00:00.000Z" }, capture_id: "cap_1", verification_id: "ver_1" } as unknown as CaptureFacts;
    const copy = await embedCredentials(received, "image/jpeg", facts, (await makeTestSigner("Deployment")).signer, { name: "verification-service", version: "0" });
    const payload = { verification: { captures: [{ id: "cap_1", step_key: "front", kind: "live", received_at: "2026-01-01T00:00:00.000Z", sha256 }] } } as unknown as CertificatePayload;
    expect((await checkPhoto(new File([copy], "copy.jpg"), payload)).outcome).toBe("not_in_certificate");
    expect((await checkPhoto(new File([received], "received.jpg"), payload)).outcome).toBe("match");
  });
});
