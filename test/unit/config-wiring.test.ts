import { describe, expect, it } from "vitest";
import { analysisWiringProblems, type WorkerWiring } from "../../src/config-check";

const api: WorkerWiring = {
  name: "verification-service",
  d1DatabaseIds: ["d1"],
  r2Buckets: ["evidence"],
  producers: { EVENTS_QUEUE: "events", ANALYSIS_QUEUE: "analysis" },
  consumers: [{ queue: "events", deadLetterQueue: "dead" }, { queue: "dead" }],
  durableObjects: [
    { name: "VERIFICATIONS", className: "VerificationObject" },
    { name: "RATE_LIMITERS", className: "RateLimiterObject" },
  ],
};
const analysis: WorkerWiring = {
  name: "verification-analysis",
  d1DatabaseIds: ["d1"],
  r2Buckets: ["evidence"],
  producers: {},
  consumers: [{ queue: "analysis", deadLetterQueue: "dead" }],
  durableObjects: [
    { name: "VERIFICATIONS", className: "VerificationObject", scriptName: "verification-service" },
    { name: "RATE_LIMITERS", className: "RateLimiterObject", scriptName: "verification-service" },
  ],
};

describe("the analysis Worker's wiring to the API Worker (npm run build:check)", () => {
  it("accepts the two Workers sharing storage, the analysis queue going to the analysis Worker", () => {
    expect(analysisWiringProblems("production", api, analysis)).toEqual([]);
  });

  it("names every way the two can drift apart", () => {
    const drifted: WorkerWiring = {
      ...analysis,
      d1DatabaseIds: ["other-d1"],
      r2Buckets: ["other-bucket"],
      consumers: [{ queue: "analysis-typo" }],
      durableObjects: [
        { name: "VERIFICATIONS", className: "VerificationObject", scriptName: "verification-service-staging" },
        { name: "RATE_LIMITERS", className: "Nope", scriptName: "verification-service" },
      ],
    };
    expect(analysisWiringProblems("production", { ...api, consumers: [...api.consumers, { queue: "analysis" }] }, drifted)).toEqual([
      'production: analysis binding VERIFICATIONS must name script_name "verification-service" (got "verification-service-staging")',
      "production: analysis binding RATE_LIMITERS names class Nope, which verification-service does not host",
      "production: analysis D1 other-d1 is not the API Worker's",
      "production: analysis R2 bucket other-bucket is not the API Worker's",
      "production: the analysis Worker does not consume analysis",
      "production: the API Worker must not consume analysis (the analysis Worker does)",
      "production: the analysis consumer of analysis-typo has no dead-letter queue",
    ]);
    expect(analysisWiringProblems("local", { ...api, producers: {} }, { ...analysis, consumers: [{ queue: "analysis", deadLetterQueue: "nowhere" }] })).toEqual([
      "local: the API Worker has no ANALYSIS_QUEUE producer",
      "local: nobody records the dead letters of analysis (nowhere)",
    ]);
  });
});
