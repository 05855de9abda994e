import { describe, expect, it } from "vitest";
import { decodeProgressiveJpeg } from "../../src/analysis/decoders/progressive-jpeg";
import { decodeImage, DecodeFailure, type DecodeRequest } from "../../src/analysis/decoders";
import { screenTileRects } from "../../src/analysis/signals/screen-moire";
import { samplePhoto } from "../helpers/photos";

// The progressive decoder that takes over when libjpeg's coefficient buffer would not fit a Worker
// (50 MP, 12 MP at 4:4:4), forced here on small progressive crops of a real photograph
// (scripts/progressive-jpeg-samples.ts: MozJPEG at 4:2:0, 4:4:4 and grayscale, and jpegtran's
// standard scan script with successive approximation and restart markers), against libjpeg-turbo's
// decode of the same bytes (those are small enough for it).
const SAMPLES = ["dune-progressive-420.jpg", "dune-progressive-444.jpg", "dune-progressive-gray.jpg", "dune-progressive-restart.jpg"];
const [WIDTH, HEIGHT] = [203, 141];
const whole: DecodeRequest["tiles"] = (width, height) => [{ x: 0, y: 0, width, height }];

function maxAbsDiff(a: Uint8Array, b: Uint8Array): number {
  expect(a.length).toBe(b.length);
  return a.reduce((max, v, i) => Math.max(max, Math.abs(v - b[i]!)), 0);
}

function outcome(run: () => unknown): string {
  try {
    run();
    return "decoded";
  } catch (err) {
    return err instanceof DecodeFailure ? err.reason : `other: ${String(err)}`;
  }
}

/** Each segment's marker and where it starts, up to the end of image (entropy-coded data skipped). */
function segments(bytes: Uint8Array): Array<{ marker: number; at: number; header: Uint8Array }> {
  const out = [];
  let i = 2;
  while (i + 4 <= bytes.length) {
    const marker = bytes[i + 1]!;
    if (bytes[i] !== 0xff || marker === 0 || marker === 0xff || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 1;
      continue;
    }
    if (marker === 0xd9) break;
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    out.push({ marker, at: i, header: bytes.subarray(i + 4, i + 2 + length) });
    i += 2 + length;
  }
  return out;
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
};

describe("progressive JPEG without libjpeg's coefficient buffer (real photographs)", () => {
  it("the samples cover interleaved and single-component scans, refinement scans and restart intervals", async () => {
    const scans = (bytes: Uint8Array) => segments(bytes).filter((s) => s.marker === 0xda);
    const restart = await samplePhoto("dune-progressive-restart.jpg");
    const refinements = scans(restart).filter((s) => s.header[s.header.length - 1]! >> 4 > 0);
    expect(refinements.map((s) => (s.header[1 + 2 * s.header[0]!] === 0 ? "DC" : "AC"))).toEqual(expect.arrayContaining(["DC", "AC"]));
    expect(segments(restart).find((s) => s.marker === 0xdd)?.header).toEqual(Uint8Array.from([0, 3]));
    for (const name of SAMPLES) {
      const bytes = await samplePhoto(name);
      expect({ name, progressive: segments(bytes).some((s) => s.marker === 0xc2), scans: scans(bytes).length > 2 }).toEqual({ name, progressive: true, scans: true });
    }
  });

  it("native-resolution tiles are libjpeg-turbo's pixels within ±1 (float IDCT against its integer one)", async () => {
    for (const name of SAMPLES) {
      const bytes = await samplePhoto(name);
      for (const tiles of [whole, screenTileRects]) {
        const reference = await decodeImage(bytes, "image/jpeg", { tiles });
        const ours = decodeProgressiveJpeg(bytes, { tiles });
        expect(ours).toMatchObject({ width: WIDTH, height: HEIGHT });
        expect(ours.tiles.map(({ x, y, width, height }) => ({ x, y, width, height }))).toEqual(reference.tiles.map(({ x, y, width, height }) => ({ x, y, width, height })));
        expect(ours.tiles.length).toBeGreaterThan(0);
        for (const [i, tile] of ours.tiles.entries()) expect({ name, tile: i, diff: maxAbsDiff(tile.data, reference.tiles[i]!.data) <= 1 }).toEqual({ name, tile: i, diff: true });
      }
    }
  });

  it("the overview is libjpeg-turbo's picture at 1/8 scale (block means within ±1), the thumbnail its colours per MCU within ±3", async () => {
    for (const name of SAMPLES) {
      const bytes = await samplePhoto(name);
      // libjpeg-turbo at full scale (203 px fits the 1024 px overview): luma, and RGB as the thumbnail.
      const reference = await decodeImage(bytes, "image/jpeg", { thumbnailMaxSide: WIDTH });
      const gray = await decodeImage(bytes, "image/jpeg", {});
      const ours = decodeProgressiveJpeg(bytes, { thumbnailMaxSide: WIDTH });
      const ourGray = decodeProgressiveJpeg(bytes, {});
      expect(ours.overview).toMatchObject({ width: 26, height: 18 });
      expect(ours.thumbnail).toMatchObject({ width: 26, height: 18 });
      const mean = (data: Uint8Array, stride: number, channels: number, x0: number, y0: number, side: number, c: number) => {
        let sum = 0;
        for (let y = y0; y < y0 + side; y += 1) for (let x = x0; x < x0 + side; x += 1) sum += data[(y * stride + x) * channels + c]!;
        return sum / (side * side);
      };
      // Whole 8×8 blocks (the right and bottom edge blocks are partly padding): the DC is their mean.
      let luma = 0;
      for (let by = 0; by < Math.floor(HEIGHT / 8); by += 1) {
        for (let bx = 0; bx < Math.floor(WIDTH / 8); bx += 1) {
          luma = Math.max(luma, Math.abs(mean(gray.overview.data, WIDTH, 1, bx * 8, by * 8, 8, 0) - ourGray.overview.data[by * 26 + bx]!));
        }
      }
      expect({ name, luma: luma <= 1 }).toEqual({ name, luma: true });
      // Chroma is one DC per chroma block (16 px at 4:2:0): colours compare over whole MCUs.
      let colour = 0;
      for (let my = 0; my < Math.floor(HEIGHT / 16); my += 1) {
        for (let mx = 0; mx < Math.floor(WIDTH / 16); mx += 1) {
          for (let c = 0; c < 3; c += 1) {
            colour = Math.max(colour, Math.abs(mean(reference.thumbnail!.rgb, WIDTH, 3, mx * 16, my * 16, 16, c) - mean(ours.thumbnail!.rgb, 26, 3, mx * 2, my * 2, 2, c)));
          }
        }
      }
      expect({ name, colour: colour <= 3 }).toEqual({ name, colour: true });
    }
  });

  it("truncated or damaged scan data is undecodable_image, and no corruption crashes or hangs it", async () => {
    const bytes = await samplePhoto("dune-progressive-restart.jpg");
    const eoi = Uint8Array.from([0xff, 0xd9]);
    const firstScan = segments(bytes).find((s) => s.marker === 0xda)!.at;
    const cases: Array<[string, Uint8Array]> = [
      ["no end of image", bytes.slice(0, bytes.length - 2)],
      ["cut in the first scan", bytes.slice(0, firstScan + 200)],
      ["cut in the first scan, end of image appended", concat(bytes.slice(0, firstScan + 200), eoi)],
      ["cut half way, end of image appended", concat(bytes.slice(0, bytes.length >> 1), eoi)],
      ["cut near the end, end of image appended", concat(bytes.slice(0, bytes.length - 40), eoi)],
    ];
    // Bytes the first scan never reads, left before the next segment.
    const secondSegment = segments(bytes).find((s) => s.at > firstScan)!.at;
    cases.push(["extraneous bytes after a scan", concat(bytes.subarray(0, secondSegment), new Uint8Array(16).fill(0x55), bytes.subarray(secondSegment))]);
    // A frame header that lists no components.
    const sof = segments(bytes).find((s) => s.marker === 0xc2)!.at;
    const empty = bytes.slice();
    empty[sof + 9] = 0;
    cases.push(["frame without components", empty]);
    // A restart marker out of sequence (RST0 → RST5).
    const rst = bytes.slice();
    const at = rst.findIndex((v, i) => i > firstScan && v === 0xff && rst[i + 1] === 0xd0);
    rst[at + 1] = 0xd5;
    cases.push(["restart marker out of sequence", rst]);
    for (const [what, data] of cases) expect({ what, outcome: outcome(() => decodeProgressiveJpeg(data, { tiles: screenTileRects })) }).toEqual({ what, outcome: "undecodable_image" });

    // Any single damaged byte: pixels or a DecodeFailure, never another error (seeded, every region of
    // the file; a damaged frame header can claim a huge frame or a colour space this path leaves out).
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) / 2 ** 24;
    const seen = new Set<string>();
    for (let i = 0; i < 300; i += 1) {
      const damaged = bytes.slice();
      damaged[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      seen.add(outcome(() => decodeProgressiveJpeg(damaged, { tiles: screenTileRects, thumbnailMaxSide: 64 })));
    }
    expect([...seen].filter((o) => !["decoded", "undecodable_image", "image_too_large"].includes(o))).toEqual([]);
    expect(seen).toContain("undecodable_image");
  });

  it("a file of more than 200 scans is undecodable_image (each scan walks every block)", async () => {
    const bytes = await samplePhoto("dune-progressive-restart.jpg");
    // Repeating the DC refinement scan is valid (one bit per block each time): 150 copies decode.
    const all = segments(bytes);
    const i = all.findIndex((s) => s.marker === 0xda && s.header[1 + 2 * s.header[0]!] === 0 && s.header[s.header.length - 1]! >> 4 > 0);
    const scan = bytes.subarray(all[i]!.at, all[i + 1]!.at);
    const repeated = (n: number) => concat(bytes.subarray(0, bytes.length - 2), ...Array.from({ length: n }, () => scan), bytes.subarray(bytes.length - 2));
    expect(outcome(() => decodeProgressiveJpeg(repeated(150), {}))).toBe("decoded");
    expect(outcome(() => decodeProgressiveJpeg(repeated(200), {}))).toBe("undecodable_image");
  });

  it("is taken only over libjpeg's budget, and refuses a frame whose DC and history alone exceed it (image_too_large, nothing allocated)", async () => {
    const bytes = await samplePhoto("dune-progressive-444.jpg");
    // 203×141 at 4:4:4 fits libjpeg: decodeImage gives libjpeg-turbo's exact pixels, not within ±1.
    const libjpeg = await decodeImage(bytes, "image/jpeg", { tiles: whole });
    const ours = decodeProgressiveJpeg(bytes, { tiles: whole });
    expect(maxAbsDiff(libjpeg.tiles[0]!.data, ours.tiles[0]!.data)).toBeGreaterThan(0);
    // The same header claiming 60000×60000 at 4:4:4 (169 M blocks of 10 bytes) is over the frame
    // ceiling: refused from the header before the decoder is chosen.
    const sof = segments(bytes).find((s) => s.marker === 0xc2)!.at;
    const huge = bytes.slice();
    huge.set([60000 >> 8, 60000 & 255, 60000 >> 8, 60000 & 255], sof + 5);
    const failure = await decodeImage(huge, "image/jpeg", { tiles: screenTileRects }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(DecodeFailure);
    expect(failure).toMatchObject({ reason: "image_too_large", message: expect.stringMatching(/^JPEG frame of 60000x60000 needs 3600\.0 MP decoded, over the/) });
    // Under the ceiling (7000×7000, 49 MP at 4:4:4: 23 MiB of DC and history) the decoder's own
    // budget still counts the input: with 44 MiB of it (over the upload cap) it refuses before allocating.
    const large = bytes.slice();
    large.set([7000 >> 8, 7000 & 255, 7000 >> 8, 7000 & 255], sof + 5);
    const padded = concat(large, new Uint8Array(44 * 2 ** 20));
    const refused = await decodeImage(padded, "image/jpeg", { tiles: screenTileRects }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ reason: "image_too_large", message: expect.stringMatching(/^progressive JPEG of 7000x7000 needs \d+ MB beside its 44 MB of data/) });
  });
});
