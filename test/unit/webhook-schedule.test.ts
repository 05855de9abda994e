import { describe, expect, it } from "vitest";
import wranglerToml from "../../wrangler.toml?raw";
import {
  MAX_DELAY_SECONDS,
  PRODUCTION_BASE_SECONDS,
  retryDelaySeconds,
  retryScheduleFor,
  WEBHOOK_MAX_RETRIES,
} from "../../src/domain/webhooks/schedule";

const HOUR = 3600;
const production = (random: number) => ({ baseSeconds: PRODUCTION_BASE_SECONDS, random: () => random });
const total = (random: number) =>
  Array.from({ length: WEBHOOK_MAX_RETRIES }, (_, i) => retryDelaySeconds(i + 1, production(random))).reduce((a, b) => a + b, 0);

describe("webhook retry schedule", () => {
  it("outlasts a 72-hour outage whatever the jitter draws, and ends within the queue's 4-day retention", () => {
    expect(total(0.5) / HOUR).toBeGreaterThan(80);
    expect(total(0.5) / HOUR).toBeLessThan(82);
    // Every draw at its lowest, then at its highest.
    expect(total(0) / HOUR).toBeGreaterThan(75);
    expect(total(0.999999) / HOUR).toBeLessThan(87);
  });

  it("doubles from the base, then stays at the cap, never beyond the 12 h Queues maximum", () => {
    const mid = Array.from({ length: WEBHOOK_MAX_RETRIES }, (_, i) => retryDelaySeconds(i + 1, production(0.5)));
    expect(mid.slice(0, 5)).toEqual([8, 16, 32, 64, 128]);
    for (let i = 1; i < mid.length; i += 1) expect(mid[i]).toBeGreaterThanOrEqual(mid[i - 1]!);
    expect(mid[WEBHOOK_MAX_RETRIES - 1]).toBe(MAX_DELAY_SECONDS);
    for (const r of [0, 0.3, 0.999999]) {
      for (let attempt = 1; attempt <= 40; attempt += 1) expect(retryDelaySeconds(attempt, production(r))).toBeLessThanOrEqual(43_200);
    }
  });

  it("jitters by ±20 % while the delay grows, ±5 % at the cap", () => {
    // Nominal 8 s × 2^9 = 4096 s.
    expect(retryDelaySeconds(10, production(0))).toBe(3277);
    expect(retryDelaySeconds(10, production(0.999999))).toBe(4915);
    // At the 8 h cap (28 800 s).
    expect(retryDelaySeconds(15, production(0))).toBe(27_360);
    expect(retryDelaySeconds(15, production(0.999999))).toBe(30_240);
    const spread = new Set(Array.from({ length: 50 }, () => retryDelaySeconds(10, { baseSeconds: PRODUCTION_BASE_SECONDS })));
    expect(spread.size).toBeGreaterThan(10);
  });

  it("takes its base from WEBHOOK_RETRY_BASE_SECONDS (tests: 0 = at once), 8 s otherwise", () => {
    expect(retryScheduleFor({}).baseSeconds).toBe(8);
    expect(retryScheduleFor({ WEBHOOK_RETRY_BASE_SECONDS: "0" }).baseSeconds).toBe(0);
    expect(retryScheduleFor({ WEBHOOK_RETRY_BASE_SECONDS: "nonsense" }).baseSeconds).toBe(8);
    expect(retryDelaySeconds(7, { baseSeconds: 0 })).toBe(0);
  });

  it("matches max_retries of every webhooks consumer in wrangler.toml", () => {
    const blocks = wranglerToml.split(/\n(?=\[)/).filter((b) => /queue = "vfy-webhooks-/.test(b) && b.includes("consumers"));
    expect(blocks).toHaveLength(3);
    for (const block of blocks) expect(block).toMatch(new RegExp(`max_retries = ${WEBHOOK_MAX_RETRIES}\\b`));
  });
});
