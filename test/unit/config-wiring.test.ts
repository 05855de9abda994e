/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import { ANALYSIS_JOB_CPU_MS, analysisCpuLimitProblems, analysisWiringProblems, configProblems, PROVIDER_VAR, rateLimitProblems, type RateLimitBindingConfig, type WorkerWiring } from "../../src/config-check";
import { CAPTURE_FLOW_LIMITS, LOCATION_LIMITS } from "../../src/domain/public-limits";
import { API_WORKER_SECRETS, REQUIRED_SECRETS } from "../../src/env";

const api: WorkerWiring = {
  name: "verification-service",
  d1DatabaseIds: ["d1"],
  r2Buckets: ["evidence"],
  producers: { EVENTS_QUEUE: "events", ANALYSIS_QUEUE: "analysis", ANALYSIS_BULK_QUEUE: "analysis-bulk" },
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
  consumers: [
    { queue: "analysis", deadLetterQueue: "dead" },
    { queue: "analysis-bulk", deadLetterQueue: "dead" },
  ],
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
      consumers: [{ queue: "analysis-typo" }, { queue: "analysis-bulk", deadLetterQueue: "dead" }],
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
      "local: the API Worker has no ANALYSIS_BULK_QUEUE producer",
      "local: nobody records the dead letters of analysis (nowhere)",
    ]);
    // The capabilities come from the API Worker's configuration, the analysis from its own: they must agree.
    expect(analysisWiringProblems("staging", { ...api, providers: { AI: "AI", GEOCODER_URL: "https://geo" } }, { ...analysis, providers: { AI: "AI" } })).toEqual([
      "staging: the two Workers configure the analysis provider GEOCODER_URL differently (the capabilities would not describe what the analysis runs)",
    ]);
    expect(analysisWiringProblems("staging", { ...api, providers: { AI: "AI" } }, { ...analysis, providers: { AI: "AI" } })).toEqual([]);
    // Every detection provider's vars, and the choice among them, select what the analysis runs.
    const providerVars = ["SIGHTENGINE_URL", "HIVE_URL", "REALITY_DEFENDER_URL", "AI_DETECTION_PROVIDER", "VISION_MODEL", "C2PA_TRUSTED_SIGNERS"];
    expect(providerVars.filter((name) => PROVIDER_VAR.test(name))).toEqual(providerVars);
    expect(["ENVIRONMENT", "HIVE", "AI_DETECTION_PROVIDERS"].filter((name) => PROVIDER_VAR.test(name))).toEqual([]);
    // The bulk lane is wired like the fast one.
    expect(analysisWiringProblems("staging", api, { ...analysis, consumers: [analysis.consumers[0]!] })).toEqual(["staging: the analysis Worker does not consume analysis-bulk"]);
  });
});

describe("the certificate signing key (npm run build:check)", () => {
  const names = { local: "svc-local", staging: "svc-staging", production: "svc" };
  const withSecrets = (secrets: string[]) => Object.fromEntries(Object.entries(names).map(([env, name]) => [env, { name, secrets: env === "local" ? [] : secrets }]));

  it("refuses an API Worker whose staging or production does not require it", () => {
    expect(configProblems(withSecrets([...API_WORKER_SECRETS]), ["staging", "production"], API_WORKER_SECRETS)).toEqual([]);
    expect(configProblems(withSecrets(["SIGNING_SECRET", "SESSION_SECRET"]), ["staging", "production"], API_WORKER_SECRETS)).toEqual([
      "[env.staging.secrets] required must list CERTIFICATE_SIGNING_KEY",
      "[env.production.secrets] required must list CERTIFICATE_SIGNING_KEY",
    ]);
  });

  it("refuses an analysis Worker that would hold it", () => {
    const forbidden = ["CERTIFICATE_SIGNING_KEY"];
    expect(configProblems(withSecrets([...REQUIRED_SECRETS]), ["staging", "production"], REQUIRED_SECRETS, forbidden)).toEqual([]);
    expect(configProblems(withSecrets([...API_WORKER_SECRETS]), ["production"], REQUIRED_SECRETS, forbidden)).toEqual([
      "[env.production.secrets] must not list CERTIFICATE_SIGNING_KEY: this Worker never needs it",
    ]);
  });
});

describe("the Rate Limiting bindings include the certificate door and the publishable create", () => {
  it("binds GET /v1/certificates/{token} per location like the capture flow's doors", () => {
    expect(Object.values(LOCATION_LIMITS).map((r) => r.binding)).toEqual(["CAPTURE_READ_LIMITER", "CAPTURE_WRITE_LIMITER", "CERTIFICATE_READ_LIMITER", "PUBLISHABLE_CREATE_LIMITER", "BACKEND_CREATE_LIMITER"]);
  });
});

describe("the capture flow's rate limit bindings (npm run build:check)", () => {
  const rules = Object.values(CAPTURE_FLOW_LIMITS);
  const bound = (base: number): RateLimitBindingConfig[] =>
    rules.map((r, i) => ({ name: r.binding, namespace_id: String(base + i), simple: { limit: r.limit, period: r.periodSeconds } }));

  it("accepts every rule bound as the code states it, a namespace per environment", () => {
    expect(rateLimitProblems({ local: bound(1001), staging: bound(2001), production: bound(3001) }, rules)).toEqual([]);
  });

  it("refuses a missing binding, another limit or period, and a namespace shared by two environments", () => {
    const production = bound(3001).slice(1);
    production[0] = { ...production[0]!, simple: { limit: 999, period: 60 } };
    expect(rateLimitProblems({ staging: bound(3001), production }, rules)).toEqual([
      `production: rate limit binding ${rules[0]!.binding} is missing`,
      `production: ${rules[1]!.binding} is 999 per 60 s, the code says ${rules[1]!.limit} per 60 s`,
      "rate limit namespace 3002 is used by staging and production",
    ]);
  });

  it("refuses a binding no rule uses (a limit the code no longer applies there)", () => {
    const leftover: RateLimitBindingConfig = { name: "CAPTURE_WRITE_VFY_LIMITER", namespace_id: "3099", simple: { limit: 100, period: 60 } };
    expect(rateLimitProblems({ production: [...bound(3001), leftover] }, rules)).toEqual([
      "production: rate limit binding CAPTURE_WRITE_VFY_LIMITER is declared but the code has no rule for it",
    ]);
  });
});

describe("the analysis Worker's CPU limit (npm run build:check)", () => {
  it("covers a whole batch of worst-case analysis jobs, within the platform's 5 minutes", () => {
    expect(analysisCpuLimitProblems("production", { cpuMs: 4 * ANALYSIS_JOB_CPU_MS, maxBatchSize: 4 })).toEqual([]);
    expect(analysisCpuLimitProblems("production", { cpuMs: undefined, maxBatchSize: 4 })).toEqual(["production: the analysis Worker has no limits.cpu_ms"]);
    expect(analysisCpuLimitProblems("staging", { cpuMs: 30_000, maxBatchSize: 4 })).toEqual([
      `staging: limits.cpu_ms 30000 is below a batch of 4 analysis jobs of ${ANALYSIS_JOB_CPU_MS} ms each`,
    ]);
    // Without max_batch_size the queue's default batch is 10.
    expect(analysisCpuLimitProblems("local", { cpuMs: 40_000, maxBatchSize: undefined })).toHaveLength(1);
    expect(analysisCpuLimitProblems("production", { cpuMs: 400_000, maxBatchSize: 1 })).toEqual(["production: limits.cpu_ms 400000 is above the platform's 300000"]);
  });
});

/** Every module the Workers are built from, as text (Vite's raw imports: the files as committed). */
const SOURCES = import.meta.glob<string>(["../../src/**/*.ts"], { query: "?raw", import: "default", eager: true });

describe("the simulated CPU limit is out of reach of any deployment (issue 33)", () => {
  it("no module the Workers are built from can simulate it: the hook, its switch and the metadata that set it off live in the tests only", () => {
    expect(Object.keys(SOURCES).length).toBeGreaterThan(100);
    const reaching = Object.entries(SOURCES)
      .filter(([, text]) => /simulate_fault|cpu_limit_exceeded|SIMULATE_CPU_LIMIT|CpuLimitExceeded/.test(text))
      .map(([file]) => file);
    expect(reaching).toEqual([]);
  });
});
