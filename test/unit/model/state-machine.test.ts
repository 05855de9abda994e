import { describe, expect, it } from "vitest";
import { CONTRACT_DEFAULTS, normalizeConfig } from "../../../src/model/verification/config";
import type { VerificationState, VerificationStatus } from "../../../src/model/verification/state";
import { effectiveStatus } from "../../../src/model/verification/state";
import * as m from "../../../src/model/verification/transitions";

const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

function state(over: Partial<VerificationState> = {}): VerificationState {
  return {
    id: "vfy_01J00000000000000000000000",
    tenantId: "tnt_01J00000000000000000000000",
    status: "pending",
    version: 1,
    config: normalizeConfig({
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 2 },
        { key: "back", type: "image", description: "Back", min: 0, max: 1 },
        { key: "docs", type: "upload", min: 0, max: 1, accept: ["image/png"], max_size_bytes: 100 },
        { key: "plate", type: "text", required: true, validation: { max_length: 8, format: "alphanumeric_id" } },
        { key: "note", type: "text", required: false, validation: { max_length: 50, format: "free_text" } },
      ],
    }, CONTRACT_DEFAULTS),
    sealEnabled: true,
    createdAt: NOW - HOUR,
    expiresAt: NOW + HOUR,
    submittedAt: null,
    readyAt: null,
    completedAt: null,
    finalizedAt: null,
    redactedAt: null,
    abandonments: 0,
    captures: [],
    answers: {},
    ...over,
  };
}

const capture = (stepKey?: string, over: Partial<m.CaptureCommand> = {}): m.CaptureCommand => ({
  captureId: "cap_01J00000000000000000000001",
  imageKey: "k",
  mediaType: "image/jpeg",
  sizeBytes: 10,
  ...(stepKey ? { stepKey } : {}),
  ...over,
});

const ALL: VerificationStatus[] = ["pending", "partially_captured", "completed", "expired", "failed", "abandoned"];

describe("effectiveStatus", () => {
  it("reads expired once expires_at passed, unless the evidence was complete", () => {
    expect(effectiveStatus({ status: "pending", expiresAt: NOW, readyAt: null }, NOW)).toBe("expired");
    expect(effectiveStatus({ status: "pending", expiresAt: NOW + 1, readyAt: null }, NOW)).toBe("pending");
    expect(effectiveStatus({ status: "partially_captured", expiresAt: NOW - 1, readyAt: NOW - 2 }, NOW)).toBe("partially_captured");
    expect(effectiveStatus({ status: "completed", expiresAt: NOW - 1, readyAt: null }, NOW)).toBe("completed");
  });
});

describe("acceptCapture", () => {
  it.each(ALL)("from %s", (status) => {
    const d = m.acceptCapture(state({ status }), capture(), NOW);
    if (status === "completed" || status === "failed") {
      expect(d).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    } else if (status === "expired") {
      expect(d).toMatchObject({ ok: false, error: { code: "expired" } });
    } else {
      expect(d).toMatchObject({ ok: true, step: { key: "front" }, seq: 1, transition: { status: "partially_captured" } });
    }
  });

  it("refuses after expires_at even before the alarm, whatever the evidence state", () => {
    expect(m.acceptCapture(state({ expiresAt: NOW }), capture(), NOW)).toMatchObject({ ok: false, error: { code: "expired" } });
    // Evidence complete (ready, analysis pending) or a verdict written: still 410 once expires_at passed.
    const full = [{ id: "a", stepKey: "front", imageKey: "1" }, { id: "b", stepKey: "front", imageKey: "2" }];
    expect(m.acceptCapture(state({ expiresAt: NOW, readyAt: NOW - 1, status: "partially_captured", captures: full }), capture("front"), NOW)).toMatchObject({ ok: false, error: { code: "expired" } });
    expect(m.acceptCapture(state({ expiresAt: NOW, readyAt: NOW - 1, status: "completed", captures: full }), capture("front"), NOW)).toMatchObject({ ok: false, error: { code: "expired" } });
  });

  it("a full step is step_full whatever closed the verification (spec rule 4); a finished one with room is invalid_state", () => {
    const full = [{ id: "a", stepKey: "front", imageKey: "1" }, { id: "b", stepKey: "front", imageKey: "2" }];
    for (const status of ["completed", "failed"] as const) {
      expect(m.acceptCapture(state({ status, captures: full }), capture("front"), NOW)).toMatchObject({ ok: false, error: { code: "step_full" } });
      expect(m.acceptCapture(state({ status, captures: full }), capture("back"), NOW)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    }
    expect(m.acceptCapture(state({ submittedAt: NOW - 1, captures: full }), capture("front"), NOW)).toMatchObject({ ok: false, error: { code: "step_full" } });
  });

  it("an upload URL: 410 once dead, step_full once max_captures is used (also completed), invalid_state when finished with room", () => {
    const used = { capturesCount: 4 };
    expect(m.checkUploadMint({ ...state(), capturesCount: 0 }, NOW)).toBeNull();
    expect(m.checkUploadMint({ ...state({ status: "completed" }), ...used }, NOW)).toMatchObject({ ok: false, error: { code: "step_full" } });
    expect(m.checkUploadMint({ ...state({ status: "completed" }), capturesCount: 1 }, NOW)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(m.checkUploadMint({ ...state({ submittedAt: NOW - 1 }), capturesCount: 1 }, NOW)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(m.checkUploadMint({ ...state({ status: "completed", expiresAt: NOW }), ...used }, NOW)).toMatchObject({ ok: false, error: { code: "expired" } });
    expect(m.checkUploadMint({ ...state({ readyAt: NOW - 1, expiresAt: NOW }), capturesCount: 1 }, NOW)).toMatchObject({ ok: false, error: { code: "expired" } });
  });

  it("keyless lands in the first image step with capacity, never in an upload step", () => {
    const full = state({ captures: [{ id: "a", stepKey: "front", imageKey: "1" }, { id: "b", stepKey: "front", imageKey: "2" }] });
    expect(m.acceptCapture(full, capture(), NOW)).toMatchObject({ ok: true, step: { key: "back" }, seq: 3 });
    const allImagesFull = state({ captures: [...full.captures, { id: "c", stepKey: "back", imageKey: "3" }] });
    expect(m.acceptCapture(allImagesFull, capture(), NOW)).toMatchObject({ ok: false, error: { code: "step_full" } });
  });

  it("keyless into a verification without image steps is unknown_step", () => {
    const s = state({ config: normalizeConfig({ steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] }, CONTRACT_DEFAULTS) });
    expect(m.acceptCapture(s, capture(), NOW)).toMatchObject({ ok: false, error: { code: "unknown_step" } });
  });

  it("step_key: unknown or text is unknown_step; full is step_full", () => {
    expect(m.acceptCapture(state(), capture("nope"), NOW)).toMatchObject({ ok: false, error: { code: "unknown_step" } });
    expect(m.acceptCapture(state(), capture("plate"), NOW)).toMatchObject({ ok: false, error: { code: "unknown_step" } });
    const backFull = state({ captures: [{ id: "a", stepKey: "back", imageKey: "1" }] });
    expect(m.acceptCapture(backFull, capture("back"), NOW)).toMatchObject({ ok: false, error: { code: "step_full" } });
  });

  it("upload steps enforce accept (415) and max_size_bytes (413); image steps take any supported type", () => {
    expect(m.acceptCapture(state(), capture("docs"), NOW)).toMatchObject({ ok: false, error: { code: "unsupported_media_type" } });
    expect(m.acceptCapture(state(), capture("docs", { mediaType: "image/png", sizeBytes: 101 }), NOW)).toMatchObject({
      ok: false,
      error: { code: "payload_too_large" },
    });
    expect(m.acceptCapture(state(), capture("docs", { mediaType: "image/png", sizeBytes: 100 }), NOW)).toMatchObject({ ok: true });
    expect(m.acceptCapture(state(), capture("front", { mediaType: "image/heic" }), NOW)).toMatchObject({ ok: true });
  });

  it("after submit further captures are refused", () => {
    expect(m.acceptCapture(state({ submittedAt: NOW - 1 }), capture(), NOW)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
  });

  it("the capture that fills every evidence step with required text answered makes it ready", () => {
    const s = state({
      status: "partially_captured",
      captures: [
        { id: "a", stepKey: "front", imageKey: "1" },
        { id: "b", stepKey: "front", imageKey: "2" },
        { id: "c", stepKey: "back", imageKey: "3" },
      ],
      answers: { plate: { value: "AB1", answeredAt: NOW - 5, revisions: 1 } },
    });
    const d = m.acceptCapture(s, capture("docs", { mediaType: "image/png", sizeBytes: 5 }), NOW);
    expect(d).toMatchObject({ ok: true, transition: { patch: { readyAt: NOW } } });
    if (d.ok) expect(d.transition.events.map((e) => e.name)).toEqual(["verification.capture.persisted", "verification.ready"]);
  });
});

describe("recordAnswer", () => {
  it("validates against the step and never touches status", () => {
    expect(m.recordAnswer(state(), "plate", "AB 1", NOW)).toMatchObject({ ok: false, error: { code: "invalid_request", fields: { value: expect.any(String) } } });
    expect(m.recordAnswer(state(), "plate", "AB-12345", NOW)).toMatchObject({ ok: true, transition: { status: "pending" } });
    expect(m.recordAnswer(state(), "plate", "AB-123456", NOW)).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    expect(m.recordAnswer(state(), "front", "x", NOW)).toMatchObject({ ok: false, error: { code: "unknown_step" } });
    expect(m.recordAnswer(state(), "zzz", "x", NOW)).toMatchObject({ ok: false, error: { code: "unknown_step" } });
  });

  it.each(ALL)("from %s", (status) => {
    const d = m.recordAnswer(state({ status }), "note", "hello", NOW);
    if (status === "completed" || status === "failed") expect(d).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    else if (status === "expired") expect(d).toMatchObject({ ok: false, error: { code: "expired" } });
    else if (status === "abandoned") expect(d).toMatchObject({ ok: true, transition: { status: "pending" } });
    else expect(d).toMatchObject({ ok: true, transition: { status } });
  });

  it("the same value again changes nothing; a step's answer changes at most ANSWER_REVISIONS_PER_STEP times", () => {
    const answered = (value: string, revisions: number) => state({ answers: { plate: { value, answeredAt: NOW - 1, revisions } } });
    expect(m.recordAnswer(state(), "plate", "AB12", NOW)).toMatchObject({ ok: true, revisions: 1, unchanged: false, transition: { events: [{ name: "verification.answer.recorded", payload: { step_key: "plate", revision: 1 } }] } });
    expect(m.recordAnswer(answered("AB12", 3), "plate", "AB12", NOW)).toMatchObject({ ok: true, revisions: 3, unchanged: true, transition: { events: [] } });
    expect(m.recordAnswer(answered("AB12", 3), "plate", "AB13", NOW)).toMatchObject({ ok: true, revisions: 4, transition: { events: [{ payload: { revision: 4 } }] } });
    const last = m.ANSWER_REVISIONS_PER_STEP;
    expect(m.recordAnswer(answered("AB12", last - 1), "plate", "AB13", NOW)).toMatchObject({ ok: true, revisions: last });
    expect(m.recordAnswer(answered("AB12", last), "plate", "AB13", NOW)).toMatchObject({ ok: false, error: { code: "answer_limit" } });
    // The value it holds may still be sent again (a retry), and another step is untouched.
    expect(m.recordAnswer(answered("AB12", last), "plate", "AB12", NOW)).toMatchObject({ ok: true, unchanged: true });
    expect(m.recordAnswer(answered("AB12", last), "note", "hello", NOW)).toMatchObject({ ok: true, revisions: 1 });
  });

  it("an answer brings an abandoned verification back (partially_captured with captures, else pending) before it can complete", () => {
    const capturesDone = [{ id: "a", stepKey: "front", imageKey: "1" }, { id: "b", stepKey: "front", imageKey: "2" }, { id: "c", stepKey: "back", imageKey: "3" }, { id: "d", stepKey: "docs", imageKey: "4" }];
    const d = m.recordAnswer(state({ status: "abandoned", captures: capturesDone }), "plate", "AB12", NOW);
    // The answer that completes the evidence: ready, and back to partially_captured, never straight to completed.
    expect(d).toMatchObject({ ok: true, transition: { status: "partially_captured", patch: { readyAt: NOW } } });
    expect(m.complete(state({ status: "abandoned", readyAt: NOW }), NOW, {})).toMatchObject({ ok: false, error: { code: "invalid_state" } });
  });
});

describe("submit", () => {
  it("needs every minimum and required answer", () => {
    expect(m.submit(state(), NOW)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    const s = state({ status: "partially_captured", captures: [{ id: "a", stepKey: "front", imageKey: "1" }] });
    expect(m.submit(s, NOW)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    const ready = { ...s, answers: { plate: { value: "X1", answeredAt: NOW, revisions: 1 } } };
    const d = m.submit(ready, NOW);
    expect(d).toMatchObject({ ok: true, alreadySubmitted: false, transition: { patch: { submittedAt: NOW, readyAt: NOW } } });
    expect(m.submit({ ...ready, submittedAt: NOW, readyAt: NOW }, NOW + 1)).toMatchObject({ ok: true, alreadySubmitted: true });
    // Also once the verdict completed it; a verification completed without a submit still refuses one.
    expect(m.submit({ ...ready, status: "completed", submittedAt: NOW, readyAt: NOW }, NOW + 1)).toMatchObject({ ok: true, alreadySubmitted: true, transition: { status: "completed", events: [] } });
    expect(m.submit({ ...ready, status: "completed", readyAt: NOW }, NOW + 1)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
  });

  it("with no capture, taken once the rule holds (every min 0, required answers given) and failed at once: no_evidence, never ready", () => {
    const optional = state({
      config: {
        ...state().config,
        steps: [
          { key: "front", type: "image", description: "Front", min: 0, max: 2 },
          { key: "plate", type: "text", required: true, validation: { max_length: 10, format: "alphanumeric_id" } },
        ],
      },
    });
    expect(m.submitBlockers(optional)).toEqual(["plate needs an answer"]);
    expect(m.submit(optional, NOW)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    const answered = { ...optional, answers: { plate: { value: "X1", answeredAt: NOW, revisions: 1 } } };
    expect(m.submitBlockers(answered)).toEqual([]);
    const d = m.submit(answered, NOW);
    expect(d).toEqual({
      ok: true,
      alreadySubmitted: false,
      failureReason: "no_evidence",
      transition: { status: "failed", patch: { submittedAt: NOW }, events: [{ name: "verification.submitted" }, { name: "verification.failed", payload: { reason: "no_evidence" } }] },
    });
    // A repeated submit (a retry whose answer was lost) answers the current state and changes nothing.
    expect(m.submit({ ...answered, status: "failed", submittedAt: NOW }, NOW + 1)).toEqual({
      ok: true,
      alreadySubmitted: true,
      transition: { status: "failed", patch: {}, events: [] },
    });
  });

  it("a submit brings an abandoned verification back to partially_captured", () => {
    const abandoned = state({ status: "abandoned", captures: [{ id: "a", stepKey: "front", imageKey: "1" }], answers: { plate: { value: "X1", answeredAt: NOW, revisions: 1 } } });
    expect(m.submit(abandoned, NOW)).toMatchObject({ ok: true, transition: { status: "partially_captured", patch: { submittedAt: NOW, readyAt: NOW } } });
  });
});

describe("reportProgress", () => {
  it.each(ALL)("abandoned from %s", (status) => {
    const d = m.reportProgress(state({ status }), "abandoned", NOW);
    // A finished verification takes the snapshot (the page reports after the verdict) and keeps its status.
    if (status === "completed" || status === "failed") expect(d).toMatchObject({ ok: true, transition: { status, events: [] } });
    else if (status === "expired") expect(d).toMatchObject({ ok: false, error: { code: "expired" } });
    else if (status === "abandoned") expect(d).toMatchObject({ ok: true, transition: { status: "abandoned", events: [] } });
    else expect(d).toMatchObject({ ok: true, transition: { status: "abandoned", events: [{ name: "verification.abandoned" }] } });
  });

  it("counts every abandonment but puts only the first ABANDONMENTS_ON_TIMELINE on the timeline", () => {
    expect(m.reportProgress(state({ abandonments: 0 }), "abandoned", NOW)).toMatchObject({
      ok: true,
      transition: { status: "abandoned", patch: { abandonments: 1 }, events: [{ name: "verification.abandoned", payload: { abandonment: 1 } }] },
    });
    const last = m.reportProgress(state({ abandonments: m.ABANDONMENTS_ON_TIMELINE - 1 }), "abandoned", NOW);
    expect(last).toMatchObject({ ok: true, transition: { events: [{ payload: { abandonment: m.ABANDONMENTS_ON_TIMELINE } }] } });
    expect(m.reportProgress(state({ abandonments: m.ABANDONMENTS_ON_TIMELINE }), "abandoned", NOW)).toMatchObject({
      ok: true,
      transition: { status: "abandoned", patch: { abandonments: m.ABANDONMENTS_ON_TIMELINE + 1 }, events: [] },
    });
  });

  it("does not abandon a verification whose evidence is complete, and other kinds never change a live status", () => {
    expect(m.reportProgress(state({ status: "partially_captured", readyAt: NOW }), "abandoned", NOW)).toMatchObject({
      ok: true,
      transition: { status: "partially_captured", events: [] },
    });
    for (const status of ["pending", "partially_captured", "completed", "failed"] as const) {
      expect(m.reportProgress(state({ status }), "step_reached", NOW)).toMatchObject({ ok: true, transition: { status, events: [] } });
    }
  });

  // Probe of 2026-12-04: a reload sent `abandoned` as the old page went, and the verification stayed
  // abandoned while the end user worked on the new one.
  it("any other report is a page on screen: it brings an abandoned verification back", () => {
    const captured = [{ id: "a", stepKey: "front", imageKey: "1" }];
    for (const kind of ["step_reached", "camera_permission"] as const) {
      expect(m.reportProgress(state({ status: "abandoned" }), kind, NOW)).toMatchObject({ ok: true, transition: { status: "pending", events: [] } });
      expect(m.reportProgress(state({ status: "abandoned", captures: captured }), kind, NOW)).toMatchObject({ ok: true, transition: { status: "partially_captured" } });
    }
  });

  it("a capture after abandonment returns it to partially_captured", () => {
    expect(m.acceptCapture(state({ status: "abandoned" }), capture(), NOW)).toMatchObject({ ok: true, transition: { status: "partially_captured" } });
  });
});

describe("expire / complete / fail / finalize", () => {
  it("expires only an unfinished verification past expires_at", () => {
    expect(m.expire(state({ expiresAt: NOW }), NOW)).toMatchObject({ ok: true, transition: { status: "expired" } });
    expect(m.expire(state({ expiresAt: NOW + 1 }), NOW)).toMatchObject({ ok: false });
    expect(m.expire(state({ expiresAt: NOW, readyAt: NOW - 1 }), NOW)).toMatchObject({ ok: false });
    expect(m.expire(state({ expiresAt: NOW, status: "completed" }), NOW)).toMatchObject({ ok: false });
  });

  it.each(ALL)("complete from %s", (status) => {
    const ready = m.complete(state({ status, readyAt: NOW - 1 }), NOW, {});
    if (status === "completed" || status === "expired" || status === "failed" || status === "abandoned") expect(ready).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    else expect(ready).toMatchObject({ ok: true, transition: { status: "completed", patch: { completedAt: NOW } } });
    expect(m.complete(state({ status, readyAt: null }), NOW, {})).toMatchObject({ ok: false });
  });

  it.each(ALL)("fail from %s", (status) => {
    const d = m.fail(state({ status }), "unreadable");
    if (status === "completed" || status === "expired" || status === "failed") expect(d).toMatchObject({ ok: false });
    else expect(d).toMatchObject({ ok: true, transition: { status: "failed", events: [{ name: "verification.failed", payload: { reason: "unreadable" } }] } });
  });

  it("finalize needs a capture, refuses expired/failed, and runs once; status unchanged", () => {
    const withCapture = state({ status: "partially_captured", captures: [{ id: "a", stepKey: "front", imageKey: "1" }] });
    expect(m.finalize(state(), "n", NOW)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(m.finalize({ ...withCapture, status: "failed" }, "n", NOW)).toMatchObject({ ok: false, error: { code: "invalid_state", message: "A failed verification cannot be finalized." } });
    expect(m.finalize({ ...withCapture, expiresAt: NOW }, "n", NOW)).toMatchObject({ ok: false, error: { code: "invalid_state", message: "An expired verification cannot be finalized." } });
    expect(m.finalize({ ...withCapture, finalizedAt: NOW - 1 }, "n", NOW)).toMatchObject({ ok: false, error: { code: "already_finalized" } });
    expect(m.finalize({ ...withCapture, status: "completed" }, "story", NOW)).toMatchObject({
      ok: true,
      transition: { status: "completed", patch: { finalizedAt: NOW }, events: [{ name: "verification.case.completed", payload: { narrative: "story" } }] },
    });
  });
});

describe("review and redaction", () => {
  const redacted = (over: Partial<VerificationState> = {}) => state({ status: "partially_captured", redactedAt: NOW - 1, captures: [{ id: "a", stepKey: "front", imageKey: "1" }], ...over });

  it.each(ALL)("a review from %s keeps the status and records decision, note and reviewer", (status) => {
    const d = m.review(state({ status }), { decision: "rejected", note: "glare", by: "usr_1" }, NOW, { count: 3, latestAt: NOW - 5, judged: false });
    expect(d).toMatchObject({
      ok: true,
      review: { decision: "rejected", note: "glare", by: "usr_1", at: NOW, count: 4 },
      transition: { status, patch: {}, events: [{ name: "verification.reviewed", payload: { decision: "rejected", note: "glare", by: "usr_1" } }] },
    });
  });

  it(`takes ${m.REVIEWS_PER_VERIFICATION} reviews, counting one for a stored review from before the count was kept`, () => {
    const cmd = { decision: "approved", note: "x", by: "usr_1" } as const;
    const after = (count: number) => ({ count, latestAt: NOW - 5, judged: true });
    expect(m.review(state({ status: "completed" }), cmd, NOW, after(m.REVIEWS_PER_VERIFICATION - 1))).toMatchObject({ ok: true, review: { count: m.REVIEWS_PER_VERIFICATION } });
    expect(m.review(state({ status: "completed" }), cmd, NOW, after(m.REVIEWS_PER_VERIFICATION))).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect([m.reviewCount(null), m.reviewCount({ decision: "approved", by: "usr_1", at: 1 }), m.reviewCount({ decision: "approved", by: "usr_1", at: 1, count: 7 })]).toEqual([0, 1, 7]);
  });

  // Console probe of 2026-12-07: a verification nobody had captured for read "Review: Approved", and
  // a review from a page that had not seen a colleague's newer one replaced it unseen.
  it("approves only a judged verification, and refuses a decision made beside a review that is no longer the latest", () => {
    const none = { count: 0, latestAt: null, judged: false };
    const approve = { decision: "approved", note: "x", by: "usr_1" } as const;
    expect(m.review(state({ status: "pending" }), approve, NOW, none)).toMatchObject({ ok: false, error: { code: "invalid_state", message: expect.stringContaining("no verdict to approve") } });
    expect(m.review(state({ status: "pending" }), { ...approve, decision: "rejected" }, NOW, none)).toMatchObject({ ok: true });
    expect(m.review(state({ status: "pending" }), { ...approve, decision: "needs_more" }, NOW, none)).toMatchObject({ ok: true });
    const judged = { count: 1, latestAt: NOW - 60_000, judged: true };
    expect(m.review(state({ status: "completed" }), approve, NOW, judged)).toMatchObject({ ok: true, review: { count: 2 } });
    expect(m.review(state({ status: "completed" }), { ...approve, replaces: NOW - 60_000 }, NOW, judged)).toMatchObject({ ok: true });
    const stale = { ok: false, error: { code: "invalid_state", message: expect.stringContaining("Another review was recorded") } };
    expect(m.review(state({ status: "completed" }), { ...approve, replaces: null }, NOW, judged)).toMatchObject(stale);
    expect(m.review(state({ status: "completed" }), { ...approve, replaces: NOW - 90_000 }, NOW, judged)).toMatchObject(stale);
    expect(m.review(state({ status: "completed" }), { ...approve, replaces: null }, NOW, { ...none, judged: true })).toMatchObject({ ok: true });
    expect([m.reviewedAt(null), m.reviewedAt({ decision: "approved", by: "usr_1", at: 7 })]).toEqual([null, 7]);
  });

  // Webhook probe of 2026-12-07: redacted before its analysis landed, a verification whose evidence
  // was complete stayed partially_captured for good (no verdict can come from erased evidence, and
  // the straggler sweep leaves redacted ones alone).
  it("redacting evidence that is complete but not yet judged ends the verification failed (redacted)", () => {
    const ready = state({ status: "partially_captured", readyAt: NOW - 1, captures: [{ id: "a", stepKey: "front", imageKey: "1" }] });
    expect(m.redact(ready, "key_1")).toMatchObject({
      ok: true,
      alreadyRedacted: false,
      failureReason: "redacted",
      transition: { status: "failed", events: [{ name: "verification.redacted", payload: { by: "key_1" } }, { name: "verification.failed", payload: { reason: "redacted" } }] },
    });
    // Evidence not complete: the link still expires as any other (below); an ended one keeps its status.
    expect(m.redact(state({ status: "partially_captured" }), "key_1")).toMatchObject({ transition: { status: "partially_captured" } });
    expect(m.redact(state({ status: "completed", readyAt: NOW - 1 }), "key_1")).not.toHaveProperty("failureReason");
  });

  it("redacts once, keeping the status; a second request is a no-op", () => {
    expect(m.redact(state({ status: "completed" }), "key_1")).toMatchObject({
      ok: true,
      alreadyRedacted: false,
      transition: { status: "completed", events: [{ name: "verification.redacted", payload: { by: "key_1" } }] },
    });
    expect(m.redact(redacted(), "key_1")).toMatchObject({ ok: true, alreadyRedacted: true, transition: { events: [] } });
  });

  it("a redacted verification takes no capture-flow write, review, narrative or verdict (410 redacted / invalid_state)", () => {
    const gone = { ok: false, error: { code: "redacted" } };
    expect(m.acceptCapture(redacted(), capture("front"), NOW)).toMatchObject(gone);
    expect(m.recordAnswer(redacted(), "plate", "AB12", NOW)).toMatchObject(gone);
    expect(m.submit(redacted(), NOW)).toMatchObject(gone);
    expect(m.reportProgress(redacted(), "abandoned", NOW)).toMatchObject(gone);
    expect(m.review(redacted(), { decision: "approved", note: "x", by: "usr_1" }, NOW, { count: 0, latestAt: null, judged: true })).toMatchObject(gone);
    expect(m.finalize(redacted(), "story", NOW)).toMatchObject(gone);
    expect(m.complete(redacted({ readyAt: NOW - 1 }), NOW, {})).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(m.fail(redacted(), "x")).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    // Its link still expires like any other: the status says how it ended.
    expect(m.expire(redacted({ expiresAt: NOW }), NOW)).toMatchObject({ ok: true, transition: { status: "expired" } });
  });
});
