import type { AiMethod, ReverseSource } from "./evidence";
import type { FieldErrors } from "../lib/errors";
import type { AnalysisProviders } from "../providers/analysis";
import { decideAiProvider } from "../providers/ai-detection";
import type { AiDetectionProviderName } from "../schemas/ai-providers";
import { DEFAULT_SIGNALS_BY_CHANNEL, type CaptureChannel, type SignalName } from "../schemas/verification-create";
import { CAPTURE_BURST_PROVIDER } from "./signals/capture-burst";
import { parseCoordinates } from "./signals/location";

/*
 * What this deployment can assess, derived from the providers the analysis runs with
 * (providers/analysis.ts: one function reads them for both), so `GET /v1/capabilities`, the default
 * `signals_required` and the creation checks cannot disagree with what actually runs.
 */

export const CHECKS = ["object_match", "condition", "location_match"] as const;
export type CheckName = (typeof CHECKS)[number];

/** Whether one capture channel can deliver what a signal needs. */
export interface ChannelSupport {
  available: boolean;
  reason?: string;
  enable?: string;
}

export interface Capability {
  /** This deployment can assess it (on at least one capture channel: see `channels`). */
  available: boolean;
  /** Who assesses it. */
  provider?: string;
  /** `reverse` only: what it searches. */
  sources?: ReverseSource[];
  /** `ai` only: the methods that run for the asking tenant, each a possible `ai_detection.method`. */
  methods?: AiMethod[];
  /** `ai` only: every detection provider this deployment configures (what a tenant's `ai_detection_provider` may name). */
  detection_providers?: AiDetectionProviderName[];
  /** Why it is not available, or what limits it when it is. */
  reason?: string;
  /** The configuration (or, per channel, the capture path) that enables it or lifts the limit. */
  enable?: string;
  /** Per capture channel, where the channel matters. */
  channels?: Record<CaptureChannel, ChannelSupport>;
}

export interface Capabilities {
  signals: Record<SignalName, Capability>;
  checks: Record<CheckName, Capability>;
  /** What a creation that names neither gets: the contract's default set limited to what the default channel assesses. */
  defaults: { signals_required: SignalName[]; capture_channel: CaptureChannel };
}

/** A default signal this deployment could not assess, as a creation's config reports it. */
export interface LeftOut {
  signal: SignalName;
  reason: string;
  enable?: string;
}

export const DEFAULT_CHANNEL: CaptureChannel = "hosted_page";
/** `location_match`'s provider without a geocoder: an address cannot be resolved, coordinates can. */
const COORDINATES_ONLY = "coordinates";

const VISION_ENABLE =
  "Set VISION_API_URL (an OpenAI-compatible vision endpoint; VISION_MODEL, VISION_API_KEY) or deploy with the Workers AI binding (AI).";
const NO_VISION = "No vision provider is configured.";
const DEPTH_ON_THE_PAGE: ChannelSupport = {
  available: true,
  reason:
    "Assessed from the frames around the shutter that the capture page sends with each live photo (source capture_burst): the service measures them itself, checks the nonce it issued, replays and that the photo is the frame at the shutter. What the page reports (its camera's name, its preview) counts only against the capture. A live capture without frames reads depth not assessed.",
};
const DEPTH_OVER_THE_API: ChannelSupport = {
  available: true,
  reason: "Assessed from the capture's depth map (source forensic_buffer).",
  enable: 'Mint an upload URL of kind "forensic_buffer", PUT a 16-bit grayscale PNG depth map in millimetres, and name it in the capture\'s forensic_buffer_key.',
};

type Presence = Pick<AnalysisProviders, "vision" | "web" | "geocoder"> & Partial<Pick<AnalysisProviders, "aiPixels" | "aiProvidersConfigured" | "aiDecision">>;

const SETTING = "`ai_detection_provider` (PATCH /v1/tenant/settings)";
const AI_PROVIDER_ENABLE =
  "Set SIGHTENGINE_API_USER and SIGHTENGINE_API_SECRET (Sightengine), HIVE_API_KEY (Hive) or REALITY_DEFENDER_API_KEY (Reality Defender) to add a detection provider; AI_DETECTION_PROVIDER chooses which one is asked when several are set, and a tenant may choose another configured one, or none, with " +
  `${SETTING}.`;
const UNCALIBRATED = "Its score is read against 0.5, a threshold not calibrated on this service's photographs.";

/**
 * `ai`: provenance metadata always, the detection provider asked for this tenant (its
 * `ai_detection_provider`, else the deployment's choice: providers/ai-detection.ts #decideAiProvider);
 * a pixel detector only once one ships (schemas/ai-methods.ts).
 */
function aiCapability(providers: Presence): Capability {
  const configured = providers.aiProvidersConfigured ?? [];
  const decision = providers.aiDecision ?? decideAiProvider(null, configured);
  const asked = decision.ask;
  const methods: AiMethod[] = ["provenance", ...(providers.aiPixels ? (["pixels"] as const) : []), ...(asked ? ([`provider:${asked}`] as const) : [])];
  const provider = ["offline-provenance", ...(providers.aiPixels ? ["offline-pixels"] : []), ...(asked ? [asked] : [])].join("+");
  const base = { available: true, provider, methods, detection_providers: configured };
  if (decision.ask) {
    const others = configured.filter((name) => name !== decision.ask);
    const whose = decision.by === "tenant" ? `this tenant's choice (${SETTING})` : "this deployment's choice (AI_DETECTION_PROVIDER, else the first configured)";
    const also = others.length ? ` Also configured, not asked: ${others.join(", ")}.` : "";
    const choose = decision.by === "deployment" && others.length ? ` A tenant may choose another configured one, or none, with ${SETTING}.` : "";
    return { ...base, reason: `Detection provider asked: ${decision.ask}, ${whose}.${also}${choose} ${UNCALIBRATED}` };
  }
  switch (decision.why) {
    case "tenant_chose_none":
      return {
        ...base,
        reason: `This tenant chose no detection provider (${SETTING} is "none"): its images are sent to none, and provenance metadata decides.`,
        ...(configured.length ? { enable: `Set ai_detection_provider to null (this deployment's choice) or to a configured provider: ${configured.join(", ")}.` } : {}),
      };
    case "tenant_choice_not_configured":
      return {
        ...base,
        reason: `This tenant chose ${decision.chosen} (${SETTING}), which this deployment does not configure: no other provider is asked in its place, so a live capture without a provenance marker reads ai_detection not_assessed (ai_provider_error).`,
        enable: `Set ai_detection_provider to ${configured.length ? `a configured provider (${configured.join(", ")}), ` : ""}"none" or null, or configure ${decision.chosen} again.`,
      };
    case "deployment_choice_not_configured":
      return {
        ...base,
        reason: `Detection providers configured: ${configured.join(", ")}; none is asked for this tenant: AI_DETECTION_PROVIDER names none of them. Provenance metadata decides.`,
        enable: `Set AI_DETECTION_PROVIDER to one of the configured providers, or unset it; or choose one for this tenant with ${SETTING}.`,
      };
    case "none_configured":
      return {
        ...base,
        reason: providers.aiPixels
          ? "No detection provider is configured: the pixel detector this deployment plugs in and provenance metadata decide."
          : "Reads provenance metadata only (C2PA, XMP, generator chunks, EXIF): a generated image without its metadata reads unknown.",
        enable: AI_PROVIDER_ENABLE,
      };
  }
}

/** What the providers make assessable; `sharedHistory`: the asking tenant opted in to the shared reuse index. */
export function capabilitiesOf(providers: Presence, tenant: { sharedHistory: boolean } = { sharedHistory: false }): Capabilities {
  const vision: Capability = providers.vision ? { available: true, provider: providers.vision.name } : { available: false, reason: NO_VISION, enable: VISION_ENABLE };
  const sources: ReverseSource[] = ["service_history", ...(tenant.sharedHistory ? (["shared_history"] as const) : []), ...(providers.web ? (["web"] as const) : [])];
  const reverse: Capability = {
    available: true,
    provider: providers.web ? `internal-phash+${providers.web.name}` : "internal-phash",
    sources,
    ...(providers.web
      ? {}
      : {
          reason: "Searches this service's own history only (the tenant's verifications, and the shared reuse index when the tenant opted in): found_online is always false.",
          enable: "Set GOOGLE_VISION_API_KEY (Google Cloud Vision web detection) to search the web too.",
        }),
  };
  const signals: Record<SignalName, Capability> = {
    screen: { available: true, provider: "offline-moire" },
    ai: aiCapability(providers),
    reverse,
    context: vision,
    depth: { available: true, provider: `offline-depth-plane+${CAPTURE_BURST_PROVIDER}`, channels: { hosted_page: DEPTH_ON_THE_PAGE, api: DEPTH_OVER_THE_API } },
  };
  const checks: Record<CheckName, Capability> = {
    object_match: vision,
    condition: vision,
    location_match: providers.geocoder
      ? { available: true, provider: providers.geocoder.name }
      : {
          available: true,
          provider: COORDINATES_ONLY,
          reason: 'No geocoder is configured: expected_location must be coordinates ("48.8584, 2.2945"); an address is refused at creation.',
          enable: "Set GEOCODER_URL (a Nominatim-compatible geocoder) to accept addresses.",
        },
  };
  return { signals, checks, defaults: { signals_required: defaultSignals(signals, DEFAULT_CHANNEL).signals, capture_channel: DEFAULT_CHANNEL } };
}

/** Whether a capability holds on a capture channel, and if not, why and what enables it. */
export function supportOn(capability: Capability, channel: CaptureChannel): ChannelSupport {
  if (!capability.available) return { available: false, ...(capability.reason ? { reason: capability.reason } : {}), ...(capability.enable ? { enable: capability.enable } : {}) };
  return capability.channels?.[channel] ?? { available: true };
}

/** The channel's default set (DEFAULT_SIGNALS_BY_CHANNEL) limited to what the channel assesses, and what was left out. */
export function defaultSignals(signals: Record<SignalName, Capability>, channel: CaptureChannel): { signals: SignalName[]; leftOut: LeftOut[] } {
  const kept: SignalName[] = [];
  const leftOut: LeftOut[] = [];
  for (const signal of DEFAULT_SIGNALS_BY_CHANNEL[channel]) {
    const support = supportOn(signals[signal], channel);
    if (support.available) kept.push(signal);
    else leftOut.push({ signal, reason: support.reason ?? "Not assessed by this deployment.", ...(support.enable ? { enable: support.enable } : {}) });
  }
  return { signals: kept, leftOut };
}

/** What a creation (or a link template) asks the analysis to assess. */
export interface Requirements {
  signals_required?: readonly SignalName[];
  /** Given without `signals_required`, it brings the `context` signal (model/verification/config.ts). */
  context?: unknown;
  expected_object?: string;
  condition_aspects?: readonly string[];
  expected_location?: string;
}

/**
 * Each requirement this deployment cannot assess on the channel, keyed by the field that asked for
 * it, in words that say what enables it (the 400 `invalid_request`'s `fields`).
 */
export function unassessable(requirements: Requirements, capabilities: Capabilities, channel: CaptureChannel): FieldErrors {
  const fields: FieldErrors = {};
  /** Refuses `field` when `capability` does not hold on the channel. */
  const check = (field: string, what: string, capability: Capability) => {
    const support = supportOn(capability, channel);
    if (support.available) return;
    const where = capability.available ? ` on captures from the ${channel === "api" ? "API" : "hosted capture page"}` : " by this deployment";
    fields[field] = `${what} cannot be assessed${where}: ${support.reason ?? "not supported."}${support.enable ? ` To enable it: ${support.enable}` : ""}`;
  };
  (requirements.signals_required ?? []).forEach((signal, i) => check(`signals_required.${i}`, `The ${signal} signal`, capabilities.signals[signal]));
  if (requirements.signals_required === undefined && requirements.context !== undefined) check("context", "The context signal (context)", capabilities.signals.context);
  if (requirements.expected_object !== undefined) check("expected_object", "object_match (expected_object)", capabilities.checks.object_match);
  if (requirements.condition_aspects !== undefined) check("condition_aspects", "condition (condition_aspects)", capabilities.checks.condition);
  // Without a geocoder the check resolves coordinates only (its provider says so).
  const location = capabilities.checks.location_match;
  if (requirements.expected_location !== undefined && location.provider === COORDINATES_ONLY && !parseCoordinates(requirements.expected_location)) {
    fields.expected_location = `location_match cannot resolve an address: ${location.reason} To enable it: ${location.enable}`;
  }
  return fields;
}
