import { describe, expect, it } from "vitest";
import { decodeImage } from "../../src/analysis/decoders";
import { bands, imageFingerprint, type Fingerprint } from "../../src/analysis/signals/perceptual-hash";
import { LISTED_MATCHES, reverseSearchResult } from "../../src/analysis/signals/reverse-search";
import { indexAndFindNearDuplicates, LOOKUP_ROWS } from "../../src/db/analyses";
import { eq } from "drizzle-orm";
import { imageHashes, tenants } from "../../src/db/schema";
import { createTenant } from "../../src/domain/tenants/tenants";
import { astronautFlagJpeg, astronautJpeg, chelseaJpeg, coffeeJpeg } from "../fixtures/photos";
import { db } from "../helpers/api";
import { resizeArea } from "../helpers/recapture";
import { crop, decodeRgb, encodeJpeg, encodePngRgb, mirror } from "../helpers/synth";

async function fingerprintOf(bytes: Uint8Array, type = "image/jpeg"): Promise<Fingerprint> {
  return imageFingerprint((await decodeImage(bytes, type))!.overview);
}

let n = 0;
async function index(fingerprint: Fingerprint, verificationId = `vfy_IDX${(n += 1)}`, tenantId = "tnt_a") {
  return (await indexAndFindNearDuplicates(db(), { captureId: `cap_IDX${(n += 1)}`, verificationId, tenantId, fingerprint, now: Date.now() })).matches;
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
    const { matches } = await indexAndFindNearDuplicates(db(), { captureId: "cap_QUERY", verificationId: "vfy_QUERY", tenantId: "tnt_a", fingerprint: query, now: Date.now() });
    expect(matches.map((m) => m.capture_id)).toContain("cap_TRUE");
    expect(matches.find((m) => m.capture_id === "cap_TRUE")!.distance).toBe(5);
    expect(matches.some((m) => m.capture_id.startsWith("cap_DECOY"))).toBe(false);
  });

  it("every copy is counted, past any page size: 230 verifications reusing one photo", async () => {
    const query = await fingerprintOf(chelseaJpeg);
    const hash = flip(query.hash, [1]);
    await insertRows(Array.from({ length: 230 }, (_, i) => ({ captureId: `cap_REUSE${i}`, verificationId: `vfy_REUSE${i}`, hash, aux: query.aux })));
    const { matches } = await indexAndFindNearDuplicates(db(), { captureId: "cap_REUSEQ", verificationId: "vfy_REUSEQ", tenantId: "tnt_a", fingerprint: query, now: Date.now() });
    expect(matches.filter((m) => m.capture_id.startsWith("cap_REUSE")).length).toBe(230);
  });

  it("a picture reused past what one lookup reads: the lookup stops at its cap and says so, the result lists the closest and counts them all", async () => {
    const query = await fingerprintOf(astronautJpeg);
    // Copies 1 to 3 bits away, more of them than a lookup capped at 300 rows reads.
    const cap = 300;
    const rows = Array.from({ length: cap + 50 }, (_, i) => ({ captureId: `cap_MANY${i}`, verificationId: `vfy_MANY${i}`, hash: flip(query.hash, [2, 30, 50].slice(0, 1 + (i % 3))), aux: query.aux }));
    await insertRows(rows);
    const history = await indexAndFindNearDuplicates(db(), { captureId: "cap_MANYQ", verificationId: "vfy_MANYQ", tenantId: "tnt_a", fingerprint: query, now: Date.now() }, cap);
    expect(history.capped).toBe(cap);
    // At most the rows one lookup reads (a few of them are this file's other index rows, not copies).
    const copies = history.matches.filter((m) => m.capture_id.startsWith("cap_MANY")).length;
    expect(history.matches.length).toBeLessThanOrEqual(cap);
    expect(copies).toBeGreaterThan(cap * 0.8);
    const result = reverseSearchResult("tnt_a", query, history, null);
    expect(result).toMatchObject({ match_count: history.matches.length, history_count: history.matches.length });
    expect(result.matches).toHaveLength(LISTED_MATCHES);
    const distances = result.matches!.map((m) => m.distance);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(distances[0]).toBeLessThanOrEqual(1);
    expect(result.evidence.find((e) => e.code === "near_duplicate_lookup_capped")).toMatchObject({ value: cap });
    // Under the cap nothing says it was reached.
    const few = await indexAndFindNearDuplicates(db(), { captureId: "cap_MANYR", verificationId: "vfy_MANYR", tenantId: "tnt_a", fingerprint: query, now: Date.now() }, LOOKUP_ROWS);
    expect(few.capped).toBeUndefined();
    expect(few.matches.filter((m) => m.capture_id.startsWith("cap_MANY")).length).toBe(cap + 50 + 1);
  });

  it("known miss: a mirrored copy is a different picture to the hash", async () => {
    const fp = await fingerprintOf(encodeJpeg(photo, 90));
    await index(fp, "vfy_MIRROR_SRC");
    const mirrored = await index(await fingerprintOf(encodeJpeg(mirror(photo), 90)));
    expect(mirrored.map((m) => m.verification_id)).not.toContain("vfy_MIRROR_SRC");
  });

  it("the signal reports history matches and what it searched, says the web was not searched, and names low-texture refusals", () => {
    const fp = { hash: "00ff00ff00ff00ff", texture: 20, matchable: true };
    const result = reverseSearchResult("tnt_a", fp, { matches: [{ capture_id: "cap_x", verification_id: "vfy_x", tenant_id: "tnt_b", distance: 2 }], shared: true }, null);
    expect(result).toMatchObject({ found_online: false, match_count: 1, sources: ["service_history", "shared_history"], provider: "internal-phash" });
    expect(result.evidence.map((e) => e.code)).toEqual(["internal_near_duplicate", "near_duplicate", "web_search_not_configured"]);
    expect(result.evidence[1]!.detail).toBe("another tenant's verification (shared reuse index)");
    const own = reverseSearchResult("tnt_a", fp, { matches: [], shared: false }, null);
    expect(own).toMatchObject({ found_online: false, match_count: 0, sources: ["service_history"] });
    const refused = reverseSearchResult("tnt_a", { ...fp, texture: 1.2, matchable: false }, { matches: [], shared: false }, null);
    expect(refused).toMatchObject({ match_count: 0, sources: [] });
    expect(refused.evidence.map((e) => e.code)).toEqual(["low_texture_not_matched", "web_search_not_configured"]);
  });
});

describe("reverse_search: whose history is searched", () => {
  const share = (tenantId: string, on: boolean) => db().update(tenants).set({ shareReuseIndex: on }).where(eq(tenants.id, tenantId));
  const search = (fingerprint: Fingerprint, tenantId: string) =>
    indexAndFindNearDuplicates(db(), { captureId: `cap_WHO${(n += 1)}`, verificationId: `vfy_WHO${(n += 1)}`, tenantId, fingerprint, now: Date.now() });

  it("a tenant's own only, unless both tenants opted in to the shared index; opting out withdraws at once", async () => {
    const [a, b, c] = await Promise.all([createTenant(db(), { displayName: "Reuse A" }), createTenant(db(), { displayName: "Reuse B" }), createTenant(db(), { displayName: "Reuse C" })]);
    const fp = await fingerprintOf(encodeJpeg(decodeRgb(coffeeJpeg, "image/jpeg"), 88));
    const copy = await fingerprintOf(encodeJpeg(decodeRgb(coffeeJpeg, "image/jpeg"), 60));
    expect(await search(fp, a.id)).toEqual({ matches: [], shared: false });
    // Another tenant's copy: not seen (default off on both sides).
    expect(await search(copy, b.id)).toEqual({ matches: [], shared: false });
    // The owner's own later copy is seen.
    const own = await search(copy, a.id);
    expect(own.matches.map((m) => m.tenant_id)).toEqual([a.id]);
    // Only one side opted in: still nothing across.
    await share(b.id, true);
    const oneSided = await search(copy, b.id);
    expect(oneSided.shared).toBe(true);
    expect(oneSided.matches.every((m) => m.tenant_id === b.id)).toBe(true);
    // Both opted in: each sees the other (past captures included); a third tenant that did not sees neither.
    await share(a.id, true);
    const both = await search(copy, b.id);
    expect(new Set(both.matches.map((m) => m.tenant_id))).toEqual(new Set([a.id, b.id]));
    expect((await search(copy, c.id)).matches).toEqual([]);
    // A opts out: its images leave the pool at once.
    await share(a.id, false);
    expect((await search(copy, b.id)).matches.every((m) => m.tenant_id === b.id)).toBe(true);
  });
});
