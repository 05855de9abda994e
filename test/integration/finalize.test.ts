import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signIn } from "../helpers/session";
import { finalizeCase } from "../../src/domain/case/finalize";
import { analysesOf } from "../../src/db/analyses";
import type { CaseAnalysis } from "../../src/analysis/case-analysis";
import { callJson, createVerification, db, seedTenant } from "../helpers/api";
import { captureInline, hasVerdict, pollVerification } from "../helpers/capture";
import { encodeJpeg, exifTiff, naturalScene } from "../helpers/synth";
import { waitFor } from "../helpers/wait";
import { received, receiver } from "../helpers/webhooks";

const narrative = "My car was scratched in the supermarket car park on Friday afternoon.";

async function completedVerification(key: string, seed: number, webhookUrl?: string) {
  const v = await createVerification(key, { max_captures: 2, ...(webhookUrl ? { webhook_url: webhookUrl } : {}) });
  await captureInline(v.id, encodeJpeg(naturalScene(128, 96, seed), 90, exifTiff({ make: "Google", model: "Pixel 8", dateTimeOriginal: "2026:05:01 10:00:00" })));
  await captureInline(v.id, encodeJpeg(naturalScene(128, 96, seed + 1), 90, exifTiff({ make: "Google", model: "Pixel 8", dateTimeOriginal: "2026:05:01 10:02:00" })));
  return pollVerification(key, v.id, hasVerdict);
}

describe("POST /v1/verifications/{id}/finalize", () => {
  it("records the narrative, answers with the case analysis inline, leaves the status alone, and only once", async () => {
    const t = await seedTenant();
    const v = await completedVerification(t.key, 10);
    const res = await callJson(`/v1/verifications/${v.id}/finalize`, { key: t.key, body: { narrative } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("completed");
    expect(res.body.narrative).toBe(narrative);
    const ca = res.body.case_analysis;
    expect(ca).toMatchObject({ model: "deterministic-case-rules/2", rubric_version: 2, review_priority: "low" });
    expect(ca.overall_risk_score).toBeGreaterThanOrEqual(0);
    expect(ca.dimensions.cross_image_consistency.evidence).toMatch(/2 capture/);
    expect(ca.dimensions.physical_plausibility.score).toBe(0);
    expect(ca.analysis.map((a: any) => a.capture_id)).toEqual(v.captures.map((c: any) => c.id));

    const events = await callJson(`/v1/verifications/${v.id}/events`, { key: t.key });
    const completed = events.body.events.find((e: any) => e.event_name === "verification.case.completed");
    expect(completed.payload).toEqual({ narrative });
    expect(events.body.events.map((e: any) => e.event_name)).toContain("verification.case.analyzed");

    const again = await callJson(`/v1/verifications/${v.id}/finalize`, { key: t.key, body: { narrative: "another story" } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("already_finalized");
  });

  it("works with the dashboard session; refuses bad input, publishable keys, other tenants and empty cases", async () => {
    const t = await seedTenant();
    const other = await seedTenant("Other Co");
    const v = await completedVerification(t.key, 20);

    expect((await callJson(`/v1/verifications/${v.id}/finalize`, { body: { narrative } })).status).toBe(401);
    expect((await callJson(`/v1/verifications/${v.id}/finalize`, { key: t.publishableKey, body: { narrative } })).status).toBe(403);
    expect((await callJson(`/v1/verifications/${v.id}/finalize`, { key: other.key, body: { narrative } })).status).toBe(404);
    expect((await callJson(`/v1/verifications/vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z/finalize`, { key: t.key, body: { narrative } })).status).toBe(404);
    const tooLong = await callJson(`/v1/verifications/${v.id}/finalize`, { key: t.key, body: { narrative: "x".repeat(2001) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.fields.narrative).toBeDefined();
    expect((await callJson(`/v1/verifications/${v.id}/finalize`, { key: t.key, body: { narrative: "" } })).status).toBe(400);
    // White space alone says nothing; NUL, an escape sequence, a line separator or half a surrogate pair would print as something else.
    // Nor do characters that print as nothing (webhook probe of 2026-12-07: a zero-width space or a lone
    // combining mark was taken, and finalize is once only).
    for (const bad of [" \n\t ", "\u200b", "\u0301", " \u2800\u3164 ", "Roof\u0000 tiles", "Roof \u001b[2Jtiles", "Roof\u2028tiles", "Roof \ud800"]) {
      const res = await callJson(`/v1/verifications/${v.id}/finalize`, { key: t.key, body: { narrative: bad } });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(Object.keys(res.body.error.fields)).toEqual(["narrative"]);
    }
    expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.narrative).toBeUndefined();

    const empty = await createVerification(t.key, { max_captures: 1 });
    const refused = await callJson(`/v1/verifications/${empty.id}/finalize`, { key: t.key, body: { narrative } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("invalid_state");

    const { cookie } = await signIn(t.id);
    const bySession = await callJson(`/v1/verifications/${v.id}/finalize`, {
      body: { narrative },
      headers: { Cookie: cookie },
    });
    expect(bySession.status).toBe(200);
    expect(bySession.body.case_analysis).toMatchObject({
      overall_risk_score: expect.any(Number),
      review_priority: expect.stringMatching(/^(low|medium|high)$/),
      dimensions: { cross_image_consistency: expect.any(Object), physical_plausibility: expect.any(Object) },
    });
  });

  it("over its time budget the case analysis is queued and appears later", async () => {
    const t = await seedTenant();
    const v = await completedVerification(t.key, 30);
    const { record, analysed } = await finalizeCase(env, db(), { tenantId: t.id, id: v.id, narrative, budgetMs: 0 });
    expect(analysed).toBe(false);
    expect(record.row.narrative).toBe(narrative);
    const later = await pollVerification(t.key, v.id, (x) => x.case_analysis !== undefined);
    expect(later.case_analysis.review_priority).toBe("low");
  });

  // Webhook probe of 2026-12-07: a tenant relying on webhooks got `case.completed` without the
  // analysis, and nothing when it landed.
  it("the case analysis, when it lands after finalize answered, is sent as verification.case.analyzed with it", async () => {
    const t = await seedTenant();
    const r = receiver();
    const v = await completedVerification(t.key, 31, r.url);
    const { analysed } = await finalizeCase(env, db(), { tenantId: t.id, id: v.id, narrative, budgetMs: 0 });
    expect(analysed).toBe(false);
    const hook = await waitFor(async () => (await received(r.id)).map((h) => JSON.parse(h.body)).find((b) => b.type === "verification.case.analyzed"), {
      what: "a verification.case.analyzed webhook",
    });
    expect(hook.data.object.case_analysis).toMatchObject({ review_priority: "low", overall_risk_score: expect.any(Number) });
    expect(hook.data.object.narrative).toBe(narrative);
  });

  // Probe of 2026-12-04: finalize leaves the status alone, so a verification finalized after its
  // first capture went on taking evidence, and its case analysis read the first capture only, for good.
  it("finalized while it still takes evidence, its case analysis is run again over the captures that came after", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 2 });
    const photo = (seed: number, time: string) => encodeJpeg(naturalScene(128, 96, seed), 90, exifTiff({ make: "Google", model: "Pixel 8", dateTimeOriginal: time }));
    const firstId = (await captureInline(v.id, photo(40, "2026:05:01 10:00:00"))).captures[0].id;
    await pollVerification(t.key, v.id, (x) => x.status === "partially_captured");
    const early = await callJson(`/v1/verifications/${v.id}/finalize`, { key: t.key, body: { narrative } });
    expect(early.status).toBe(200);
    expect(early.body.status).toBe("partially_captured");
    const ids = (x: any) => (x.case_analysis?.analysis ?? []).map((a: any) => a.capture_id);
    const before = early.body.case_analysis ? early.body : await pollVerification(t.key, v.id, (x) => x.case_analysis !== undefined);
    expect(ids(before)).toEqual([firstId]);

    const secondId = (await captureInline(v.id, photo(41, "2026:05:01 10:02:00"))).captures[1].id;
    const after = await pollVerification(t.key, v.id, (x) => hasVerdict(x) && ids(x).length === 2);
    expect(ids(after)).toEqual([firstId, secondId]);
    expect(after.case_analysis.dimensions.cross_image_consistency.evidence).toMatch(/2 capture/);
    expect(after.narrative).toBe(narrative);
    // finalize is recorded once, whatever ran after it.
    const events = await callJson(`/v1/verifications/${v.id}/events`, { key: t.key });
    expect(events.body.events.filter((e: any) => e.event_name === "verification.case.completed")).toHaveLength(1);
  });

  it("shows the vision provider each capture's stored evidence thumbnail, never a decode of the original (the API Worker decodes nothing)", async () => {
    const t = await seedTenant();
    const v = await completedVerification(t.key, 40);
    const withVision = { ...env, VISION_API_URL: `${env.FAKES_URL}/vision/v1`, VISION_MODEL: "echo-digest" };
    const { record, analysed } = await finalizeCase(withVision, db(), { tenantId: t.id, id: v.id, narrative });
    expect(analysed).toBe(true);
    const thumbnails = new Map((await analysesOf(db(), v.id)).map((a) => [a.captureId, (a.thumbnail as { sha256: string }).sha256]));
    const story = (record.row.caseAnalysis as CaseAnalysis).dimensions.narrative_image_match!;
    expect(story.concerns).toEqual(v.captures.map((c: any) => `Capture ${c.id}: image sha256 ${thumbnails.get(c.id)}`));
  });
});
