import { describe, expect, it } from "vitest";
import { decodeImage } from "../../src/analysis/pixels";
import { DHASH_ALGORITHM, dhash64, hammingDistance, NEAR_DUPLICATE_MAX_DISTANCE } from "../../src/analysis/signals/perceptual-hash";
import { reverseSearchResult } from "../../src/analysis/signals/reverse-search";
import { indexAndFindNearDuplicates } from "../../src/db/analyses";
import { db } from "../helpers/api";
import { crop, encodeJpeg, encodePngRgb, mirror, naturalScene, resize, type Rgb } from "../helpers/synth";

async function hashOf(bytes: Uint8Array, type = "image/jpeg"): Promise<string> {
  return dhash64((await decodeImage(bytes, type))!.overview);
}

let n = 0;
function index(hash: string, verificationId = `vfy_TEST${(n += 1)}`, tenantId = "tnt_a") {
  return indexAndFindNearDuplicates(db(), { captureId: `cap_TEST${(n += 1)}`, verificationId, tenantId, algorithm: DHASH_ALGORITHM, hash, now: Date.now() });
}

describe("reverse_search: perceptual-hash index in D1", () => {
  const original: Rgb = naturalScene(400, 300, 77);

  it("finds a resized, recompressed copy in another verification and nothing for an unrelated image", async () => {
    const first = await index(await hashOf(encodeJpeg(original, 92)), "vfy_ORIGINAL");
    expect(first).toEqual([]);
    const copy = await index(await hashOf(encodeJpeg(resize(original, 200, 150), 70)));
    expect(copy.map((m) => m.verification_id)).toContain("vfy_ORIGINAL");
    expect(copy[0]!.distance).toBeLessThanOrEqual(NEAR_DUPLICATE_MAX_DISTANCE);
    const pngCopy = await index(await hashOf(encodePngRgb(original), "image/png"));
    expect(pngCopy.map((m) => m.verification_id)).toContain("vfy_ORIGINAL");

    const unrelated = await index(await hashOf(encodeJpeg(naturalScene(400, 300, 78))));
    expect(unrelated.map((m) => m.verification_id)).not.toContain("vfy_ORIGINAL");
  });

  it("a copy inside the same verification is not a reverse-search match (the case analysis sees it)", async () => {
    const scene = naturalScene(200, 150, 79);
    await index(await hashOf(encodeJpeg(scene)), "vfy_SAME");
    expect(await index(await hashOf(encodeJpeg(scene, 80)), "vfy_SAME")).toEqual([]);
  });

  it("known misses: mirroring and a large crop change the hash beyond the radius", async () => {
    const scene = naturalScene(400, 300, 80);
    const base = await hashOf(encodeJpeg(scene));
    expect(hammingDistance(base, await hashOf(encodeJpeg(mirror(scene))))).toBeGreaterThan(NEAR_DUPLICATE_MAX_DISTANCE);
    expect(hammingDistance(base, await hashOf(encodeJpeg(crop(scene, 100, 75, 200, 150))))).toBeGreaterThan(NEAR_DUPLICATE_MAX_DISTANCE);
  });

  it("the signal reports internal matches and says the web was not searched", () => {
    const result = reverseSearchResult("tnt_a", "00ff00ff00ff00ff", [{ capture_id: "cap_x", verification_id: "vfy_x", tenant_id: "tnt_b", distance: 2 }], null);
    expect(result).toMatchObject({ found_online: false, match_count: 1, provider: "internal-dhash" });
    expect(result.evidence.map((e) => e.code)).toEqual(["internal_near_duplicate", "near_duplicate", "web_search_not_configured"]);
    expect(result.evidence[1]!.detail).toBe("another tenant's verification");
  });
});
