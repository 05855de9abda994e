import { describe, expect, it } from "vitest";
import { decodeImage } from "../../src/analysis/decoders";
import { bands, imageFingerprint, type Fingerprint } from "../../src/analysis/signals/perceptual-hash";
import { reverseSearchResult } from "../../src/analysis/signals/reverse-search";
import { indexAndFindNearDuplicates } from "../../src/db/analyses";
import { imageHashes } from "../../src/db/schema";
import { astronautFlagJpeg, astronautJpeg, chelseaJpeg, coffeeJpeg } from "../fixtures/photos";
import { db } from "../helpers/api";
import { resizeArea } from "../helpers/recapture";
import { crop, decodeRgb, encodeJpeg, encodePngRgb, mirror } from "../helpers/synth";

async function fingerprintOf(bytes: Uint8Array, type = "image/jpeg"): Promise<Fingerprint> {
  return imageFingerprint((await decodeImage(bytes, type))!.overview);
}

let n = 0;
function index(fingerprint: Fingerprint, verificationId = `vfy_IDX${(n += 1)}`, tenantId = "tnt_a") {
  return indexAndFindNearDuplicates(db(), { captureId: `cap_IDX${(n += 1)}`, verificationId, tenantId, fingerprint, now: Date.now() });
}

/** Rows straight into the index (a large index without analysing thousands of images). */
async function insertRows(rows: Array<{ captureId: string; verificationId: string; hash: string; aux: string }>) {
  const values = rows.map((r) => {
    const [band0, band1, band2, band3] = bands(r.hash);
    return { ...r, region: "full", tenantId: "tnt_a", algorithm: "phash64+dhash64/2", band0, band1, band2, band3, createdAt: Date.now() };
  });
  const statements = [];
  for (let i = 0; i < values.length; i += 8) statements.push(db().insert(imageHashes).values(values.slice(i, i + 8)));
  await db().batch(statements as [(typeof statements)[number], ...typeof statements]);
}

/** A 64-bit hex hash with the given bits of `hash` flipped (0 = most significant). */
function flip(hash: string, bits: number[]): string {
  let value = BigInt(`0x${hash}`);
  for (const b of bits) value ^= 1n << BigInt(63 - b);
  return value.toString(16).padStart(16, "0");
}

describe("reverse_search: perceptual-hash index in D1 (real photographs)", () => {
  const photo = decodeRgb(chelseaJpeg, "image/jpeg");

  it("finds resized, recompressed, re-encoded and cropped copies in other verifications, and nothing for another photograph", async () => {
    const first = await index(await fingerprintOf(chelseaJpeg), "vfy_ORIGINAL");
    expect(first).toEqual([]);
    const copies = [
      encodeJpeg(resizeArea(photo, 80, 60), 70),
      encodeJpeg(photo, 50),
      encodePngRgb(photo),
      encodeJpeg(crop(photo, 8, 6, 144, 108), 85), // 5 % off every side
      encodeJpeg(crop(photo, 0, 0, 144, 120), 85), // 10 % off the right
    ];
    for (const [i, bytes] of copies.entries()) {
      const matches = await index(await fingerprintOf(bytes, i === 2 ? "image/png" : "image/jpeg"));
      expect(matches.map((m) => m.verification_id)).toContain("vfy_ORIGINAL");
    }
    // The original arriving after its crop finds it too (its windows meet the crop's whole frame).
    const cropped = await fingerprintOf(encodeJpeg(crop(decodeRgb(coffeeJpeg, "image/jpeg"), 0, 0, 144, 108), 85));
    await index(cropped, "vfy_CROP_FIRST");
    expect((await index(await fingerprintOf(coffeeJpeg))).map((m) => m.verification_id)).toContain("vfy_CROP_FIRST");

    const other = await index(await fingerprintOf(astronautJpeg));
    expect(other.map((m) => m.verification_id)).not.toContain("vfy_ORIGINAL");
  });

  it("a copy inside the same verification is not a reverse-search match (the case analysis sees it)", async () => {
    const fp = await fingerprintOf(astronautFlagJpeg);
    await index(fp, "vfy_SAME");
    expect(await index(await fingerprintOf(encodeJpeg(decodeRgb(astronautFlagJpeg, "image/jpeg"), 70)), "vfy_SAME")).toEqual([]);
  });

  it("recall is exact however many candidates share a band: the match is found behind 250 decoys", async () => {
    const query = await fingerprintOf(coffeeJpeg);
    // Decoys share the query's first band exactly (so every lookup reads them) but are 36+ bits away.
    const decoys = Array.from({ length: 250 }, (_, i) => ({
      captureId: `cap_DECOY${i}`,
      verificationId: `vfy_DECOY${i}`,
      hash: flip(query.hash, Array.from({ length: 36 }, (_, k) => 16 + ((k + i) % 48))),
      aux: query.aux,
    }));
    await insertRows(decoys);
    // The true copy is stored last, 5 bits away, after every decoy.
    await insertRows([{ captureId: "cap_TRUE", verificationId: "vfy_TRUE", hash: flip(query.hash, [20, 33, 41, 50, 60]), aux: query.aux }]);
    const matches = await indexAndFindNearDuplicates(db(), { captureId: "cap_QUERY", verificationId: "vfy_QUERY", tenantId: "tnt_a", fingerprint: query, now: Date.now() });
    expect(matches.map((m) => m.capture_id)).toContain("cap_TRUE");
    expect(matches.find((m) => m.capture_id === "cap_TRUE")!.distance).toBe(5);
    expect(matches.some((m) => m.capture_id.startsWith("cap_DECOY"))).toBe(false);
  });

  it("every copy is counted, past any page size: 230 verifications reusing one photo", async () => {
    const query = await fingerprintOf(chelseaJpeg);
    const hash = flip(query.hash, [1]);
    await insertRows(Array.from({ length: 230 }, (_, i) => ({ captureId: `cap_REUSE${i}`, verificationId: `vfy_REUSE${i}`, hash, aux: query.aux })));
    const matches = await indexAndFindNearDuplicates(db(), { captureId: "cap_REUSEQ", verificationId: "vfy_REUSEQ", tenantId: "tnt_a", fingerprint: query, now: Date.now() });
    expect(matches.filter((m) => m.capture_id.startsWith("cap_REUSE")).length).toBe(230);
  });

  it("known miss: a mirrored copy is a different picture to the hash", async () => {
    const fp = await fingerprintOf(encodeJpeg(photo, 90));
    await index(fp, "vfy_MIRROR_SRC");
    const mirrored = await index(await fingerprintOf(encodeJpeg(mirror(photo), 90)));
    expect(mirrored.map((m) => m.verification_id)).not.toContain("vfy_MIRROR_SRC");
  });

  it("the signal reports internal matches, says the web was not searched, and names low-texture refusals", () => {
    const fp = { hash: "00ff00ff00ff00ff", texture: 20, matchable: true };
    const result = reverseSearchResult("tnt_a", fp, [{ capture_id: "cap_x", verification_id: "vfy_x", tenant_id: "tnt_b", distance: 2 }], null);
    expect(result).toMatchObject({ found_online: false, match_count: 1, provider: "internal-phash" });
    expect(result.evidence.map((e) => e.code)).toEqual(["internal_near_duplicate", "near_duplicate", "web_search_not_configured"]);
    expect(result.evidence[1]!.detail).toBe("another tenant's verification");
    const refused = reverseSearchResult("tnt_a", { ...fp, texture: 1.2, matchable: false }, [], null);
    expect(refused).toMatchObject({ match_count: 0 });
    expect(refused.evidence.map((e) => e.code)).toEqual(["low_texture_not_matched", "web_search_not_configured"]);
  });
});
