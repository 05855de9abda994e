import { describe, expect, it } from "vitest";
import { capabilitiesOf, defaultSignals, unassessable } from "../../src/analysis/capabilities";
import { CONTRACT_DEFAULTS, normalizeConfig } from "../../src/model/verification/config";

const none = { vision: null, web: null, geocoder: null };
const all = {
  vision: { name: "workers-ai", judge: async () => ({}) as never },
  web: { name: "google-web-detection", search: async () => ({ error: "unused" }) },
  geocoder: { name: "nominatim", geocode: async () => null },
};

describe("capabilities from the analysis providers", () => {
  it("the offline signals always; context, object and condition with a vision judge; reverse over the history, the web with a search", () => {
    const bare = capabilitiesOf(none);
    expect(Object.entries(bare.signals).filter(([, c]) => c.available).map(([s]) => s)).toEqual(["screen", "ai", "reverse", "depth"]);
    expect(bare.signals.reverse.sources).toEqual(["service_history"]);
    expect(capabilitiesOf(none, { sharedHistory: true }).signals.reverse.sources).toEqual(["service_history", "shared_history"]);
    const full = capabilitiesOf(all, { sharedHistory: true });
    expect(Object.values(full.signals).every((c) => c.available)).toBe(true);
    expect(Object.values(full.checks).every((c) => c.available && !c.reason)).toBe(true);
    expect(full.signals.reverse.sources).toEqual(["service_history", "shared_history", "web"]);
    // depth is assessed on both channels, from different evidence, whatever is configured.
    expect(full.signals.depth.channels?.hosted_page).toMatchObject({ available: true, reason: expect.stringContaining("the service measures them itself") });
    expect(full.signals.depth.channels?.api).toMatchObject({ available: true, reason: expect.stringContaining("depth map") });
  });

  it("ai: which methods run (each a possible ai_detection.method) and what adds a detection provider", () => {
    expect(capabilitiesOf(none).signals.ai).toEqual({
      available: true,
      provider: "offline-provenance",
      methods: ["provenance"],
      detection_providers: [],
      reason: expect.stringMatching(/provenance metadata only/),
      enable: expect.stringMatching(/SIGHTENGINE_API_USER and SIGHTENGINE_API_SECRET .*HIVE_API_KEY .*REALITY_DEFENDER_API_KEY/),
    });
    expect(capabilitiesOf({ ...none, aiPixels: true }).signals.ai).toMatchObject({
      provider: "offline-provenance+offline-pixels",
      methods: ["provenance", "pixels"],
      reason: expect.stringMatching(/No detection provider/),
      enable: expect.stringContaining("SIGHTENGINE_API_SECRET"),
    });
    const asked = (ask: "sightengine" | "hive", by: "tenant" | "deployment" = "deployment") => ({ ask, by }) as const;
    expect(capabilitiesOf({ ...none, aiPixels: true, aiProvidersConfigured: ["sightengine"], aiDecision: asked("sightengine") }).signals.ai).toEqual({
      available: true,
      provider: "offline-provenance+offline-pixels+sightengine",
      methods: ["provenance", "pixels", "provider:sightengine"],
      detection_providers: ["sightengine"],
      reason: "Detection provider asked: sightengine, this deployment's choice (AI_DETECTION_PROVIDER, else the first configured). Its score is read against 0.5, a threshold not calibrated on this service's photographs.",
    });
    // Several configured: each is listed, the one asked is the only method, and a tenant may choose another.
    const three = ["sightengine", "hive", "reality-defender"] as const;
    expect(capabilitiesOf({ ...none, aiProvidersConfigured: [...three], aiDecision: asked("hive") }).signals.ai).toEqual({
      available: true,
      provider: "offline-provenance+hive",
      methods: ["provenance", "provider:hive"],
      detection_providers: [...three],
      reason:
        "Detection provider asked: hive, this deployment's choice (AI_DETECTION_PROVIDER, else the first configured). Also configured, not asked: sightengine, reality-defender. A tenant may choose another configured one, or none, with `ai_detection_provider` (PATCH /v1/tenant/settings). Its score is read against 0.5, a threshold not calibrated on this service's photographs.",
    });
    expect(capabilitiesOf({ ...none, aiProvidersConfigured: [...three], aiDecision: asked("hive", "tenant") }).signals.ai.reason).toMatch(/^Detection provider asked: hive, this tenant's choice \(`ai_detection_provider`/);
    // Without a decision, the first configured (AI_DETECTION_PROVIDERS order) is asked.
    expect(capabilitiesOf({ ...none, aiProvidersConfigured: ["hive"] }).signals.ai.methods).toEqual(["provenance", "provider:hive"]);
    expect(capabilitiesOf({ ...none, aiProvidersConfigured: ["hive"], aiDecision: { ask: null, why: "deployment_choice_not_configured" } }).signals.ai).toMatchObject({
      methods: ["provenance"],
      reason: expect.stringContaining("Detection providers configured: hive; none is asked"),
    });
    expect(capabilitiesOf({ ...none, aiProvidersConfigured: ["hive"], aiDecision: { ask: null, why: "tenant_chose_none" } }).signals.ai).toEqual({
      available: true,
      provider: "offline-provenance",
      methods: ["provenance"],
      detection_providers: ["hive"],
      reason: 'This tenant chose no detection provider (`ai_detection_provider` (PATCH /v1/tenant/settings) is "none"): its images are sent to none, and provenance metadata decides.',
      enable: "Set ai_detection_provider to null (this deployment's choice) or to a configured provider: hive.",
    });
    expect(capabilitiesOf({ ...none, aiProvidersConfigured: ["hive"], aiDecision: { ask: null, why: "tenant_choice_not_configured", chosen: "sightengine" } }).signals.ai).toMatchObject({
      methods: ["provenance"],
      reason: expect.stringMatching(/^This tenant chose sightengine .*which this deployment does not configure: no other provider is asked in its place.*not_assessed \(ai_provider_error\)/),
      enable: 'Set ai_detection_provider to a configured provider (hive), "none" or null, or configure sightengine again.',
    });
  });

  it("the default set is limited to what the channel assesses, and says what it left out", () => {
    const signals = capabilitiesOf(none).signals;
    expect(defaultSignals(signals, "hosted_page")).toEqual({ signals: ["screen", "ai", "reverse", "depth"], leftOut: [] });
    expect(defaultSignals(signals, "api")).toEqual({ signals: ["screen", "ai", "reverse"], leftOut: [] });
    // A deployment that could not assess one of the defaults (none today: shown with a stand-in).
    const limited = { ...signals, reverse: { available: false, reason: "no history", enable: "add one" } };
    expect(defaultSignals(limited, "hosted_page")).toEqual({ signals: ["screen", "ai", "depth"], leftOut: [{ signal: "reverse", reason: "no history", enable: "add one" }] });
    const config = normalizeConfig({ max_captures: 1 }, defaultSignals(limited, "hosted_page"));
    expect(config).toMatchObject({ signals_required: ["screen", "ai", "depth"], signals_default: { left_out: [{ signal: "reverse" }] } });
    expect(normalizeConfig({ max_captures: 1, signals_required: ["ai"] }, CONTRACT_DEFAULTS).signals_default).toBeUndefined();
  });

  it("names each unassessable requirement by its field; depth on either channel", () => {
    const bare = capabilitiesOf(none);
    expect(Object.keys(unassessable({ signals_required: ["screen", "depth", "context"], expected_object: "x", condition_aspects: ["a"], expected_location: "Main St" }, bare, "hosted_page")).sort()).toEqual([
      "condition_aspects",
      "expected_location",
      "expected_object",
      "signals_required.2",
    ]);
    expect(unassessable({ signals_required: ["depth"], expected_location: "48.85, 2.29" }, bare, "api")).toEqual({});
    expect(unassessable({ signals_required: ["context", "depth"], expected_object: "x", expected_location: "Main St" }, capabilitiesOf(all), "api")).toEqual({});
  });
});
