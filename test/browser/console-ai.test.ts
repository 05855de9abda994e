import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { Page } from "playwright-core";
import { encodePngRgb, naturalScene } from "../helpers/synth";
import { tenantClient } from "./helpers/api";
import { openConsole, shoot, signInAsDev, type ConsoleBrowser } from "./helpers/console";

/*
 * The verification page's AI-generation row says what decided `ai_detection` (issue 31): provenance
 * metadata or a detection provider, with its score; a result naming the reserved `pixels` method (no
 * pixel detector ships, issue 42) is worded as reserved, never as a built-in detector. The provenance case
 * is a real verification analysed by the Workers. This deployment runs no pixel detector and no
 * provider (as `npm start`), so the other methods are shown by answering the console's
 * GET /v1/verifications/{id} with the real verification whose `ai_detection` is replaced by what the
 * analysis writes for them (docs/signals.md); that answer is checked against the served OpenAPI
 * document like every other the console gets. Screenshots: test-results/console/ai-*.png.
 */

const tenant = tenantClient();
let ui: ConsoleBrowser;

beforeAll(async () => {
  ui = await openConsole();
});

afterAll(async () => {
  await ui?.close();
});

/** The Verdict region's AI-generation row, as an operator reads it. */
const aiRow = (page: Page) => page.getByRole("region", { name: "Verdict" }).getByRole("row").filter({ has: page.getByRole("rowheader", { name: /AI-generation detection/ }) });

/** Serves the verification with `ai_detection` (and the label and reason it implies) replaced. */
async function showWith(
  page: Page,
  id: string,
  verdict: { label: string; score: number; reason_code?: string; ai_detection: Record<string, unknown>; assessment?: string; not_assessed?: string[] },
): Promise<void> {
  const url = `${inject("baseUrl")}/v1/verifications/${id}`;
  await page.unroute(url);
  await page.route(url, async (route) => {
    const real = await route.fetch();
    const body = await real.json();
    const { reason_code: _reason, ...rest } = body.verdict;
    body.verdict = {
      ...rest,
      label: verdict.label,
      score: verdict.score,
      ...(verdict.reason_code ? { reason_code: verdict.reason_code } : {}),
      ...(verdict.assessment ? { assessment: verdict.assessment, not_assessed: verdict.not_assessed ?? [] } : {}),
      signals: { ...body.verdict.signals, ai_detection: verdict.ai_detection },
    };
    await route.fulfill({ response: real, json: body });
  });
  await page.reload();
}

describe("console: what decided ai_detection, in words", () => {
  it("provenance (real analysis), the reserved pixels method, a provider, a disputed trip and a failed provider", async () => {
    const { page } = ui;
    const claim = `AI-${Date.now().toString().slice(-6)}`;
    const created = await tenant.createVerification({ max_captures: 1, signals_required: ["ai"], metadata: { claim_id: claim } });
    // A generator's PNG with its Stable Diffusion parameters, captured through the API.
    const png = encodePngRgb(naturalScene(160, 120, 31), { parameters: "a dented car door\nSteps: 25, Sampler: Euler a, CFG scale: 7, Seed: 5" });
    const captured = await tenant.api.POST("/v1/verifications/{token}/captures", { params: { path: { token: created.id } }, body: { image_base64: Buffer.from(png).toString("base64") } });
    expect(captured.response.status).toBe(201);
    const done = await tenant.waitForVerification(created.id, { until: (v) => v.verdict !== undefined, intervalMs: 500, timeoutMs: 60_000 });
    expect(done.verdict?.signals.ai_detection).toEqual({ label: "likely_ai", confidence: 0.9, method: "provenance", evidence: [{ code: "sd_parameters_chunk" }] });

    await signInAsDev(page);
    await page.goto(`${inject("baseUrl")}/console/verifications/${created.id}`);
    await page.getByRole("heading", { level: 1, name: `claim_id ${claim}` }).waitFor();
    await aiRow(page).getByText("AI-generated content: from provenance metadata: Stable Diffusion parameters in the file (confidence 90 %)").waitFor();
    await shoot(ui, "ai-01-provenance");

    await showWith(page, created.id, {
      label: "failed",
      score: 0.83,
      reason_code: "ai_generated",
      ai_detection: { label: "likely_ai", confidence: 0.83, method: "pixels", evidence: [{ code: "pixel_score", value: 0.83 }, { code: "no_generator_marker", value: 0 }] },
    });
    await aiRow(page).getByText("AI-generated content: decided by a detector on its pixels, which is reserved: none ships (score 0.83, confidence 83 %)").waitFor();
    await shoot(ui, "ai-02-pixels");

    await showWith(page, created.id, {
      label: "failed",
      score: 0.97,
      reason_code: "ai_generated",
      ai_detection: { label: "likely_ai", confidence: 0.97, method: "provider:sightengine", evidence: [{ code: "ai_provider_score", value: 0.97 }, { code: "ai_provider_request" }, { code: "pixel_score", value: 0.2 }] },
    });
    await aiRow(page).getByText("AI-generated content: by Sightengine (score 0.97, confidence 97 %)").waitFor();
    await shoot(ui, "ai-03-provider");

    await showWith(page, created.id, {
      label: "suspicious",
      score: 0.55,
      reason_code: "ai_generated",
      ai_detection: {
        label: "likely_ai",
        confidence: 0.55,
        method: "pixels",
        evidence: [{ code: "pixel_score", value: 0.9 }, { code: "ai_detectors_disagree", value: 0.1 }, { code: "ai_provider_score", value: 0.1 }],
      },
    });
    await aiRow(page)
      .getByText("AI-generated content: decided by a detector on its pixels, which is reserved: none ships (score 0.90, confidence 55 %); the detection provider disagreed (its score 0.10), so it is only suspicious")
      .waitFor();
    await shoot(ui, "ai-04-disputed");

    await showWith(page, created.id, {
      label: "verified",
      score: 0.4,
      ai_detection: { label: "unknown", confidence: 0.4, method: "provider:sightengine", evidence: [{ code: "ai_provider_score", value: 0.02 }, { code: "no_generator_marker", value: 1 }] },
    });
    await aiRow(page).getByText("No generator traces found by Sightengine (score 0.02, confidence 40 %): not proof of a camera").waitFor();
    await shoot(ui, "ai-05-provider-clean");

    await showWith(page, created.id, {
      label: "suspicious",
      score: 0,
      reason_code: "not_assessed",
      assessment: "none",
      not_assessed: ["ai_detection"],
      ai_detection: { status: "not_assessed", reason: "ai_provider_error" },
    });
    await aiRow(page).getByText(/^Not assessed: the AI-detection provider failed, timed out or answered malformed/).waitFor();
    await shoot(ui, "ai-06-provider-failed");

    expect(ui.accessibility).toEqual([]);
  });
});
