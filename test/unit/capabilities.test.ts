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
      reason: expect.stringMatching(/provenance metadata only/),
      enable: expect.stringMatching(/SIGHTENGINE_API_USER and SIGHTENGINE_API_SECRET .*HIVE_API_KEY .*REALITY_DEFENDER_API_KEY/),
    });
    expect(capabilitiesOf({ ...none, aiPixels: true }).signals.ai).toMatchObject({
      provider: "offline-provenance+offline-pixels",
      methods: ["provenance", "pixels"],
      reason: expect.stringMatching(/No detection provider/),
      enable: expect.stringContaining("SIGHTENGINE_API_SECRET"),
    });
    const accepts = { mediaTypes: ["image/jpeg"], maxBytes: 1 };
    const sightengine = { name: "sightengine", accepts, detect: async () => ({ error: "unused" }) };
    expect(capabilitiesOf({ ...none, aiPixels: true, aiProvider: sightengine }).signals.ai).toEqual({
      available: true,
      provider: "offline-provenance+offline-pixels+sightengine",
      methods: ["provenance", "pixels", "provider:sightengine"],
      reason: "Detection provider asked: sightengine. Its score is read against 0.5, a threshold not calibrated on this service's photographs.",
    });
    // Several configured: each is listed, the one asked is the only method.
    const hive = { name: "hive", accepts, detect: async () => ({ error: "unused" }) };
    expect(capabilitiesOf({ ...none, aiProvider: hive, aiProvidersConfigured: ["sightengine", "hive", "reality-defender"] }).signals.ai).toEqual({
      available: true,
      provider: "offline-provenance+hive",
      methods: ["provenance", "provider:hive"],
      reason: "Detection provider asked: hive. Also configured, not asked: sightengine, reality-defender (AI_DETECTION_PROVIDER chooses). Its score is read against 0.5, a threshold not calibrated on this service's photographs.",
    });
    expect(capabilitiesOf({ ...none, aiProvider: null, aiProvidersConfigured: ["hive"] }).signals.ai).toMatchObject({ methods: ["provenance"], reason: expect.stringContaining("Detection providers configured: hive; none is asked") });
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
