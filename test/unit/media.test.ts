import { describe, expect, it } from "vitest";
import { base64LengthLimit, decodeBase64Image, INLINE_MAX_BYTES } from "../../src/domain/capture/media";
import { IMAGE_MEDIA_TYPES, sniffMediaType } from "../../src/model/evidence/media-type";
import { MEDIA_TYPES } from "../../src/schemas/steps";

const bytes = (...parts: Array<number[] | string>) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

function ftyp(major: string, ...compatible: string[]) {
  const size = 16 + compatible.length * 4;
  return bytes([0, 0, 0, size], "ftyp", major, [0, 0, 0, 0], ...compatible);
}

describe("sniffMediaType", () => {
  it("names every type a step may accept, and no other", () => {
    expect([...IMAGE_MEDIA_TYPES].sort()).toEqual([...MEDIA_TYPES].sort());
  });

  it("recognises the five supported types from their bytes", () => {
    expect(sniffMediaType(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(sniffMediaType(bytes([0x89], "PNG\r\n\x1a\n", [0, 0]))).toBe("image/png");
    expect(sniffMediaType(bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 "))).toBe("image/webp");
    expect(sniffMediaType(ftyp("heic", "mif1", "heic"))).toBe("image/heic");
    expect(sniffMediaType(ftyp("mif1", "mif1", "heic"))).toBe("image/heic");
    expect(sniffMediaType(ftyp("mif1", "mif1"))).toBe("image/heif");
  });

  it("refuses everything else", () => {
    expect(sniffMediaType(bytes("GIF89a"))).toBeNull();
    expect(sniffMediaType(ftyp("avif", "mif1", "avif"))).toBeNull();
    expect(sniffMediaType(ftyp("mif1", "mif1", "avif"))).toBeNull();
    expect(sniffMediaType(ftyp("mp42", "isom"))).toBeNull();
    expect(sniffMediaType(bytes("%PDF-1.7"))).toBeNull();
    expect(sniffMediaType(new Uint8Array(0))).toBeNull();
    expect(sniffMediaType(bytes([0xff, 0xd8]))).toBeNull();
  });
});

describe("decodeBase64Image", () => {
  it("decodes plain, data-URL and url-safe base64 and refuses garbage", () => {
    expect([...decodeBase64Image("AAEC")!]).toEqual([0, 1, 2]);
    expect([...decodeBase64Image("data:image/jpeg;base64,AAEC")!]).toEqual([0, 1, 2]);
    expect([...decodeBase64Image("AA\nEC")!]).toEqual([0, 1, 2]);
    expect([...decodeBase64Image("-_8=")!]).toEqual([251, 255]);
    expect(decodeBase64Image("")).toBeNull();
    expect(decodeBase64Image("***")).toBeNull();
    expect(decodeBase64Image("A")).toBeNull();
  });

  it("the character limit admits exactly the 6 MB cap", () => {
    expect(base64LengthLimit(INLINE_MAX_BYTES)).toBeGreaterThanOrEqual(Math.ceil(INLINE_MAX_BYTES / 3) * 4);
  });
});
