import type { WebImageSearch } from "../analysis/signals/reverse-search";
import type { C2paTrust } from "../analysis/c2pa-trust";
import { settings } from "../env";
import { PIXEL_DETECTOR_SHIPS } from "../schemas/ai-methods";
import type { AiDetectionProviderName } from "../schemas/ai-providers";
import { aiProviderDecision, aiProviderFor, configuredAiProviders, type AiProviderDecision, type TenantAiProvider } from "./ai-detection";
import { geocoderFromEnv, type Geocoder } from "./geocoder";
import { visionJudge, type VisionJudge } from "./vision";
import { webImageSearch } from "./web-search";

/**
 * The external providers the analysis runs with, read from the deployment's configuration in this
 * one place: the analysis (analysis/pipeline.ts, analysis/case-runner.ts) takes them from here, and
 * so do the capabilities (analysis/capabilities.ts) that creation checks and `GET /v1/capabilities`
 * answers, so what the service says it can assess is what it runs.
 */
export interface AnalysisProviders {
  /** Judges context, object and condition (an OpenAI-compatible endpoint or Workers AI), or none. */
  vision: VisionJudge | null;
  /** Web reverse-image search (Google Cloud Vision web detection), or none: the service's own history still is searched. */
  web: WebImageSearch | null;
  /**
   * Whether the analysis runs a pixel detector (no external service: it is here so the capabilities
   * say so). None ships: `pixels` is reserved (schemas/ai-methods.ts, PIXEL_DETECTOR_SHIPS). The
   * analysis Worker would pass the detector itself (analysis/pipeline.ts, ImageDeps.aiPixels), never
   * this module: the API Worker's bundle stays free of analysis code.
   */
  aiPixels: boolean;
  /** Every commercial AI-generated-image detector configured (Sightengine, Hive, Reality Defender): the capabilities list them. */
  aiProvidersConfigured: AiDetectionProviderName[];
  /** Which of them a tenant that left `ai_detection_provider` null gets: the deployment's choice. */
  aiDecision: AiProviderDecision;
  /**
   * The one a tenant's captures are sent to, by its `ai_detection_provider` setting (null: the
   * deployment's choice), with the decision that says why (or why none is).
   */
  aiProviderFor(setting: string | null): TenantAiProvider;
  /** Resolves `expected_location` addresses (Nominatim-compatible), or none: only coordinates resolve. */
  geocoder: Geocoder | null;
  /** Which C2PA signers are trusted for `likely_human` (docs/signals.md, "Provenance"). */
  trustedSigners: C2paTrust;
  /** Test environments only: the documented `vfy-test` marker drives the vision judgements of the images that carry it. */
  testMarkers: boolean;
}

/** C2PA_TRUST_LIST=none drops the shipped C2PA Trust List; C2PA_TRUST_ANCHORS adds PEM anchors; C2PA_TRUSTED_SIGNERS pins fingerprints. */
export function c2paTrust(env: Pick<Env, "C2PA_TRUST_LIST" | "C2PA_TRUST_ANCHORS" | "C2PA_TRUSTED_SIGNERS">): C2paTrust {
  return {
    officialList: (env.C2PA_TRUST_LIST ?? "official").trim().toLowerCase() !== "none",
    anchorsPem: env.C2PA_TRUST_ANCHORS ?? "",
    fingerprints: (env.C2PA_TRUSTED_SIGNERS ?? "").split(",").map((s: string) => s.trim()).filter(Boolean),
  };
}

export function analysisProviders(env: Env): AnalysisProviders {
  return {
    vision: visionJudge(env),
    web: webImageSearch(env),
    aiPixels: PIXEL_DETECTOR_SHIPS,
    aiProvidersConfigured: configuredAiProviders(env),
    aiDecision: aiProviderDecision(env),
    aiProviderFor: (setting) => aiProviderFor(env, setting),
    geocoder: geocoderFromEnv(env),
    trustedSigners: c2paTrust(env),
    testMarkers: settings(env).environment !== "production",
  };
}
