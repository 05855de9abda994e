import { execFileSync } from "node:child_process";
import { analyzeImage } from "../../src/analysis/analyze-image";
import type { Fingerprint } from "../../src/analysis/signals/perceptual-hash";
import { comparedPairs, hammingDistance, regionsMatch } from "../../src/analysis/signals/perceptual-hash";
import { aggregateVerdict } from "../../src/analysis/verdict";
import type { HashMatch, HistorySearch } from "../../src/db/analyses";
import { DEFAULT_SIGNALS } from "../../src/schemas/verification-create";
import type { Photo } from "./photos";
import { splitOf } from "./screen-cases";
import type { Row } from "./stats";

/*
 * The verdict a fresh deployment gives (`npm start`: no vision provider, no web search) with the
 * default signals, on the real photographs: each analysed as a live capture of one tenant whose
 * history grows as they arrive (the same near-duplicate rule as the D1 index: perceptual-hash.ts),
 * then each photograph re-saved as a reuser would send it (ImageMagick: 60 %, JPEG q72) to a later
 * verification of the same tenant.
 */

/** Several shots of one scene (stereo pairs, a calibration series): the first one counts as new, the others are not new photographs. */
const SERIES = /__(left|right)\d+$/;

interface Stored {
  fingerprint: Fingerprint;
  captureId: string;
}

/** The tenant's history in memory, searched as `indexAndFindNearDuplicates` searches D1 (every region pair the lookup compares). */
function history(): { search(fp: Fingerprint, captureId: string): HistorySearch } {
  const stored: Stored[] = [];
  return {
    search(fp, captureId) {
      const matches: HashMatch[] = [];
      for (const s of stored) {
        const distances = comparedPairs(fp, s.fingerprint)
          .filter(([a, b]) => regionsMatch(a, b))
          .map(([a, b]) => hammingDistance(a.hash, b.hash));
        if (distances.length > 0) matches.push({ capture_id: s.captureId, verification_id: `vfy_${s.captureId}`, tenant_id: "tnt_eval", distance: Math.min(...distances) });
      }
      stored.push({ fingerprint: fp, captureId });
      return { matches, shared: false };
    },
  };
}

async function verdictOf(bytes: Uint8Array, mediaType: string, captureId: string, index: ReturnType<typeof history>) {
  const result = await analyzeImage(
    { captureId, tenantId: "tnt_eval", bytes, mediaType, uploaded: false, depthPng: null, channel: "api", captureIntegrity: null, location: null, clientCapturedAt: null, required: DEFAULT_SIGNALS },
    { searchHistory: async (fp) => index.search(fp, captureId), vision: null, web: null, trustedSigners: [] },
  );
  return aggregateVerdict(DEFAULT_SIGNALS, [{ capture_id: captureId, uploaded: false, signals: result.signals }]);
}

/** The photograph as a reuser sends it: re-saved smaller at a lower quality. */
function resaved(photo: Photo): Uint8Array {
  return new Uint8Array(execFileSync("convert", ["-", "-resize", "60%", "-quality", "72", "jpeg:-"], { input: photo.bytes, maxBuffer: 64 * 1024 * 1024, stdio: ["pipe", "pipe", "ignore"] }));
}

export async function evaluateVerdicts(photos: Photo[], record: (row: Row) => void): Promise<{ notVerified: string[]; reuseMissed: string[] }> {
  const signal = "verdict (default signals, no external provider)";
  const index = history();
  const seenSeries = new Set<string>();
  const fresh = photos.filter((p) => {
    const series = SERIES.exec(p.name)?.[1];
    if (!series) return true;
    if (seenSeries.has(series)) return false;
    seenSeries.add(series);
    return true;
  });
  const genuine = new Map<"test" | "train", boolean[]>([
    ["test", []],
    ["train", []],
  ]);
  const notVerified: string[] = [];
  for (const [i, photo] of fresh.entries()) {
    const verdict = await verdictOf(photo.bytes, photo.mediaType, `cap_genuine_${i}`, index);
    const flagged = verdict.label !== "verified";
    if (flagged) notVerified.push(`${photo.name}: ${verdict.label} (${verdict.reason_code})`);
    genuine.get(splitOf(photo.name))!.push(flagged);
  }
  const summary = "genuine photographs new to the tenant: not verified";
  for (const [split, outcomes] of genuine) {
    const which = split === "test" ? "held-out half (screen rules not chosen on them)" : "training half of screen_detection";
    record({ signal, case: `real photograph new to the tenant's history, ${which}: not verified`, positive: false, n: outcomes.length, flagged: outcomes.filter(Boolean).length, summary });
  }
  const reused: boolean[] = [];
  const reuseMissed: string[] = [];
  for (const [i, photo] of fresh.entries()) {
    const verdict = await verdictOf(resaved(photo), "image/jpeg", `cap_reused_${i}`, index);
    const caught = verdict.label === "suspicious" && verdict.reason_code === "reverse_search_match";
    if (!caught) reuseMissed.push(`${photo.name}: ${verdict.label} (${verdict.reason_code ?? "no reason"}; reverse_search ${JSON.stringify(verdict.signals.reverse_search)})`);
    reused.push(caught);
  }
  record({
    signal,
    case: "the same photograph re-saved (60 %, JPEG q72) in a later verification of the tenant: suspicious, reverse_search_match",
    positive: true,
    n: reused.length,
    flagged: reused.filter(Boolean).length,
    summary: "reused photographs: suspicious with reverse_search_match",
  });
  return { notVerified, reuseMissed };
}
