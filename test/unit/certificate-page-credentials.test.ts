import { describe, expect, it } from "vitest";
import { checkPhoto, withoutC2pa } from "../../client/certificate-page/photos";
import type { CertificatePayload } from "../../clients/typescript/src/certificate";
import { DigitalSourceType, makeTestSigner, signAsset, signJpeg } from "../helpers/c2pa";
import { samplePhoto } from "../helpers/photos";
import { sha256Hex } from "../helpers/images";
import { encodeJpeg, encodePngRgb, naturalScene } from "../helpers/synth";

/* The certificate page recognises a copy downloaded with Content Credentials: the certified photo plus C2PA segments. */

function payloadFor(sha256: string): CertificatePayload {
  return { verification: { captures: [{ id: "cap_1", step_key: "front", kind: "live", received_at: "2026-01-01T00:00:00.000Z", sha256 }] } } as unknown as CertificatePayload;
}

/** A PNG with a `caBX` chunk inserted after IHDR (as c2pa-ts and the reference implementation write it). */
function withCaBX(png: Uint8Array): Uint8Array {
  const ihdrEnd = 8 + 12 + new DataView(png.buffer, png.byteOffset).getUint32(8);
  const body = new TextEncoder().encode("jumbf-bytes");
  const chunk = new Uint8Array(12 + body.length);
  new DataView(chunk.buffer).setUint32(0, body.length);
  chunk.set(new TextEncoder().encode("caBX"), 4);
  chunk.set(body, 8);
  return Uint8Array.from([...png.subarray(0, ihdrEnd), ...chunk, ...png.subarray(ihdrEnd)]);
}

describe("certificate page: a copy with Content Credentials", () => {
  it("a signed JPEG matches its certified original once the APP11 segments are set aside; the original still matches plainly", async () => {
    const original = encodeJpeg(naturalScene(120, 90, 77), 90);
    const signed = await signJpeg(original, await makeTestSigner(), DigitalSourceType.DigitalCapture);
    const payload = payloadFor(await sha256Hex(original));
    expect(withoutC2pa(signed)).toEqual(original);
    expect(await checkPhoto(new File([signed], "signed.jpg"), payload)).toMatchObject({ outcome: "match_with_credentials", capture: { id: "cap_1" } });
    expect(await checkPhoto(new File([original], "original.jpg"), payload)).toMatchObject({ outcome: "match" });
  });

  it("a PNG with a caBX chunk matches; a changed pixel byte does not; a file without C2PA segments is not stripped", async () => {
    const original = encodePngRgb(naturalScene(60, 40, 78));
    const payload = payloadFor(await sha256Hex(original));
    const credentialed = withCaBX(original);
    expect(await checkPhoto(new File([credentialed], "c.png"), payload)).toMatchObject({ outcome: "match_with_credentials" });
    const changed = credentialed.slice();
    changed[changed.length - 20]! ^= 1;
    expect(await checkPhoto(new File([changed], "c.png"), payload)).toMatchObject({ outcome: "not_in_certificate" });
    expect(withoutC2pa(original)).toBeNull();
    expect(withoutC2pa(new Uint8Array([1, 2, 3]))).toBeNull();
  });
  it("a signed WebP (a C2PA chunk appended, the RIFF size grown) matches its certified original once the chunk is set aside", async () => {
    const original = await samplePhoto("dune.webp");
    const signed = await signAsset(original, await makeTestSigner(), DigitalSourceType.DigitalCapture);
    expect(withoutC2pa(signed)).toEqual(original);
    const checked = await checkPhoto(new File([signed], "front.c2pa.webp"), payloadFor(await sha256Hex(original)));
    expect(checked).toMatchObject({ outcome: "match_with_credentials", capture: { id: "cap_1" } });
    expect(withoutC2pa(original)).toBeNull();
  });
});
