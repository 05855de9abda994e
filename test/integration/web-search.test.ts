import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { reverseSearchResult } from "../../src/analysis/signals/reverse-search";
import { googleWebDetection } from "../../src/providers/web-search";
import { encodeJpeg, naturalScene } from "../helpers/synth";

const image = encodeJpeg(naturalScene(64, 48, 1));
const fingerprint = { hash: "00ff00ff00ff00ff", texture: 20, matchable: true };
/** The service history searched, nothing found there. */
const NONE = { matches: [], shared: false };
const provider = (key: string) => googleWebDetection({ apiKey: key, url: `${env.FAKES_URL}/web-detection` });

describe("Google web detection (loopback fake)", () => {
  it("full and partial matches are found online; the reverse signal counts them", async () => {
    const outcome = await provider("found").search(image, "image/jpeg");
    expect(outcome).toMatchObject({ found: true, count: 2 });
    const result = reverseSearchResult("tnt_a", fingerprint, NONE, { provider: "google-web-detection", outcome });
    expect(result).toMatchObject({ found_online: true, match_count: 2, sources: ["service_history", "web"], provider: "internal-phash+google-web-detection" });
    expect(result.evidence.map((e) => e.code)).toEqual(expect.arrayContaining(["web_matches_found", "web_full_matches", "web_partial_matches"]));
  });

  it("visually similar images are never a match", async () => {
    const outcome = await provider("similar").search(image, "image/jpeg");
    expect(outcome).toMatchObject({ found: false, count: 0 });
    expect(reverseSearchResult("tnt_a", fingerprint, NONE, { provider: "g", outcome }).evidence.map((e) => e.code)).toContain("web_search_clean");
  });

  it("quota, error entries and bad keys are provider errors that do not trip the signal", async () => {
    for (const key of ["quota", "error", "wrong"]) {
      const outcome = await provider(key).search(image, "image/jpeg");
      expect(outcome).toHaveProperty("error");
      const result = reverseSearchResult("tnt_a", fingerprint, NONE, { provider: "g", outcome });
      expect(result).toMatchObject({ found_online: false, match_count: 0, sources: ["service_history"] });
      expect(result.evidence.map((e) => e.code)).toContain("web_search_error");
    }
  });
});
