import type { HashMatch } from "../../db/analyses";
import type { Evidence, ReverseResult } from "../evidence";
import { MIN_TEXTURE, type Fingerprint } from "./perceptual-hash";

export const REVERSE_SEARCH_VERSION = "reverse-search/2";

/** A web reverse-image search (TinEye, Google Vision web detection): fills `found_online`. */
export interface WebImageSearch {
  readonly name: string;
  search(image: Uint8Array, mediaType: string): Promise<{ found: boolean; count: number; evidence: Evidence[] } | { error: string }>;
}

/**
 * Combines the internal near-duplicate index (other verifications' images, every tenant) with the
 * web search when one is configured. Without one, `found_online` is false and the evidence says the
 * web was not searched: the offline default only claims "not seen in this service's own images".
 * Matches in another tenant are counted but not identified.
 */
export function reverseSearchResult(
  tenantId: string,
  fingerprint: Pick<Fingerprint, "hash" | "texture" | "matchable"> | null,
  matches: HashMatch[],
  web: { provider: string; outcome: { found: boolean; count: number; evidence: Evidence[] } | { error: string } } | null,
): ReverseResult {
  const evidence: Evidence[] = [];
  if (fingerprint === null) evidence.push({ code: "hash_unavailable", detail: "pixels could not be decoded" });
  else if (!fingerprint.matchable) {
    evidence.push({
      code: "low_texture_not_matched",
      value: fingerprint.texture,
      detail: `too little texture to fingerprint (${fingerprint.texture} < ${MIN_TEXTURE} grey levels): not compared with other images`,
    });
  } else evidence.push({ code: matches.length > 0 ? "internal_near_duplicate" : "internal_index_clean", value: matches.length, detail: `phash64 ${fingerprint.hash}` });
  for (const m of matches.slice(0, 5)) {
    evidence.push({ code: "near_duplicate", value: m.distance, detail: m.tenant_id === tenantId ? `${m.verification_id}/${m.capture_id}` : "another tenant's verification" });
  }
  let found = false;
  let webCount = 0;
  if (!web) evidence.push({ code: "web_search_not_configured" });
  else if ("error" in web.outcome) evidence.push({ code: "web_search_error", detail: web.outcome.error });
  else {
    found = web.outcome.found;
    webCount = web.outcome.count;
    evidence.push({ code: found ? "web_matches_found" : "web_search_clean", value: webCount }, ...web.outcome.evidence);
  }
  return {
    found_online: found,
    match_count: matches.length + webCount,
    matches: matches.map((m) => ({ capture_id: m.capture_id, verification_id: m.verification_id, distance: m.distance })),
    provider: web ? `internal-phash+${web.provider}` : "internal-phash",
    method_version: REVERSE_SEARCH_VERSION,
    evidence,
  };
}
