import { describe, expect, it } from "vitest";
import { greyStripPng } from "../../client/capture-page/integrity/png-strip";
import { photoAgreement } from "../../src/analysis/burst/agreement";
import { readGreyStrip } from "../../src/analysis/burst/strip";
import { checkNonce, issueNonce, NONCE_TTL_MS } from "../../src/domain/capture/burst-nonce";
import { syntheticCapture } from "../helpers/bursts";
import { decodeRgb, rng } from "../helpers/synth";

/*
 * The burst's wire: the page's PNG strip read back exactly by the service's bounded reader (and
 * nothing else read), the nonce's checks, and the photo's agreement with the frames at the shutter.
 */

const tiles = (n: number, w: number, h: number, seed: number) => {
  const r = rng(seed);
  return Array.from({ length: n }, () => Uint8Array.from({ length: w * h }, () => Math.floor(r() * 256)));
};

describe("burst strips (client/capture-page/integrity/png-strip.ts → analysis/burst/strip.ts)", () => {
  it("the page's strip reads back exactly, tile by tile", async () => {
    const frames = tiles(12, 160, 120, 1);
    const png = await greyStripPng(frames, 160, 120);
    const back = readGreyStrip(png, 160, 120, 12);
    expect(back).toHaveLength(12);
    back.forEach((tile, i) => expect(Buffer.from(tile).equals(Buffer.from(frames[i]!))).toBe(true));
  });

  it("without CompressionStream the strip is written in stored blocks and still reads back", async () => {
    const global = globalThis as unknown as Record<string, unknown>;
    const saved = global.CompressionStream;
    global.CompressionStream = undefined;
    try {
      const frames = tiles(3, 64, 64, 2);
      const back = readGreyStrip(await greyStripPng(frames, 64, 64), 64, 64, 3);
      expect(Buffer.from(back[2]!).equals(Buffer.from(frames[2]!))).toBe(true);
    } finally {
      global.CompressionStream = saved;
    }
  });

  it("a strip of another size, depth or colour type, or with corrupt data, is refused", async () => {
    const png = await greyStripPng(tiles(4, 32, 32, 3), 32, 32);
    expect(() => readGreyStrip(png, 32, 32, 5)).toThrow(/not 5 tiles/);
    expect(() => readGreyStrip(png, 16, 64, 4)).toThrow(/not 4 tiles/);
    const corrupt = png.slice();
    corrupt.fill(0xff, 60, 90);
    expect(() => readGreyStrip(corrupt, 32, 32, 4)).toThrow();
    const rgb = Uint8Array.from(png);
    rgb[25] = 2; // colour type: RGB
    expect(() => readGreyStrip(rgb, 32, 32, 4)).toThrow();
    expect(() => readGreyStrip(new Uint8Array([1, 2, 3]), 32, 32, 4)).toThrow(/not a PNG/);
  });
});

describe("burst nonce (domain/capture/burst-nonce.ts)", () => {
  const KEY = "k".repeat(64);

  it("checks for the verification it was issued for, within its life", async () => {
    const issued = await issueNonce(KEY, "vfy_A", 1_000_000);
    expect(issued.nonce).toMatch(/^[A-Za-z0-9_-]{40,60}$/);
    expect(issued.expiresAt).toBe(1_000_000 + NONCE_TTL_MS);
    expect(await checkNonce(KEY, "vfy_A", issued.nonce, 1_000_000 + 60_000)).toEqual({ ok: true, issuedAt: 1_000_000 });
    expect(await checkNonce(KEY, "vfy_B", issued.nonce, 1_000_000)).toMatchObject({ ok: false, code: "burst_nonce_invalid" });
    expect(await checkNonce("x".repeat(64), "vfy_A", issued.nonce, 1_000_000)).toMatchObject({ ok: false, code: "burst_nonce_invalid" });
    expect(await checkNonce(KEY, "vfy_A", issued.nonce, 1_000_000 + NONCE_TTL_MS + 1)).toMatchObject({ ok: false, code: "burst_nonce_expired" });
  });

  it("fresh randomness each time, and a changed character no longer checks", async () => {
    const a = await issueNonce(KEY, "vfy_A", 5);
    const b = await issueNonce(KEY, "vfy_A", 5);
    expect(a.nonce).not.toBe(b.nonce);
    const flipped = a.nonce.slice(0, 5) + (a.nonce[5] === "A" ? "B" : "A") + a.nonce.slice(6);
    expect(await checkNonce(KEY, "vfy_A", flipped, 5)).toMatchObject({ ok: false, code: "burst_nonce_invalid" });
    expect(await checkNonce(KEY, "vfy_A", "not a nonce", 5)).toMatchObject({ ok: false, code: "burst_nonce_invalid" });
  });
});

describe("the photo against the burst (analysis/burst/agreement.ts)", () => {
  const overviewOf = (jpeg: Uint8Array) => {
    const rgb = decodeRgb(jpeg, "image/jpeg");
    return { width: rgb.width, height: rgb.height, data: Uint8Array.from({ length: rgb.width * rgb.height }, (_, i) => rgb.data[i * 3]!) };
  };
  const framesOf = async (capture: Awaited<ReturnType<typeof syntheticCapture>>) => {
    const { width, height, times_ms, png_base64 } = capture.integrity.frames;
    const luma = readGreyStrip(Uint8Array.from(atob(png_base64), (c) => c.charCodeAt(0)), width, height, times_ms.length);
    return luma.map((l, i) => ({ t: times_ms[i]!, width, height, luma: l }));
  };

  it("the photo taken at the shutter agrees with the frames there; another scene's photo does not", async () => {
    const capture = await syntheticCapture("scene3d", 11);
    const frames = await framesOf(capture);
    const own = photoAgreement(overviewOf(capture.photo), frames);
    expect(own).toMatchObject({ measured: true });
    expect((own as { score: number }).score).toBeGreaterThan(0.95);
    const other = photoAgreement(overviewOf((await syntheticCapture("scene3d", 12)).photo), frames);
    expect((other as { score: number }).score).toBeLessThan(0.5);
  });

  it("a photo of another shape, or a burst with no frame at the shutter, cannot agree", async () => {
    const capture = await syntheticCapture("plane", 13);
    const frames = await framesOf(capture);
    const square = { width: 300, height: 300, data: new Uint8Array(300 * 300).fill(9) };
    expect(photoAgreement(square, frames)).toMatchObject({ measured: false, why: "aspect" });
    expect(photoAgreement(overviewOf(capture.photo), frames.filter((f) => Math.abs(f.t) > 200))).toMatchObject({ measured: false, why: "no_frame" });
    const plain = { width: 480, height: 360, data: new Uint8Array(480 * 360).fill(128) };
    expect(photoAgreement(plain, frames)).toMatchObject({ measured: false, why: "plain" });
  });
});
