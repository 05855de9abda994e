import { describe, expect, it } from "vitest";
import { presentTemplate } from "../../src/domain/templates/present";
import { mergeSpec, startedToday, type TemplateRow } from "../../src/domain/templates/templates";
import { ApiError } from "../../src/lib/errors";
import { CONTRACT_DEFAULTS } from "../../src/model/verification/config";

const steps = [{ key: "a", type: "image" as const, description: "", min: 1, max: 1 }];

function row(overrides: Partial<TemplateRow> = {}): TemplateRow {
  return {
    id: "tpl_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
    tenantId: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
    slug: "roof",
    name: "Roof",
    mode: "verification",
    status: "active",
    version: 3,
    spec: { max_captures: 2 },
    startedTotal: 10,
    startedToday: 4,
    startedDay: "2026-11-22",
    createdAt: Date.UTC(2026, 10, 1),
    updatedAt: Date.UTC(2026, 10, 2),
    ...overrides,
  };
}

describe("mergeSpec", () => {
  it("replaces given fields, clears nulls, and lets steps and max_captures replace each other", () => {
    const current = { max_captures: 2, metadata: { a: "1" }, expected_object: "roof" };
    expect(mergeSpec(current, { steps })).toEqual({ steps, metadata: { a: "1" }, expected_object: "roof" });
    expect(mergeSpec({ steps }, { max_captures: 3 })).toEqual({ max_captures: 3 });
    expect(mergeSpec(current, { expected_object: null, metadata: { b: "2" } })).toEqual({ max_captures: 2, metadata: { b: "2" } });
    expect(mergeSpec(current, { name: "only the name" })).toEqual(current);
  });

  it("refuses a merged spec that breaks the creation rules, with field paths", () => {
    let error: unknown;
    try {
      mergeSpec({ max_captures: 2 }, { signals_required: ["ai", "ai"] });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ApiError);
    // (A "context" without a context object is the capability check's: assertAssessable, tested with the routes.)
    expect((error as ApiError).fields).toHaveProperty("signals_required");
  });
});

describe("template item", () => {
  it("shows today's count only on the day it counts (UTC)", () => {
    expect(startedToday(row(), Date.UTC(2026, 10, 22, 23, 59))).toBe(4);
    expect(startedToday(row(), Date.UTC(2026, 10, 23, 0, 0))).toBe(0);
    expect(startedToday(row({ startedDay: null }), Date.UTC(2026, 10, 22))).toBe(0);
  });

  it("presents the spec as verifications will get it", () => {
    const item = presentTemplate(row({ spec: { max_captures: 2, seal: false } }), { baseUrl: "https://v.example", orgSlug: "acme", defaults: CONTRACT_DEFAULTS, now: Date.UTC(2026, 10, 22, 12) });
    expect(item).toEqual({
      id: "tpl_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
      slug: "roof",
      name: "Roof",
      mode: "verification",
      status: "active",
      version: 3,
      url: "https://v.example/l/acme/roof",
      max_captures: 2,
      steps: [{ key: "capture_1", type: "image", description: "", min: 2, max: 2 }],
      signals_required: ["screen", "ai", "reverse"],
      // The template names no signals: its starts get the deployment's defaults, and say so.
      signals_default: { left_out: [] },
      expires_in_seconds: 604800,
      seal: false,
      started_total: 10,
      started_today: 4,
      created_at: "2026-11-01T00:00:00.000Z",
      updated_at: "2026-11-02T00:00:00.000Z",
    });
  });
});
