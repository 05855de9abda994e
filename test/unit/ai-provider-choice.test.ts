import { describe, expect, it } from "vitest";
import type { AiResult } from "../../src/analysis/evidence";
import { aiWithheld } from "../../src/analysis/signals/ai-combine";
import { decideAiProvider } from "../../src/providers/ai-detection";

/* Which detection provider a tenant's captures go to (issue 43, item 4): the tenant's setting, then the deployment's. */

const all = ["sightengine", "hive", "reality-defender"] as const;

describe("decideAiProvider", () => {
  it("null leaves it to the deployment: AI_DETECTION_PROVIDER when it names a configured one, else the first configured", () => {
    expect(decideAiProvider(null, all)).toEqual({ ask: "sightengine", by: "deployment" });
    expect(decideAiProvider(null, ["hive", "reality-defender"])).toEqual({ ask: "hive", by: "deployment" });
    expect(decideAiProvider(null, all, " reality-defender ")).toEqual({ ask: "reality-defender", by: "deployment" });
    expect(decideAiProvider(null, ["hive"], "sightengine")).toEqual({ ask: null, why: "deployment_choice_not_configured" });
    expect(decideAiProvider(null, [])).toEqual({ ask: null, why: "none_configured" });
  });

  it("a provider's name asks that one over the deployment's choice, and never another when it is not configured", () => {
    expect(decideAiProvider("hive", all, "sightengine")).toEqual({ ask: "hive", by: "tenant" });
    expect(decideAiProvider("reality-defender", ["hive", "reality-defender"])).toEqual({ ask: "reality-defender", by: "tenant" });
    expect(decideAiProvider("sightengine", ["hive", "reality-defender"], "hive")).toEqual({ ask: null, why: "tenant_choice_not_configured", chosen: "sightengine" });
    expect(decideAiProvider("hive", [])).toEqual({ ask: null, why: "tenant_choice_not_configured", chosen: "hive" });
    // A value no provider has (written around the API) is not configured either.
    expect(decideAiProvider("Hive", all)).toEqual({ ask: null, why: "tenant_choice_not_configured", chosen: "Hive" });
  });

  it("none asks none, whatever is configured", () => {
    expect(decideAiProvider("none", all, "hive")).toEqual({ ask: null, why: "tenant_chose_none" });
    expect(decideAiProvider("none", [])).toEqual({ ask: null, why: "tenant_chose_none" });
  });
});

describe("aiWithheld", () => {
  const noMarker: AiResult = { label: "unknown", confidence: 0.1, method: "provenance", provider: "offline-provenance", method_version: "ai-provenance/2", evidence: [{ code: "no_generator_marker", value: 0 }] };
  const marker: AiResult = { ...noMarker, label: "likely_ai", confidence: 0.9, evidence: [{ code: "sd_parameters_chunk" }] };

  it("none: provenance decides, and the evidence says the tenant chose no provider", () => {
    expect(aiWithheld({ why: "tenant_chose_none" }, noMarker, null)).toEqual({
      ...noMarker,
      evidence: [{ code: "no_generator_marker", value: 0 }, { code: "ai_provider_opted_out", detail: expect.stringContaining("ai_detection_provider: none") }],
    });
    expect(aiWithheld({ why: "tenant_chose_none" }, marker, null)).toMatchObject({ label: "likely_ai", method: "provenance" });
  });

  it("a chosen provider that is not configured fails closed (ai_provider_error, naming it), unless provenance decides", () => {
    expect(aiWithheld({ why: "tenant_choice_not_configured", provider: "hive" }, noMarker, null)).toEqual({
      status: "not_assessed",
      reason: "ai_provider_error",
      provider: "hive",
      method_version: "ai-provider/1",
      evidence: [{ code: "ai_provider_error", detail: expect.stringMatching(/^hive: not configured in this deployment; this tenant chose it .*no other provider was asked$/) }, ...noMarker.evidence],
    });
    expect(aiWithheld({ why: "tenant_choice_not_configured", provider: "hive" }, marker, null)).toMatchObject({ label: "likely_ai", method: "provenance" });
  });
});
