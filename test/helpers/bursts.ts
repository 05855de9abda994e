import CRC32 from "crc-32";
import type { ReceivedBurst } from "../../src/analysis/burst/received";
import { readGreyStrip } from "../../src/analysis/burst/strip";
import type { CaptureIntegrityV2 } from "../../src/schemas/capture-integrity";
import { callJson } from "./api";
import type { SyntheticCapture } from "./synthetic-burst";

export { PHONE, syntheticCapture, type BurstScene, type SyntheticCapture } from "./synthetic-burst";

/** A burst nonce, as the capture page asks for one before it sends a live capture. */
export async function burstNonce(verificationId: string): Promise<string> {
  const res = await callJson(`/v1/verifications/${verificationId}/captures/burst-nonce`, { method: "POST" });
  if (res.status !== 200) throw new Error(`burst-nonce failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.nonce as string;
}

/** The capture request's `capture_integrity` for `capture`, with a fresh nonce of `verificationId` (or the one given). */
export async function sentIntegrity(verificationId: string, capture: SyntheticCapture, nonce?: string) {
  return { ...capture.integrity, nonce: nonce ?? (await burstNonce(verificationId)) };
}

/**
 * What the analysis holds for `capture` once its strips were stored, read back and every check
 * passed (analysis/burst/received.ts), for calling analyzeImage directly: the stored record and the
 * received burst, `over` replacing any part of it.
 */
export function receivedOf(capture: SyntheticCapture, over: Partial<ReceivedBurst> = {}): { captureIntegrity: CaptureIntegrityV2; burst: ReceivedBurst } {
  const { frames, patches } = capture.integrity;
  const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const record: CaptureIntegrityV2 = {
    schema_version: 2,
    nonce: "n".repeat(51),
    device: capture.integrity.device,
    preview: capture.integrity.preview,
    frames: { width: frames.width, height: frames.height, count: frames.times_ms.length, times_ms: frames.times_ms, sha256: "0".repeat(64), bytes: 0 },
    patches: { side: patches.side, count: patches.times_ms.length, times_ms: patches.times_ms, sha256: "1".repeat(64), bytes: 0 },
  };
  const luma = readGreyStrip(bytes(frames.png_base64), frames.width, frames.height, frames.times_ms.length);
  const burst: ReceivedBurst = {
    record,
    frames: luma.map((l, i) => ({ t: frames.times_ms[i]!, width: frames.width, height: frames.height, luma: l })),
    patches: readGreyStrip(bytes(patches.png_base64), patches.side, patches.side, patches.times_ms.length),
    unreadable: null,
    nonce: { ok: true, issuedAt: 0 },
    nonceReusedBy: [],
    attestationUnbound: null,
    replayOf: [],
    ...over,
  };
  return { captureIntegrity: record, burst };
}

/**
 * A strip (base64) whose chunks lie about the file: its first IDAT claiming 4 GiB, its IEND cut
 * off, a byte after its IEND, its image data dropped (IHDR then IEND), and one byte of its image
 * data changed under the chunk's CRC (a corrupted strip: probe of 2026-12-05).
 */
export function stripLies(pngBase64: string): string[] {
  const png = Uint8Array.from(atob(pngBase64), (c) => c.charCodeAt(0));
  const idat = 33; // after the signature (8) and IHDR (25): the page writes IDAT next
  if (String.fromCharCode(...png.subarray(idat + 4, idat + 8)) !== "IDAT") throw new Error("the strip's second chunk is not IDAT");
  const huge = png.slice();
  new DataView(huge.buffer).setUint32(idat, 0xffffffff);
  const base64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
  const corrupted = png.slice();
  corrupted[idat + 20] = corrupted[idat + 20]! ^ 0x01;
  // An IEND carrying data, its CRC right (probe of 2026-12-06: accepted; the PNG spec's IEND is empty).
  const payload = new TextEncoder().encode("smuggled");
  const fatEnd = new Uint8Array(png.length + payload.length);
  fatEnd.set(png.subarray(0, png.length - 12));
  new DataView(fatEnd.buffer).setUint32(png.length - 12, payload.length);
  fatEnd.set(new TextEncoder().encode("IEND"), png.length - 8);
  fatEnd.set(payload, png.length - 4);
  // A text chunk before IEND, its CRC right (probe of 2026-12-06: 200 000 bytes of tEXt were accepted).
  const text = new Uint8Array(png.length + 12 + payload.length);
  text.set(png.subarray(0, png.length - 12));
  new DataView(text.buffer).setUint32(png.length - 12, payload.length);
  text.set(new TextEncoder().encode("tEXt"), png.length - 8);
  text.set(payload, png.length - 4);
  text.set(png.subarray(png.length - 12), png.length + payload.length);
  const lies = [huge, png.subarray(0, png.length - 12), Uint8Array.from([...png, 0]), Uint8Array.from([...png.subarray(0, idat), ...png.subarray(png.length - 12)]), corrupted, withChunkCrcs(fatEnd), withChunkCrcs(text)];
  return lies.map(base64);
}

/** The PNG with every chunk's CRC written for its bytes as they are now (a forger's corrupted data that passes the door). */
export function withChunkCrcs(png: Uint8Array): Uint8Array {
  const out = png.slice();
  const view = new DataView(out.buffer);
  for (let at = 8; at + 12 <= out.length; ) {
    const end = at + 12 + view.getUint32(at);
    view.setUint32(end - 4, CRC32.buf(out.subarray(at + 4, end - 4)) >>> 0);
    at = end;
  }
  return out;
}
