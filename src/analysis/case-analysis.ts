import type { CaptureAnalysisResult } from "./analyze-image";
import { aiMethodOf, clamp01, round2, type DepthResult } from "./evidence";
import { haversineMeters } from "./signals/location";
import { FINGERPRINT_ALGORITHM, regionsMatch } from "./signals/perceptual-hash";

/*
 * The multi-image case analysis after finalize. Deterministic dimensions are computed from the stored
 * per-capture analyses; `narrative_image_match` comes from the vision provider when one is configured.
 * Scores run 0..1 (0 nothing suspicious, 1 grounds to reject on its own). Rubric in docs/signals.md.
 */

/** 2: depth is what the verdict read (the hosted page's capture burst too, not only depth maps), over live captures. */
export const CASE_RUBRIC_VERSION = 2;
export const CASE_MODEL = "deterministic-case-rules/2";

/** Captures further apart than this (km) in one case are a concern. */
const GPS_SPREAD_KM = 1;
/** Capture times (EXIF) spread over more than this (hours) are a concern. */
const TIME_SPREAD_HOURS = 24;

export interface CaseCapture {
  capture_id: string;
  seq: number;
  /** Persisted at (ms): the claimed order is the order of acceptance. */
  created_at: number;
  analysis: CaptureAnalysisResult;
}

/** Per-capture narrative judgement from the vision provider. */
export interface NarrativeJudgement {
  capture_id: string;
  status: "match" | "mismatch" | "inconclusive";
  confidence: number;
  reasons: string[];
}

export interface Dimension {
  score: number;
  evidence: string;
  concerns?: string[];
}

export interface CaseAnalysis {
  overall_risk_score: number;
  confidence: number;
  dimensions: { narrative_image_match?: Dimension; cross_image_consistency: Dimension; physical_plausibility: Dimension };
  review_priority: "low" | "medium" | "high";
  uncertainty_areas: string[];
  model: string;
  rubric_version: number;
  consistency_level: number;
  analysis: Array<{ capture_id: string; ai: "low" | "medium" | "high"; screen: boolean }>;
  text_analysis: string;
}

interface Finding {
  score: number;
  concern?: string;
  note: string;
}

/** "at least one of the findings is grounds": 1 − Π(1 − sᵢ). Independent concerns compound. */
function noisyOr(scores: number[]): number {
  return 1 - scores.reduce((p, s) => p * (1 - clamp01(s)), 1);
}

/** EXIF DateTimeOriginal "YYYY:MM:DD HH:MM:SS" as comparable minutes (no zone: same camera clock). */
function exifMinutes(text: string | null): number | null {
  const m = text ? /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(text) : null;
  if (!m) return null;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 60_000;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function verb(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

function crossImage(captures: CaseCapture[], uncertain: string[]): Dimension {
  const findings: Finding[] = [];
  const n = captures.length;

  // Capture times against each other and the claimed (submission) order.
  const timed = captures.map((c) => ({ c, t: exifMinutes(c.analysis.metadata.date_time_original) })).filter((x) => x.t !== null) as Array<{ c: CaseCapture; t: number }>;
  if (timed.length < n) uncertain.push(`${plural(n - timed.length, "capture")} of ${n} ${verb(n - timed.length, "carries", "carry")} no EXIF capture time: their order could not be checked.`);
  if (timed.length >= 2) {
    let inversions = 0;
    for (let i = 1; i < timed.length; i += 1) if (timed[i]!.t < timed[i - 1]!.t) inversions += 1;
    const spreadHours = (Math.max(...timed.map((x) => x.t)) - Math.min(...timed.map((x) => x.t))) / 60;
    if (inversions > 0) {
      findings.push({ score: Math.min(0.6, 0.3 + 0.15 * inversions), concern: `EXIF capture times run against the submission order (${plural(inversions, "inversion")}).`, note: "order inverted" });
    }
    if (spreadHours > TIME_SPREAD_HOURS) {
      findings.push({ score: Math.min(0.7, 0.3 + 0.1 * Math.log2(spreadHours / TIME_SPREAD_HOURS + 1)), concern: `Capture times span ${Math.round(spreadHours)} h.`, note: "time spread" });
    }
    if (inversions === 0 && spreadHours <= TIME_SPREAD_HOURS) findings.push({ score: 0, note: `capture times consistent (${timed.length} timed, spread ${spreadHours.toFixed(1)} h)` });
  }
  // EXIF time against the time the client reported.
  for (const c of captures) {
    const exif = exifMinutes(c.analysis.metadata.date_time_original);
    const client = c.analysis.client_captured_at;
    if (exif === null || client === null) continue;
    const hours = Math.abs(exif - client / 60_000) / 60;
    // EXIF is local time without a zone: only a gap beyond any time-zone offset counts.
    if (hours > 26) findings.push({ score: 0.5, concern: `Capture ${c.capture_id}: EXIF time is ${Math.round(hours)} h away from the reported capture time (an older photo?).`, note: "stale photo" });
  }

  // Device/EXIF consistency.
  const devices = new Set(captures.map((c) => [c.analysis.metadata.make, c.analysis.metadata.model].filter(Boolean).join(" ")).filter(Boolean));
  const withDevice = captures.filter((c) => c.analysis.metadata.make || c.analysis.metadata.model).length;
  if (devices.size > 1) findings.push({ score: Math.min(0.7, 0.25 * (devices.size - 1) + 0.2), concern: `Captures come from ${devices.size} different devices (${[...devices].join(", ")}).`, note: "mixed devices" });
  else if (withDevice > 0 && withDevice < n) findings.push({ score: 0.15, concern: `${plural(n - withDevice, "capture")} lack the camera EXIF the others carry.`, note: "missing EXIF" });
  if (withDevice === 0) uncertain.push("No capture carries camera make/model: device consistency could not be checked.");

  // GPS spread.
  const fixes = captures.map((c) => c.analysis.location).filter((f): f is NonNullable<typeof f> => f !== null);
  if (fixes.length >= 2) {
    let spread = 0;
    for (let i = 0; i < fixes.length; i += 1) for (let j = i + 1; j < fixes.length; j += 1) spread = Math.max(spread, haversineMeters(fixes[i]!, fixes[j]!));
    const km = spread / 1000;
    if (km > GPS_SPREAD_KM) findings.push({ score: Math.min(0.8, 0.3 + 0.1 * Math.log2(km / GPS_SPREAD_KM + 1)), concern: `Capture locations are ${km.toFixed(1)} km apart.`, note: "GPS spread" });
  } else if (n >= 2) uncertain.push("Fewer than two captures have a location: GPS spread could not be checked.");

  // Duplicates inside the case ("different angles" that are the same photo).
  // Whole frames only (the crop windows live in the index); low-texture images are never compared.
  const hashed = captures.map((c) => c.analysis.phash).filter((p) => p?.algorithm === FINGERPRINT_ALGORITHM && p.matchable);
  let duplicates = 0;
  for (let i = 0; i < hashed.length; i += 1) {
    for (let j = i + 1; j < hashed.length; j += 1) if (regionsMatch(hashed[i]!, hashed[j]!)) duplicates += 1;
  }
  if (duplicates > 0) findings.push({ score: Math.min(0.9, 0.6 + 0.1 * duplicates), concern: `${plural(duplicates, "pair")} of captures are near-duplicates of each other.`, note: "duplicates" });
  const reused = captures.filter((c) => c.analysis.near_duplicates > 0).length;
  if (reused > 0) findings.push({ score: 0.7, concern: `${plural(reused, "capture")} also ${verb(reused, "appears", "appear")} in other verifications.`, note: "reuse" });

  const score = round2(noisyOr(findings.map((f) => f.score)));
  const concerns = findings.filter((f) => f.concern).map((f) => f.concern!.slice(0, 300)).slice(0, 12);
  const evidence = `${n} capture(s): ${timed.length} with EXIF time, ${devices.size} device(s), ${fixes.length} with location, ${duplicates} duplicate pair(s), ${reused} reused elsewhere.`;
  return { score, evidence, ...(concerns.length ? { concerns } : {}) };
}

/**
 * A live capture's depth evidence as its verdict read it: the hosted page's capture burst or the API's
 * depth map (`observed.depth` holds the map alone, so it is the fallback when depth was not required).
 * Null when there is none; uploads never have any.
 */
function depthOf(c: CaseCapture): DepthResult | null {
  if (c.analysis.uploaded) return null;
  const signal = c.analysis.signals.depth;
  if (signal && !("status" in signal)) return signal as DepthResult;
  return c.analysis.observed.depth.source !== "unavailable" ? c.analysis.observed.depth : null;
}

function physical(captures: CaseCapture[], uncertain: string[]): Dimension {
  const findings: Finding[] = [];
  let screens = 0;
  let ai = 0;
  let anomalies = 0;
  let withDepth = 0;
  for (const c of captures) {
    const o = c.analysis.observed;
    if (o.screen_detection.screen_detected) {
      screens += 1;
      findings.push({ score: o.screen_detection.confidence, concern: `Capture ${c.capture_id} looks like a photo of a screen (confidence ${o.screen_detection.confidence}).`, note: "screen" });
    }
    if (o.ai_detection.label === "likely_ai") {
      ai += 1;
      const how = aiMethodOf(o.ai_detection) === "provenance" ? "carries generator provenance" : "shows generator traces in its pixels";
      findings.push({ score: o.ai_detection.confidence, concern: `Capture ${c.capture_id} ${how} (${o.ai_detection.evidence.map((e) => e.code).join(", ")}).`, note: "ai" });
    }
    const depth = depthOf(c);
    if (depth) {
      withDepth += 1;
      if (depth.anomaly) {
        anomalies += 1;
        const what =
          depth.source === "capture_burst"
            ? `came from frames no live camera over a real scene gives (${depth.evidence.map((e) => e.code).join(", ")})`
            : "has a flat depth map (a screen or a print?)";
        findings.push({ score: 0.5, concern: `Capture ${c.capture_id} ${what}.`, note: "depth" });
      }
    }
  }
  const live = captures.filter((c) => !c.analysis.uploaded).length;
  if (withDepth < live) uncertain.push(`${plural(live - withDepth, "live capture")} of ${live} ${live - withDepth === 1 ? "has" : "have"} no depth evidence (a depth map, or the frames the capture page sent).`);
  const score = round2(noisyOr(findings.map((f) => f.score)));
  const concerns = findings.map((f) => f.concern!.slice(0, 300)).slice(0, 12);
  return {
    score,
    evidence: `${screens} screen recapture(s), ${ai} with generator provenance, ${anomalies} depth anomal${anomalies === 1 ? "y" : "ies"} in ${withDepth} live capture(s) with depth evidence, over ${captures.length} capture(s).`,
    ...(concerns.length ? { concerns } : {}),
  };
}

function narrative(judgements: NarrativeJudgement[]): Dimension | undefined {
  const judged = judgements.filter((j) => j.status !== "inconclusive");
  if (judged.length === 0) return undefined;
  const mismatches = judged.filter((j) => j.status === "mismatch");
  const score = round2(noisyOr(mismatches.map((j) => j.confidence)));
  const concerns = mismatches.flatMap((j) => (j.reasons.length ? j.reasons : ["contradicts the narrative"]).map((r) => `Capture ${j.capture_id}: ${r}`.slice(0, 300))).slice(0, 12);
  return {
    score,
    evidence: `${judged.length} capture(s) judged against the narrative: ${mismatches.length} contradict it.`,
    ...(concerns.length ? { concerns } : {}),
  };
}

/** Dimension weights in the overall aggregate (how far each alone can carry a rejection). */
const WEIGHTS = { narrative_image_match: 0.8, cross_image_consistency: 0.9, physical_plausibility: 1 } as const;

export function analyzeCase(
  input: { captures: CaseCapture[]; narrative: NarrativeJudgement[] | null; narrativeModel: string | null; webSearched: boolean },
): CaseAnalysis {
  const uncertain: string[] = [];
  const captures = [...input.captures].sort((a, b) => a.seq - b.seq);
  const cross = crossImage(captures, uncertain);
  const phys = physical(captures, uncertain);
  const story = input.narrative ? narrative(input.narrative) : undefined;
  if (!input.narrative) uncertain.push("No vision provider configured: the narrative was not compared with the images.");
  else if (!story) uncertain.push("The vision provider could not judge the images against the narrative.");
  if (!input.webSearched) uncertain.push("Reverse search covered only this service's own images, not the web.");
  const aiUndecided = captures.filter((c) => c.analysis.observed.ai_detection.label === "unknown").length;
  if (aiUndecided > 0) {
    uncertain.push(
      `${plural(aiUndecided, "capture")} of ${captures.length} could not be checked for generated content (no provenance marker decided it and no detection provider answered): their \`ai\` reads low because nothing was found, not because they were cleared.`,
    );
  }

  const weighted = [cross.score * WEIGHTS.cross_image_consistency, phys.score * WEIGHTS.physical_plausibility];
  if (story) weighted.push(story.score * WEIGHTS.narrative_image_match);
  // Cross-dimensional: independent dimensions compound (noisy-OR), and two dimensions raising
  // concerns at once corroborate each other beyond what either says alone.
  let overall = noisyOr(weighted);
  const concerned = [cross.score, phys.score, story?.score ?? 0].filter((s) => s >= 0.3).length;
  if (concerned >= 2) overall = overall + (1 - overall) * 0.25;
  overall = round2(clamp01(overall));
  const maxDimension = Math.max(cross.score, phys.score, story?.score ?? 0);
  const review_priority = overall >= 0.6 || maxDimension >= 0.8 ? "high" : overall >= 0.3 ? "medium" : "low";

  // Confidence: how much of the rubric had evidence to work with.
  const coverage = [
    captures.some((c) => c.analysis.metadata.date_time_original),
    captures.some((c) => c.analysis.metadata.make || c.analysis.metadata.model),
    captures.some((c) => c.analysis.location),
    captures.some((c) => depthOf(c) !== null),
    captures.every((c) => c.analysis.phash),
    Boolean(story),
  ];
  const confidence = round2(0.3 + 0.7 * (coverage.filter(Boolean).length / coverage.length));

  const analysis = captures.slice(0, 25).map((c) => {
    const a = c.analysis.observed.ai_detection;
    return {
      capture_id: c.capture_id,
      ai: (a.label === "likely_ai" ? (a.confidence >= 0.85 ? "high" : "medium") : "low") as "low" | "medium" | "high",
      screen: c.analysis.observed.screen_detection.screen_detected,
    };
  });
  const concerns = [...(cross.concerns ?? []), ...(phys.concerns ?? []), ...(story?.concerns ?? [])];
  const text = concerns.length
    ? `Risk ${overall} (${review_priority} priority). ${concerns.slice(0, 6).join(" ")}`
    : `Risk ${overall} (${review_priority} priority). No concern found across ${captures.length} capture(s).`;
  return {
    overall_risk_score: overall,
    confidence,
    dimensions: { ...(story ? { narrative_image_match: story } : {}), cross_image_consistency: cross, physical_plausibility: phys },
    review_priority,
    uncertainty_areas: uncertain.map((u) => u.slice(0, 300)).slice(0, 12),
    model: input.narrativeModel ? `${CASE_MODEL} + ${input.narrativeModel}`.slice(0, 200) : CASE_MODEL,
    rubric_version: CASE_RUBRIC_VERSION,
    consistency_level: round2(1 - cross.score),
    analysis,
    text_analysis: text.slice(0, 2000),
  };
}
