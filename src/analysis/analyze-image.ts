import type { HashMatch } from "../db/analyses";
import type { VisionJudge, VisionJudgement } from "../providers/vision";
import { unassessed } from "../providers/vision";
import { inconclusive } from "../providers/vision/prompt";
import { testMarker, testMarkerJudge } from "../providers/vision/test-markers";
import type { SignalName } from "../schemas/verification-create";
import { NOT_APPLICABLE, type AiResult, type ContextResult, type DepthResult, type ScreenResult, type VerdictSignals } from "./evidence";
import { readMetadata, type ImageMetadata } from "./metadata";
import { decodeImage, encodeThumbnailJpeg, type DecodedImage } from "./pixels";
import { detectAiProvenance } from "./signals/ai-provenance";
import { analyzeDepth, depthUnavailable, parseDepthPng } from "./signals/depth-plane";
import { observedFix, type ObservedFix } from "./signals/location";
import { imageFingerprint, type Fingerprint } from "./signals/perceptual-hash";
import { reverseSearchResult, type WebImageSearch } from "./signals/reverse-search";
import { detectScreen, screenTileRects } from "./signals/screen-moire";

export const CAPTURE_ANALYSIS_VERSION = "capture-analysis/1";

/** Everything one capture's analysis needs, already loaded. */
export interface ImageInput {
  captureId: string;
  tenantId: string;
  bytes: Uint8Array;
  mediaType: string;
  /** Uploaded content (an upload step, or audit mode): fraud signals are not applicable. */
  uploaded: boolean;
  /** The forensic buffer's bytes, when the capture has one. */
  depthPng: Uint8Array | null;
  /** Device-reported fix from the capture request. */
  location: unknown;
  clientCapturedAt: number | null;
  required: readonly SignalName[];
  context?: { kind: string; summary: string; attributes?: Record<string, string | number | boolean> };
  expectedObject?: string;
  conditionAspects?: string[];
}

export interface ImageDeps {
  /** Indexes the fingerprint and returns other verifications' near-duplicates (D1 in production). */
  nearDuplicates(fingerprint: Fingerprint): Promise<HashMatch[]>;
  vision: VisionJudge | null;
  web: WebImageSearch | null;
  trustedSigners: readonly string[];
  /** Test environments only: honour the documented `vfy-test` marker (providers/vision/test-markers.ts). */
  testMarkers?: boolean;
}

export interface ObservedSignals {
  screen_detection: ScreenResult;
  ai_detection: AiResult;
  depth: DepthResult;
}

/** The stored per-capture result (capture_analyses.result). */
export interface CaptureAnalysisResult {
  version: string;
  capture_id: string;
  uploaded: boolean;
  media_type: string;
  dimensions: { width: number; height: number } | null;
  /** The near-duplicate fingerprint (windows left out: they live in the index). */
  phash: Omit<Fingerprint, "windows"> | null;
  metadata: Pick<ImageMetadata, "make" | "model" | "software" | "date_time_original" | "gps" | "digital_source_types" | "errors"> & {
    c2pa: ImageMetadata["c2pa"];
  };
  client_captured_at: number | null;
  signals: VerdictSignals;
  /** The offline pixel/metadata signals as measured, uploads included (for the case analysis). */
  observed: ObservedSignals;
  /** Other verifications' near-duplicates (uploads included). */
  near_duplicates: number;
  location: ObservedFix | null;
  vision: VisionJudgement | null;
  decode_error: string | null;
  timings_ms: Record<string, number>;
}

const VISION_MAX_SIDE = 1024;

export async function analyzeImage(input: ImageInput, deps: ImageDeps): Promise<CaptureAnalysisResult> {
  const timings: Record<string, number> = {};
  const time = async <T>(name: string, fn: () => T | Promise<T>): Promise<T> => {
    const start = Date.now();
    try {
      return await fn();
    } finally {
      timings[name] = Date.now() - start;
    }
  };
  const metadata = await time("metadata", () => readMetadata(input.bytes, input.mediaType, deps.trustedSigners));
  const marker = deps.testMarkers ? testMarker(metadata) : null;
  const judge = marker !== null ? testMarkerJudge(marker) : deps.vision;
  const wantsVision = Boolean(judge && ((input.required.includes("context") && input.context && !input.uploaded) || input.expectedObject || input.conditionAspects?.length));
  let pixels: DecodedImage | null = null;
  let decodeError: string | null = null;
  try {
    pixels = await time("decode", () => decodeImage(input.bytes, input.mediaType, { tiles: screenTileRects, ...(wantsVision ? { thumbnailMaxSide: VISION_MAX_SIDE } : {}) }));
  } catch (err) {
    decodeError = String(err).slice(0, 300);
  }

  const fingerprint = pixels ? await time("phash", () => imageFingerprint(pixels!.overview)) : null;
  const matches = fingerprint?.matchable ? await time("index", () => deps.nearDuplicates(fingerprint)) : [];

  // The offline signals are computed for every image (the case analysis reads them); for uploaded
  // content the verdict's signals are not applicable.
  const depth = await time("depth", () => depthOf(input.depthPng));
  const observed: ObservedSignals = {
    depth,
    screen_detection: await time("screen", () => detectScreen(pixels, depth.source === "unavailable" ? null : depth)),
    ai_detection: detectAiProvenance(metadata),
  };
  const signals: VerdictSignals = {};
  let vision: VisionJudgement | null = null;
  if (input.uploaded) {
    signals.screen_detection = NOT_APPLICABLE;
    signals.ai_detection = NOT_APPLICABLE;
    signals.reverse_search = NOT_APPLICABLE;
    signals.depth = NOT_APPLICABLE;
    signals.context_match = NOT_APPLICABLE;
  } else {
    Object.assign(signals, observed);
    const web = deps.web && input.required.includes("reverse") ? { provider: deps.web.name, outcome: await time("web_search", () => deps.web!.search(input.bytes, input.mediaType)) } : null;
    signals.reverse_search = reverseSearchResult(input.tenantId, fingerprint, matches, web);
  }

  // One vision call answers every part the verification activates (context only for live captures).
  const parts = {
    ...(input.required.includes("context") && input.context && !input.uploaded ? { context: input.context } : {}),
    ...(input.expectedObject ? { expected_object: input.expectedObject } : {}),
    ...(input.conditionAspects?.length ? { condition_aspects: input.conditionAspects } : {}),
  };
  if (Object.keys(parts).length > 0) {
    if (!judge) vision = unassessed(parts);
    else if (!pixels?.thumbnail) vision = inconclusive({ ...parts, image: new Uint8Array() }, { provider: judge.name, model: "none" }, "pixels unavailable for the vision provider");
    else vision = await time("vision", () => judge.judge({ ...parts, image: encodeThumbnailJpeg(pixels!.thumbnail!) }));
  }
  if (!input.uploaded && input.required.includes("context")) signals.context_match = contextSignal(vision);

  return {
    version: CAPTURE_ANALYSIS_VERSION,
    capture_id: input.captureId,
    uploaded: input.uploaded,
    media_type: input.mediaType,
    dimensions: pixels ? { width: pixels.width, height: pixels.height } : null,
    phash: fingerprint ? { algorithm: fingerprint.algorithm, region: fingerprint.region, hash: fingerprint.hash, aux: fingerprint.aux, texture: fingerprint.texture, matchable: fingerprint.matchable } : null,
    metadata: {
      make: metadata.make,
      model: metadata.model,
      software: metadata.software,
      date_time_original: metadata.date_time_original,
      gps: metadata.gps,
      digital_source_types: metadata.digital_source_types,
      errors: metadata.errors,
      c2pa: metadata.c2pa,
    },
    client_captured_at: input.clientCapturedAt,
    signals,
    observed,
    near_duplicates: matches.length,
    location: observedFix(input.location, metadata),
    vision,
    decode_error: decodeError,
    timings_ms: timings,
  };
}

function depthOf(png: Uint8Array | null): DepthResult {
  if (!png) return depthUnavailable("no_depth_map");
  try {
    return analyzeDepth(parseDepthPng(png));
  } catch (err) {
    return depthUnavailable("depth_map_unreadable", String(err).slice(0, 200));
  }
}

function contextSignal(vision: VisionJudgement | null): ContextResult {
  const judged = vision && !vision.error ? vision.context : null;
  if (!judged) {
    return {
      status: "inconclusive",
      confidence: 0,
      provider: vision?.provider ?? "none",
      method_version: vision?.prompt_version ?? "none",
      evidence: [{ code: "context_not_assessed", detail: vision?.error ?? "no vision provider configured" }],
    };
  }
  const code = `context_${judged.status}`;
  return {
    status: judged.status,
    confidence: judged.status === "inconclusive" ? 0 : judged.confidence,
    provider: vision!.provider,
    method_version: vision!.prompt_version,
    evidence: judged.reasons.length > 0 ? judged.reasons.map((r) => ({ code, detail: r.slice(0, 200) })) : [{ code }],
  };
}
