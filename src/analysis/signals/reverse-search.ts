import type { HistorySearch } from "../../db/analyses";
import type { Evidence, ReverseResult, ReverseSource } from "../evidence";
import { MIN_TEXTURE, type Fingerprint } from "./perceptual-hash";

export const REVERSE_SEARCH_VERSION = "reverse-search/4";

/** Matches a capture's result lists (the closest first); `history_count` counts them all. */
export const LISTED_MATCHES = 25;

/** A web reverse-image search (TinEye, Google Vision web detection): fills `found_online`. */
export interface WebImageSearch {
  readonly name: string;
  search(image: Uint8Array, mediaType: string): Promise<WebSearchOutcome>;
}

export type WebSearchOutcome = { found: boolean; count: number; evidence: Evidence[] } | { error: string };

/**
 * The reverse search of one image: the service's own history (the near-duplicate index over the
 * tenant's verifications, plus the shared pool when the tenant opted in), then the web when a search
 * is configured. `sources` says what was searched; `found_online` is true only for a web match.
 * Matches in another tenant are counted but never identified.
 */
export function reverseSearchResult(
  tenantId: string,
  fingerprint: Pick<Fingerprint, "hash" | "texture" | "matchable"> | null,
  history: HistorySearch,
  web: { provider: string; outcome: WebSearchOutcome } | null,
): ReverseResult {
  const evidence: Evidence[] = [];
  const sources: ReverseSource[] = [];
  const { matches } = history;
  if (fingerprint === null) evidence.push({ code: "hash_unavailable", detail: "pixels could not be decoded" });
  else if (!fingerprint.matchable) {
    evidence.push({
      code: "low_texture_not_matched",
      value: fingerprint.texture,
      detail: `too little texture to fingerprint (${fingerprint.texture} < ${MIN_TEXTURE} grey levels): not compared with other images`,
    });
  } else {
    sources.push("service_history", ...(history.shared ? (["shared_history"] as const) : []));
    evidence.push({ code: matches.length > 0 ? "internal_near_duplicate" : "internal_index_clean", value: matches.length, detail: `phash64 ${fingerprint.hash}` });
    if (history.capped !== undefined) {
      evidence.push({
        code: "near_duplicate_lookup_capped",
        value: history.capped,
        detail: `more of the history shares this picture's index bands than one lookup reads (${history.capped} rows): only those were compared, so there may be more copies than counted`,
      });
    }
  }
  for (const m of matches.slice(0, 5)) {
    evidence.push({ code: "near_duplicate", value: m.distance, detail: m.tenant_id === tenantId ? `${m.verification_id}/${m.capture_id}` : "another tenant's verification (shared reuse index)" });
  }
  let found = false;
  let webCount = 0;
  if (!web) evidence.push({ code: "web_search_not_configured" });
  else if ("error" in web.outcome) evidence.push({ code: "web_search_error", detail: web.outcome.error });
  else {
    found = web.outcome.found;
    webCount = web.outcome.count;
    sources.push("web");
    evidence.push({ code: found ? "web_matches_found" : "web_search_clean", value: webCount }, ...web.outcome.evidence);
  }
  return {
    found_online: found,
    match_count: matches.length + webCount,
    sources,
    history_count: matches.length,
    matches: matches.slice(0, LISTED_MATCHES).map((m) => ({ capture_id: m.capture_id, verification_id: m.verification_id, distance: m.distance })),
    provider: web ? `internal-phash+${web.provider}` : "internal-phash",
    method_version: REVERSE_SEARCH_VERSION,
    evidence,
  };
}
