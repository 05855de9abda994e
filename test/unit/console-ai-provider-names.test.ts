import { describe, expect, it } from "vitest";
import { aiResult } from "../../client/console/lib/signals";

/* The console names each detection provider the analysis can ask by its display name (client/console/lib/signals.ts). */

describe("the console's words for a provider's ai_detection", () => {
  it("names Sightengine, Hive and Reality Defender", () => {
    const words = (method: string) => aiResult({ label: "likely_ai", confidence: 0.97, method, evidence: [{ code: "ai_provider_score", value: 0.97 }] }).text;
    expect(words("provider:sightengine")).toBe("AI-generated content: by Sightengine (score 0.97, confidence 97 %)");
    expect(words("provider:hive")).toBe("AI-generated content: by Hive (score 0.97, confidence 97 %)");
    expect(words("provider:reality-defender")).toBe("AI-generated content: by Reality Defender (score 0.97, confidence 97 %)");
  });
});
