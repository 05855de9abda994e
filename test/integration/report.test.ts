import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { createDb } from "../../src/db/client";
import { rateLimiterObject } from "../../src/durable-objects/rate-limiter-client";
import { REPORT_RENDERS, withReportRenderSlot } from "../../src/domain/public-limits";
import { gatherReport, TIMELINE_ENDS } from "../../src/domain/report/gather";
import { reportText } from "../../src/domain/report/render";
import { call, callJson, createVerification, db, seedTenant } from "../helpers/api";
import { dashboard, signIn } from "../helpers/session";
import { inlineCapture, pollVerification } from "../helpers/capture";
import { assessableJpeg } from "../helpers/certificates";

/*
 * GET /v1/verifications/{id}/report.pdf as a back-end calls it: a PDF for the tenant's own
 * verification (its thumbnail embedded), 404 for another tenant's, the certificate link printed only
 * when the caller holds an active one, and the per-tenant limit. What the pages show is checked by
 * rendering them (test/browser/report.test.ts).
 */

const imagesIn = (pdf: Uint8Array) => new TextDecoder("latin1").decode(pdf).split("/Subtype /Image").length - 1;

async function completedVerification(key: string): Promise<string> {
  const v = await createVerification(key, { max_captures: 1, signals_required: ["screen"] });
  expect((await inlineCapture(v.id, {}, assessableJpeg())).status).toBe(201);
  const done = await pollVerification(key, v.id, (x) => x?.verdict !== undefined, 40_000);
  expect(done.status).toBe("completed");
  return v.id;
}

describe("the evidence report", () => {
  it("is a PDF of the tenant's own verification, with its photo; another tenant's id is 404, no key 401, a publishable key 403", async () => {
    const t = await seedTenant("Report Owner");
    const other = await seedTenant("Report Stranger");
    const id = await completedVerification(t.key);

    const res = await call(`/v1/verifications/${id}/report.pdf`, { key: t.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/pdf");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="evidence-report-${id}.pdf"`);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const pdf = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(pdf.subarray(0, 5))).toBe("%PDF-");
    expect(imagesIn(pdf)).toBe(1);

    const foreign = await callJson(`/v1/verifications/${id}/report.pdf`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
    expect((await callJson(`/v1/verifications/${id}/report.pdf`)).status).toBe(401);
    expect((await callJson(`/v1/verifications/${id}/report.pdf`, { key: t.publishableKey })).status).toBe(403);
  });

  it("prints a certificate link only while it is active and this verification's", async () => {
    const t = await seedTenant("Report Links");
    const id = await completedVerification(t.key);
    const otherId = await completedVerification(t.key);
    const link = await callJson(`/v1/verifications/${id}/certificate-link`, { key: t.key, method: "POST" });
    expect(link.status).toBe(201);
    const token = new URL(link.body.url).pathname.split("/").pop()!;

    const withLink = await call(`/v1/verifications/${id}/report.pdf?certificate_link=${token}`, { key: t.key });
    expect(withLink.status).toBe(200);
    await withLink.arrayBuffer();
    // Another verification's link, a malformed token, then the same link once revoked: 400 naming the field, nothing printed.
    for (const [path, why] of [
      [`/v1/verifications/${otherId}/report.pdf?certificate_link=${token}`, "another verification's link"],
      [`/v1/verifications/${id}/report.pdf?certificate_link=not-a-token`, "a malformed token"],
    ] as const) {
      const refused = await callJson(path, { key: t.key });
      expect(refused.status, why).toBe(400);
      expect(refused.body.error.fields.certificate_link, why).toMatch(/active certificate link/);
    }
    expect((await callJson(`/v1/certificate-links/${link.body.id}`, { key: t.key, method: "DELETE" })).status).toBe(200);
    expect((await callJson(`/v1/verifications/${id}/report.pdf?certificate_link=${token}`, { key: t.key })).status).toBe(400);
  });

  it("prints the verdict's score as what the spec makes it: the confidence in the verdict, not a risk", async () => {
    const t = await seedTenant("Report Score");
    const id = await completedVerification(t.key);
    const content = await gatherReport(env, db(), { tenantId: t.id, verificationId: id, audience: "tenant", now: Date.now() });
    const text = await reportText(content);
    expect(text[text.indexOf("Verdict confidence") + 1]).toBe(content.verification.verdict!.score.toFixed(2));
    expect(text.join("\n")).not.toMatch(/risk score/i);
  });

  it("names the reviewer by address only while they are a member of the tenant; once removed, a former member", async () => {
    const t = await seedTenant("Report Reviewer");
    const id = await completedVerification(t.key);
    const owner = await signIn(t.id, "owner");
    const reviewer = await signIn(t.id, "reviewer");
    const reviewed = await callJson(`/v1/verifications/${id}/review`, { body: { decision: "approved", note: "Fine." }, headers: dashboard(reviewer.cookie) });
    expect(reviewed.status).toBe(200);
    const gather = () => gatherReport(env, db(), { tenantId: t.id, verificationId: id, audience: "tenant", now: Date.now() });

    const before = await gather();
    expect(before.reviewer).toBe(reviewer.email);
    const named = await reportText(before);
    expect(named[named.indexOf("Reviewer") + 1]).toBe(reviewer.email);

    expect((await callJson(`/v1/members/${reviewer.userId}`, { method: "DELETE", headers: dashboard(owner.cookie) })).status).toBe(200);
    const after = await gather();
    expect(after.reviewer).toBeNull();
    const text = await reportText(after);
    expect(text[text.indexOf("Reviewer") + 1]).toBe("a former member");
    expect(text.join("\n")).not.toContain(reviewer.email);
    const pdf = await call(`/v1/verifications/${id}/report.pdf`, { key: t.key });
    expect(pdf.status).toBe(200);
    await pdf.arrayBuffer();
  });

  it("answers 429 past 60 reports a minute for one tenant, and other tenants are not held up", async () => {
    const t = await seedTenant("Report Flood");
    const other = await seedTenant("Report Neighbour");
    const id = await completedVerification(t.key);
    const otherId = await completedVerification(other.key);
    // The limit counts in clock-aligned minutes (docs/operations.md, "Rate limits"): the 61 requests must fall in
    // one, so they start in a minute's first half (a run that crossed into the next minute once got
    // its 61st report).
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 25_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    for (let i = 0; i < 60; i++) {
      const res = await call(`/v1/verifications/${id}/report.pdf`, { key: t.key });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const limited = await callJson(`/v1/verifications/${id}/report.pdf`, { key: t.key });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("too_many_requests");
    const neighbour = await call(`/v1/verifications/${otherId}/report.pdf`, { key: other.key });
    expect(neighbour.status).toBe(200);
    await neighbour.arrayBuffer();
  }, 120_000);

  it("renders at most 3 reports of one tenant at once: a fourth is 429 with Retry-After, a slot is given back after each render, a lapsed one never blocks", async () => {
    const t = await seedTenant("Report Renders");
    const other = await seedTenant("Report Renders Neighbour");
    const id = await completedVerification(t.key);
    const otherId = await completedVerification(other.key);
    const slots = rateLimiterObject(env, `report-render:${t.id}`);
    // Three renders in flight in other isolates hold the tenant's three slots.
    const held = [await slots.acquire(3, 60_000), await slots.acquire(3, 60_000), await slots.acquire(3, 60_000)];
    expect(held.every((lease) => typeof lease === "string")).toBe(true);

    const refused = await callJson(`/v1/verifications/${id}/report.pdf`, { key: t.key });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("too_many_requests");
    expect(refused.headers.get("Retry-After")).toBe("1");
    const neighbour = await call(`/v1/verifications/${otherId}/report.pdf`, { key: other.key });
    expect(neighbour.status).toBe(200);
    await neighbour.arrayBuffer();

    await slots.release(held[0]!);
    const served = await call(`/v1/verifications/${id}/report.pdf`, { key: t.key });
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    expect(await slots.held()).toBe(2); // the render gave its slot back

    // A render whose isolate died never releases: its slot lapses after the lease.
    await slots.acquire(3, 60_000, Date.now() - 120_000);
    expect(await slots.held()).toBe(2);
    const again = await call(`/v1/verifications/${id}/report.pdf`, { key: t.key });
    expect(again.status).toBe(200);
    await again.arrayBuffer();
  });

  it("renders one report at a time in an isolate, with at most 4 waiting; a fifth waiting is 429", async () => {
    const tenants = [await seedTenant("Turn A"), await seedTenant("Turn B")];
    let active = 0;
    let most = 0;
    const order: number[] = [];
    let finishFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (finishFirst = resolve));
    const render = (i: number) => async () => {
      active += 1;
      most = Math.max(most, active);
      order.push(i);
      if (i === 0) await firstHeld;
      await new Promise((r) => setTimeout(r, 5));
      active -= 1;
      return i;
    };
    const running = [withReportRenderSlot(env, tenants[0]!.id, render(0))];
    await vi.waitFor(() => expect(order).toEqual([0]));
    for (let i = 1; i <= 4; i++) running.push(withReportRenderSlot(env, tenants[i % 2]!.id, render(i)));
    await vi.waitFor(async () => expect((await rateLimiterObject(env, `report-render:${tenants[0]!.id}`).held()) + (await rateLimiterObject(env, `report-render:${tenants[1]!.id}`).held())).toBe(5));
    await expect(withReportRenderSlot(env, tenants[1]!.id, render(5))).rejects.toMatchObject({ code: "too_many_requests" });
    finishFirst();
    expect(await Promise.all(running)).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(1);
    // Each ran once, the first before any other (the rest in whichever order each looked for the turn first).
    expect(order[0]).toBe(0);
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(await rateLimiterObject(env, `report-render:${tenants[0]!.id}`).held()).toBe(0);
  });

  it("a render that never finishes (its request was cancelled) gives up the isolate's turn after the lease, and the next render runs", async () => {
    const tenants = [await seedTenant("Turn Hung"), await seedTenant("Turn Next")];
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    void withReportRenderSlot(env, tenants[0]!.id, () => {
      started();
      return new Promise<never>(() => undefined);
    });
    await holding;
    let ran = false;
    const next = withReportRenderSlot(env, tenants[1]!.id, async () => {
      ran = true;
      return "rendered";
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(ran).toBe(false); // the hung render holds the turn
    // Only the clock moves past the lease: the waiting render still polls on real timers.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + REPORT_RENDERS.turnLeaseMs + 1);
      await vi.waitFor(() => expect(ran).toBe(true), { timeout: 2_000 });
      expect(await next).toBe("rendered");
    } finally {
      vi.useRealTimers();
    }
  });

  it("prints a bounded timeline: its first and last entries and how many lie between", async () => {
    const t = await seedTenant("Report Timeline");
    const steps = [
      { key: "photo", type: "image", description: "", min: 0, max: 1 },
      ...Array.from({ length: 10 }, (_, i) => ({ key: `q${i}`, type: "text", required: false, validation: { max_length: 20, format: "free_text" } })),
    ];
    const v = await createVerification(t.key, { steps });
    // 10 steps × 10 values: 100 answers, the most these steps allow, plus the creation.
    for (let step = 0; step < 10; step++) {
      for (let value = 1; value <= 10; value++) expect((await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: `q${step}`, value: `v${value}` } })).status).toBe(200);
    }
    const content = await gatherReport(env, createDb(env.DB), { tenantId: t.id, verificationId: v.id, audience: "tenant", now: Date.now() });
    expect(content.timeline.first).toHaveLength(TIMELINE_ENDS);
    expect(content.timeline.last).toHaveLength(TIMELINE_ENDS);
    expect(content.timeline.between).toBe(101 - 2 * TIMELINE_ENDS);
    expect(content.timeline.first[0]!.name).toBe("verification.created");
    const all = [...content.timeline.first, ...content.timeline.last].map((e) => e.occurredAt);
    expect([...all].sort()).toEqual(all);

    const short = await createVerification(t.key, { steps });
    const whole = await gatherReport(env, createDb(env.DB), { tenantId: t.id, verificationId: short.id, audience: "tenant", now: Date.now() });
    expect(whole.timeline).toMatchObject({ between: 0, last: [] });
    expect(whole.timeline.first.map((e) => e.name)).toEqual(["verification.created"]);

    const pdf = await call(`/v1/verifications/${v.id}/report.pdf`, { key: t.key });
    expect(pdf.status).toBe(200);
    await pdf.arrayBuffer();
  }, 120_000);
});
