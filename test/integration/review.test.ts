import { beforeAll, describe, expect, it } from "vitest";
import { REVIEWS_PER_VERIFICATION } from "../../src/model/verification/transitions";
import { callJson, createVerification, seedTenant, type TestTenant } from "../helpers/api";
import { hasVerdict, inlineCapture, pollVerification } from "../helpers/capture";
import { assessableJpeg } from "../helpers/certificates";
import { persisted } from "../helpers/snapshot";
import { dashboard, signIn } from "../helpers/session";
import { waitFor } from "../helpers/wait";
import { received, receiver } from "../helpers/webhooks";

/* POST /v1/verifications/{id}/review: an operator's decision beside the machine verdict. */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

/** A verification the analysis completed; returns it with its verdict as written. */
async function completed(webhookUrl?: string) {
  const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen"], ...(webhookUrl ? { webhook_url: webhookUrl } : {}) });
  expect((await inlineCapture(v.id)).status).toBe(201);
  const done = await pollVerification(t.key, v.id, hasVerdict);
  expect(done.status).toBe("completed");
  return { ...v, verdict: done.verdict };
}

describe("review decisions", () => {
  it("records each decision beside the unchanged verdict, on the timeline with the reviewer, and as a webhook", async () => {
    const r = receiver();
    const v = await completed(r.url);
    const reviewer = await signIn(t.id);
    const path = `/v1/verifications/${v.id}/review`;
    const first = await callJson(path, { body: { decision: "rejected", note: "Screen glare visible in the corner." }, headers: dashboard(reviewer.cookie) });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe("completed");
    expect(first.body.verdict).toEqual(v.verdict);
    expect(first.body.review).toEqual({ decision: "rejected", note: "Screen glare visible in the corner.", by: reviewer.userId, at: expect.any(String) });

    const second = await callJson(path, { body: { decision: "approved", note: "Customer sent the original on a call." }, headers: dashboard(reviewer.cookie) });
    expect(second.status).toBe(200);
    expect(second.body.review.decision).toBe("approved");
    expect(second.body.verdict).toEqual(v.verdict);
    expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.review.decision).toBe("approved");

    const events = (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body.events.filter((e: any) => e.event_name === "verification.reviewed");
    expect(events.map((e: any) => e.payload)).toEqual([
      { decision: "rejected", note: "Screen glare visible in the corner.", by: reviewer.userId },
      { decision: "approved", note: "Customer sent the original on a call.", by: reviewer.userId },
    ]);

    const hooks = await waitFor(async () => {
      const got = (await received(r.id)).map((h) => JSON.parse(h.body)).filter((b) => b.type === "verification.reviewed");
      return got.length >= 2 ? got : undefined;
    }, { what: "two verification.reviewed webhooks" });
    expect(hooks.map((h) => h.id).sort()).toEqual(events.map((e: any) => e.event_id).sort());
    expect(hooks.every((h) => JSON.stringify(h.data.object.verdict) === JSON.stringify(v.verdict))).toBe(true);
    // Like every webhook, the object is the verification when the delivery was made (the timeline keeps each review).
    expect(hooks.every((h) => h.data.object.review.by === reviewer.userId)).toBe(true);
  });

  it("the same review sent again at once (a retry, a double click, racing twins) is recorded once", async () => {
    const v = await completed();
    const reviewer = await signIn(t.id);
    const path = `/v1/verifications/${v.id}/review`;
    const body = { decision: "rejected", note: "Glare shows a screen." };
    const twins = await Promise.all(Array.from({ length: 3 }, () => callJson(path, { body, headers: dashboard(reviewer.cookie) })));
    expect(twins.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(twins.map((r) => r.body.review.at)).size).toBe(1);
    const reviewed = async () => (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body.events.filter((e: any) => e.event_name === "verification.reviewed");
    expect(await reviewed()).toHaveLength(1);
    const owner = await signIn(t.id, "owner");
    const audited = await callJson(`/v1/audit-log?action=verification.reviewed&limit=100`, { headers: dashboard(owner.cookie) });
    expect(audited.status).toBe(200);
    expect(audited.body.items.filter((e: any) => e.target?.id === v.id)).toHaveLength(1);
    // Another note is another review.
    expect((await callJson(path, { body: { ...body, note: "Glare shows a screen; the customer agreed." }, headers: dashboard(reviewer.cookie) })).status).toBe(200);
    expect(await reviewed()).toHaveLength(2);
  });

  // Console probe of 2026-12-07: a verification nobody had captured for read "Review: Approved", and a
  // review from a page that had not seen a colleague's newer one replaced it unseen.
  it("approves only what was judged, and refuses a decision made beside a review that is no longer the latest", async () => {
    const reviewer = await signIn(t.id);
    const waiting = await createVerification(t.key, { max_captures: 1 });
    const early = await callJson(`/v1/verifications/${waiting.id}/review`, { body: { decision: "approved", note: "Looks fine." }, headers: dashboard(reviewer.cookie) });
    expect(early.status).toBe(409);
    expect(early.body.error).toEqual({ code: "invalid_state", message: expect.stringContaining("There is no verdict to approve yet") });
    const needsMore = await callJson(`/v1/verifications/${waiting.id}/review`, { body: { decision: "needs_more", note: "Nothing sent yet.", replaces: null }, headers: dashboard(reviewer.cookie) });
    expect(needsMore.status).toBe(200);

    const v = await completed();
    const path = `/v1/verifications/${v.id}/review`;
    const colleague = await signIn(t.id);
    const first = await callJson(path, { body: { decision: "rejected", note: "Glare.", replaces: null }, headers: dashboard(colleague.cookie) });
    expect(first.status).toBe(200);
    // A page that read the verification before that review still shows none.
    const stale = await callJson(path, { body: { decision: "approved", note: "Fine by me.", replaces: null }, headers: dashboard(reviewer.cookie) });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toEqual({ code: "invalid_state", message: expect.stringContaining("Another review was recorded") });
    expect((await callJson(`/v1/verifications/${v.id}`, { key: t.key })).body.review).toMatchObject({ decision: "rejected", by: colleague.userId });
    // Decided beside the latest (its `at`, in any RFC 3339 case), it is recorded.
    const beside = await callJson(path, { body: { decision: "approved", note: "Fine by me.", replaces: first.body.review.at.toLowerCase() }, headers: dashboard(reviewer.cookie) });
    expect(beside.status).toBe(200);
    expect(beside.body.review).toMatchObject({ decision: "approved", by: reviewer.userId });
    const reviewed = (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body.events.filter((e: any) => e.event_name === "verification.reviewed");
    expect(reviewed.map((e: any) => e.payload.decision)).toEqual(["rejected", "approved"]);
  });

  // Issue 42's outside check of 2026-12-07: 40 reviews with different notes made 41 events.
  it(`takes at most ${REVIEWS_PER_VERIFICATION} reviews: the next is 409 and appends nothing, the latest stands, and its retry is still answered`, async () => {
    const v = await completed();
    const reviewer = await signIn(t.id);
    const path = `/v1/verifications/${v.id}/review`;
    for (let i = 1; i <= REVIEWS_PER_VERIFICATION; i += 1) {
      const res = await callJson(path, { body: { decision: i % 2 ? "approved" : "rejected", note: `Review ${i}.` }, headers: dashboard(reviewer.cookie) });
      expect(res.status, `review ${i}`).toBe(200);
    }
    const last = `Review ${REVIEWS_PER_VERIFICATION}.`;
    const over = await callJson(path, { body: { decision: "approved", note: "One more." }, headers: dashboard(reviewer.cookie) });
    expect(over.status).toBe(409);
    expect(over.body.error).toEqual({ code: "invalid_state", message: `This verification was reviewed ${REVIEWS_PER_VERIFICATION} times already: its latest review stands.` });
    const retry = await callJson(path, { body: { decision: "rejected", note: last }, headers: dashboard(reviewer.cookie) });
    expect(retry.status).toBe(200);
    expect(retry.body.review).toMatchObject({ decision: "rejected", note: last });
    expect(Object.keys(retry.body.review).sort()).toEqual(["at", "by", "decision", "note"]);
    const events = (await callJson(`/v1/verifications/${v.id}/events?limit=100`, { key: t.key })).body.events.filter((e: any) => e.event_name === "verification.reviewed");
    expect(events).toHaveLength(REVIEWS_PER_VERIFICATION);
  });

  it("a review recorded before the verification completed is not certified beside the evidence sent after it", async () => {
    const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen"] });
    const reviewer = await signIn(t.id);
    const path = `/v1/verifications/${v.id}/review`;
    // (Approving needs a verdict: before one, a review is a rejection or needs_more.)
    expect((await callJson(path, { body: { decision: "needs_more", note: "Asked for the photo by phone." }, headers: dashboard(reviewer.cookie) })).status).toBe(200);
    expect((await inlineCapture(v.id, {}, assessableJpeg())).status).toBe(201);
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.review.decision).toBe("needs_more");
    const certificate = async () => (await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key })).body;
    const first = await certificate();
    expect(first.payload.verification.completed_at).toBeDefined();
    expect(first.payload.verification).not.toHaveProperty("review");
    // Reviewed once it ended: certified.
    expect((await callJson(path, { body: { decision: "rejected", note: "The photo shows a screen." }, headers: dashboard(reviewer.cookie) })).status).toBe(200);
    const next = await waitFor(async () => {
      const c = await certificate();
      return c.sequence > first.sequence ? c : undefined;
    }, { what: "the certificate after the review" });
    expect(next.payload.verification.review).toMatchObject({ decision: "rejected" });
  });

  it("needs_more on an unfinished verification reopens nothing: it is only recorded", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    await inlineCapture(v.id);
    const reviewer = await signIn(t.id);
    const before = await persisted(v.id);
    const res = await callJson(`/v1/verifications/${v.id}/review`, { body: { decision: "needs_more", note: "Ask for the rear too." }, headers: dashboard(reviewer.cookie) });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("partially_captured");
    const after = await persisted(v.id);
    expect(after.row.status).toBe(before.row.status);
    expect(after.row.expiresAt).toBe(before.row.expiresAt);
    expect(after.row.version).toBe(before.row.version + 1);
  });

  it("session only; another tenant's verification is 404; bad bodies are 400", async () => {
    const v = await completed();
    const path = `/v1/verifications/${v.id}/review`;
    const body = { decision: "approved", note: "ok" };
    const keyed = await callJson(path, { key: t.key, body });
    expect(keyed.status).toBe(403);
    const reviewer = await signIn(t.id);
    const stranger = await signIn((await seedTenant("Other")).id);
    expect((await callJson(path, { body, headers: dashboard(stranger.cookie) })).status).toBe(404);
    for (const bad of [{ decision: "maybe", note: "x" }, { decision: "approved" }, { decision: "approved", note: "" }, { decision: "approved", note: "x".repeat(2001) }, { decision: "approved", note: "x", extra: 1 }]) {
      const res = await callJson(path, { body: bad, headers: dashboard(reviewer.cookie) });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    expect((await persisted(v.id)).events.filter((e) => e.name === "verification.reviewed")).toHaveLength(0);
  });
});
