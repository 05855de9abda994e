import type { HistorySearch } from "../db/analyses";
import type { VisionJudge, VisionJudgement } from "../providers/vision";
import { unassessed } from "../providers/vision";
import { inconclusive } from "../providers/vision/prompt";
import { testMarker, testMarkerJudge } from "../providers/vision/test-markers";
import type { SignalName } from "../schemas/verification-create";
import {
  NOT_APPLICABLE,
  round2,
  isNotAssessed,
  notAssessed,
  type AiResult,
  type AnalysisNote,
  type ContextResult,
  type DepthResult,
  type Evidence,
  type NotAssessed,
  type NotAssessedReason,
  type ReverseResult,
  type ScreenResult,
  type VerdictSignals,
} from "./evidence";
import type { C2paTrust } from "./c2pa-trust";
import { readMetadata, type ImageMetadata } from "./metadata";
import { decodeImage, DecodeFailure, type DecodedImage, type Thumbnail } from "./decoders";
import { aiWithheld, combineAiDetection, offlineAi, provenanceDecides, type AiDetectionProvider, type AiNotAssessed, type AiPixelDetector, type AiProviderWithheld } from "./signals/ai-combine";
import { declaredScreenCapture, detectAiProvenance } from "./signals/ai-provenance";
import { imageForProvider, type ProviderImage } from "./signals/ai-provider-input";
import { analyzeDepthPng, depthUnavailable } from "./signals/depth-plane";
import { assessCaptureBurst, type DepthNotAssessed } from "./signals/capture-burst";
import type { CaptureIntegrity } from "../schemas/capture-integrity";
import { measureBurst } from "./burst/measures";
import { photoAgreement } from "./burst/agreement";
import { patchAgreement, photoCentre } from "./burst/patch-agreement";
import type { ReceivedBurst } from "./burst/received";
import type { CaptureChannel } from "../schemas/verification-create";
import { observedFix, type ObservedFix } from "./signals/location";
import { imageFingerprint, type Fingerprint } from "./signals/perceptual-hash";
import { reverseSearchResult, type WebImageSearch } from "./signals/reverse-search";
import { detectScreen, screenTileRects } from "./signals/screen-moire";
import { SIGNAL_KEYS } from "./verdict";
import { encodeThumbnailJpeg, EVIDENCE_THUMBNAIL_MAX_SIDE } from "./thumbnail";

export const CAPTURE_ANALYSIS_VERSION = "capture-analysis/3";

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
  /**
   * Where the verification's evidence comes from: `depth` is assessed from the depth map on `api`,
   * from the capture-integrity record on `hosted_page`.
   */
  channel: CaptureChannel;
  /** The capture page's capture-integrity record, when the capture came with one. */
  captureIntegrity: CaptureIntegrity | null;
  /** A version 2 record's burst, read back and checked (analysis/burst/received.ts); null otherwise. */
  burst?: ReceivedBurst | null;
  /** Device-reported fix from the capture request. */
  location: unknown;
  clientCapturedAt: number | null;
  required: readonly SignalName[];
  context?: { kind: string; summary: string; attributes?: Record<string, string | number | boolean> };
  expectedObject?: string;
  conditionAspects?: string[];
}

export interface ImageDeps {
  /**
   * Indexes the fingerprint and searches the service's history for other verifications'
   * near-duplicates: the tenant's own, and the shared pool when it opted in (D1 in production).
   */
  searchHistory(fingerprint: Fingerprint): Promise<HistorySearch>;
  vision: VisionJudge | null;
  web: WebImageSearch | null;
  /**
   * The reserved hook for a detector of generated images on the decoded pixels, run on every decoded
   * image when set. None ships (`pixels` is reserved: schemas/ai-methods.ts, docs/signals.md), so it
   * is null in production (analysis/pipeline.ts) and `ai_detection` reads provenance metadata and,
   * when one is asked, a detection provider.
   */
  aiPixels?: AiPixelDetector | null;
  /** A commercial AI-generated-image detector, asked about live captures that require `ai` (docs/signals.md). */
  aiProvider?: AiDetectionProvider | null;
  /** Set when the tenant's `ai_detection_provider` withholds the provider (`none`, or one not configured): no provider is asked. */
  aiProviderWithheld?: AiProviderWithheld | null;
  /** The C2PA trust configuration, or pinned fingerprints beside the shipped trust list. */
  trustedSigners: C2paTrust | readonly string[];
  /** Test environments only: honour the documented `vfy-test` marker (providers/vision/test-markers.ts). */
  testMarkers?: boolean;
  /** Receives the decoded pixels' RGB thumbnail once (the captures API's evidence thumbnail is made from it). */
  thumbnail?: (thumbnail: Thumbnail) => Promise<void>;
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
  /**
   * Each signal as evaluated (its spec value plus provider, method_version and evidence), or
   * `{status: "not_applicable"}` for uploaded content, or `{status: "not_assessed", reason}`.
   */
  signals: VerdictSignals;
  /** Why something was not assessed or degraded, in words a reviewer can act on. */
  notes: AnalysisNote[];
  /** The offline pixel/metadata signals as measured, uploads included (for the case analysis). */
  observed: ObservedSignals;
  /** Other verifications' near-duplicates (uploads included). */
  near_duplicates: number;
  location: ObservedFix | null;
  vision: VisionJudgement | null;
  decode_error: string | null;
  timings_ms: Record<string, number>;
}

/**
 * What the providers (the vision judge, the web search) are sent: one JPEG of the decoded pixels,
 * reduced to this longest side and encoded once for both, never the original. The original sent
 * whole, base64 in JSON, took a 9.6 MB 50 MP photo's analysis from 62 to 155 MB in workerd (bench
 * run of 2026-11-25, bench/RESULTS.md), over a Worker's 128 MB, and a photo over the web search's 10 MB
 * was not searched at all. 1024 px is above what Google's Vision API recommends for its features
 * (640×480) and what reverse image search needs to find a copy. An AI-detection provider gets the
 * original with its metadata stripped instead, when it fits the provider's documented limit (at most
 * 10 MB, raw bytes in a multipart body or an upload, never base64): this JPEG is its fallback
 * (signals/ai-provider-input.ts).
 */
const PROVIDER_IMAGE_MAX_SIDE = 1024;

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
  const wantsWebSearch = Boolean(deps.web && input.required.includes("reverse") && !input.uploaded);
  const provenance = detectAiProvenance(metadata);
  // A provenance marker decides on its own: the provider is not paid to confirm it.
  const wantsAiProvider = Boolean(deps.aiProvider && !deps.aiProviderWithheld && input.required.includes("ai") && !input.uploaded && !provenanceDecides(provenance));
  let pixels: DecodedImage | null = null;
  let decodeError: string | null = null;
  let pixelsMissing: NotAssessedReason | null = null;
  const notes: AnalysisNote[] = [];
  try {
    pixels = await time("decode", () => decodeImage(input.bytes, input.mediaType, { tiles: screenTileRects, thumbnailMaxSide: wantsVision || wantsWebSearch || wantsAiProvider ? PROVIDER_IMAGE_MAX_SIDE : EVIDENCE_THUMBNAIL_MAX_SIDE }));
  } catch (err) {
    decodeError = String(err instanceof Error ? err.message : err).slice(0, 300);
    pixelsMissing = err instanceof DecodeFailure ? err.reason : "undecodable_image";
    notes.push({ code: pixelsMissing, detail: decodeError });
  }
  if (pixels?.thumbnail && deps.thumbnail) await time("thumbnail", () => deps.thumbnail!(pixels!.thumbnail!));
  let providerImage: Uint8Array | null = null;
  const providerJpeg = (thumbnail: Thumbnail) => (providerImage ??= encodeThumbnailJpeg(thumbnail));

  const fingerprint = pixels ? await time("phash", () => imageFingerprint(pixels!.overview)) : null;
  const history = fingerprint?.matchable ? await time("index", () => deps.searchHistory(fingerprint)) : { matches: [], shared: false };

  // The offline signals are computed for every image (the case analysis reads them); for uploaded
  // content the verdict's signals are not applicable.
  const depth = await time("depth", () => depthOf(input.depthPng));
  const aiPixels = pixels && deps.aiPixels ? await time("ai_pixels", () => deps.aiPixels!(pixels!)) : null;
  const observed: ObservedSignals = {
    depth,
    screen_detection: withDeclaredScreenCapture(await time("screen", () => detectScreen(pixels, depth.source === "unavailable" ? null : depth)), declaredScreenCapture(metadata)),
    ai_detection: offlineAi(provenance, aiPixels),
  };
  const signals: VerdictSignals = {};
  let vision: VisionJudgement | null = null;
  // A file no decoder can read as an image is not evidence of anything: its metadata, its depth map
  // and its bytes on the web are not looked at as if they belonged to a photograph.
  const notAnImage = pixelsMissing === "undecodable_image";
  if (input.uploaded) {
    signals.screen_detection = NOT_APPLICABLE;
    signals.ai_detection = NOT_APPLICABLE;
    signals.reverse_search = NOT_APPLICABLE;
    signals.depth = NOT_APPLICABLE;
    signals.context_match = NOT_APPLICABLE;
  } else if (notAnImage) {
    for (const key of ["screen_detection", "ai_detection", "reverse_search", "depth"] as const) signals[key] = notAssessed("undecodable_image");
  } else {
    signals.screen_detection = screenSignal(observed.screen_detection, pixelsMissing);
    signals.ai_detection = wantsAiProvider
      ? await time("ai_provider", () => {
          const thumbnail = pixels?.thumbnail;
          const image = thumbnail ? imageForProvider(deps.aiProvider!.accepts, input, () => providerJpeg(thumbnail)) : null;
          return aiSignal(deps.aiProvider!, provenance, aiPixels, image, pixelsMissing);
        })
      : deps.aiProviderWithheld && input.required.includes("ai")
        ? aiWithheld(deps.aiProviderWithheld, provenance, aiPixels)
        : observed.ai_detection;
    signals.depth = input.channel === "hosted_page" ? await time("burst", () => liveDepth(input, pixels, observed.screen_detection)) : depthMapSignal(depth);
    const thumbnail = pixels?.thumbnail;
    const web =
      deps.web && wantsWebSearch && fingerprint && thumbnail ? { provider: deps.web.name, outcome: await time("web_search", () => deps.web!.search(providerJpeg(thumbnail), "image/jpeg")) } : null;
    signals.reverse_search = reverseSignal(reverseSearchResult(input.tenantId, fingerprint, history, web), pixelsMissing);
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
    else vision = await time("vision", () => judge.judge({ ...parts, image: providerJpeg(pixels!.thumbnail!) }));
  }
  if (!input.uploaded && input.required.includes("context")) signals.context_match = notAnImage ? notAssessed("undecodable_image") : contextSignal(vision, judge !== null, pixelsMissing);
  notes.push(...signalNotes(signals, { vision, depth }, input.required));

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
    notes,
    observed,
    near_duplicates: history.matches.length,
    location: observedFix(input.location, metadata),
    vision,
    decode_error: decodeError,
    timings_ms: timings,
  };
}

/** The depth map behind the photos' header check and limits: one that is refused is unreadable, with why. */
function depthOf(png: Uint8Array | null): DepthResult {
  if (!png) return depthUnavailable("no_depth_map");
  try {
    return analyzeDepthPng(png);
  } catch (err) {
    const why = err instanceof DecodeFailure ? `${err.reason}: ${err.message}` : String(err);
    return depthUnavailable("depth_map_unreadable", why.slice(0, 200));
  }
}

/**
 * `ai_detection` with the configured provider asked (the combination: analysis/signals/ai-combine.ts),
 * sent the image signals/ai-provider-input.ts chose (its `ai_provider_input` evidence says which).
 * An image too large to decode has no pixels to send: the provider part is not assessed for that reason.
 */
async function aiSignal(
  provider: AiDetectionProvider,
  provenance: AiResult,
  pixels: AiResult | null,
  image: ProviderImage | null,
  pixelsMissing: NotAssessedReason | null,
): Promise<AiResult | AiNotAssessed | NotAssessed> {
  const outcome = image ? await provider.detect(image.bytes, image.mediaType) : { error: `no pixels to send (${pixelsMissing ?? "no thumbnail"})` };
  const combined = combineAiDetection({ provenance, pixels, provider: { name: provider.name, outcome } });
  if (isNotAssessed(combined) && !image && pixelsMissing) return { ...combined, reason: pixelsMissing };
  return image ? { ...combined, evidence: [...combined.evidence, image.evidence] } : combined;
}

/** `depth` of a hosted-page live capture: the service's measures of its burst, checked against the photo. */
function liveDepth(input: ImageInput, pixels: DecodedImage | null, screen: ScreenResult): DepthResult | DepthNotAssessed {
  const burst = input.burst ?? null;
  const readable = burst && !burst.unreadable && burst.frames.length > 0 ? burst : null;
  return assessCaptureBurst({
    record: input.captureIntegrity,
    burst,
    measures: readable ? measureBurst(readable.frames, readable.patches) : null,
    agreement: readable && pixels ? photoAgreement(pixels.overview, readable.frames) : null,
    patches: readable && pixels ? patchAgreement(photoCentre(pixels), readable.patches) : null,
    screenCue: screen.screen_detected ? { code: "screen_in_photo", value: round2(screen.confidence), detail: "the photo's moiré reads as a screen" } : null,
  });
}

function depthMapSignal(depth: DepthResult): DepthResult | NotAssessed {
  if (depth.source !== "unavailable") return depth;
  return notAssessed(depth.evidence[0]?.code === "no_depth_map" ? "no_depth_map" : "depth_map_unreadable");
}

/** The file declares itself a screenshot (IPTC `screenCapture`): that decides, whatever the pixels show. */
function withDeclaredScreenCapture(result: ScreenResult, declared: Evidence | null): ScreenResult {
  if (!declared) return result;
  return { ...result, screen_detected: true, confidence: Math.max(result.confidence, 0.9), evidence: [declared, ...result.evidence] };
}

function screenSignal(result: ScreenResult, pixelsMissing: NotAssessedReason | null): ScreenResult | NotAssessed {
  if (pixelsMissing) return notAssessed(pixelsMissing);
  if (result.evidence.some((e) => e.code === "image_too_small")) return notAssessed("image_too_small");
  return result;
}

/**
 * The reverse search is assessed whenever the service's own history was searched (`sources` says
 * what was, `found_online` stays false without a web match). A finding stands whatever else failed.
 * An image too plain to fingerprint was not compared with the history at all, so a clean web search
 * alone does not assess it; a web search that is configured but failed leaves it not assessed too:
 * the verification asked for it and did not get it.
 */
function reverseSignal(result: ReverseResult, pixelsMissing: NotAssessedReason | null): ReverseResult | NotAssessed {
  if (result.match_count > 0 || result.found_online) return result;
  if (pixelsMissing) return notAssessed(pixelsMissing);
  if (result.evidence.some((e) => e.code === "low_texture_not_matched")) return notAssessed("low_texture");
  if (result.evidence.some((e) => e.code === "web_search_error")) return notAssessed("web_search_error");
  return result;
}

function contextSignal(vision: VisionJudgement | null, configured: boolean, pixelsMissing: NotAssessedReason | null): ContextResult | NotAssessed {
  const judged = vision && !vision.error ? vision.context : null;
  if (!judged) {
    if (!configured) return notAssessed("vision_not_configured");
    return notAssessed(pixelsMissing ?? "vision_error");
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

/** The provider's own words from a not-assessed `ai_detection` (its `ai_provider_error` evidence). */
function providerError(value: NotAssessed): string | undefined {
  const evidence = (value as Partial<AiNotAssessed>).evidence ?? [];
  return evidence.find((e) => e.code === "ai_provider_error")?.detail;
}

/**
 * One note per required signal that was not assessed, with why in words where there are some: a
 * provider's error, or what refused a depth map (its header's reason, e.g. a frame over the ceiling).
 */
function signalNotes(signals: VerdictSignals, why: { vision: VisionJudgement | null; depth: DepthResult }, required: readonly SignalName[]): AnalysisNote[] {
  const notes: AnalysisNote[] = [];
  const keys = new Set<string>(required.map((name) => SIGNAL_KEYS[name]));
  for (const [key, value] of Object.entries(signals) as Array<[keyof VerdictSignals, unknown]>) {
    if (!keys.has(key) || !isNotAssessed(value)) continue;
    const detail =
      value.reason === "vision_error" ? why.vision?.error : value.reason === "ai_provider_error" ? providerError(value) : value.reason === "depth_map_unreadable" ? why.depth.evidence[0]?.detail : undefined;
    notes.push({ code: value.reason, signal: key, ...(detail ? { detail: detail.slice(0, 200) } : {}) });
  }
  return notes;
}
