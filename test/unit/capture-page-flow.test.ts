import { describe, expect, it } from "vitest";
import {
  applyReply,
  asPicked,
  backoffMs,
  MAX_THROTTLED,
  throttleDelayMs,
  firstUnmet,
  nextToSend,
  NOTHING_PENDING,
  resumeIndex,
  type Pending,
  type VerifyView,
} from "../../client/capture-page/flow";

function view(overrides: Partial<VerifyView> = {}): VerifyView {
  return {
    id: "vfy_X",
    status: "pending",
    expires_at: "2030-01-01T00:00:00.000Z",
    tenant: { display_name: "Acme" },
    mode: "verification",
    steps: [
      { key: "front", type: "image", description: "Front", min: 1, max: 2, captured: 0 },
      { key: "note", type: "text", required: false, validation: { max_length: 20, format: "free_text" }, answered: false },
      { key: "docs", type: "upload", min: 0, max: 1, accept: ["image/png"], max_size_bytes: 100, captured: 0 },
    ],
    captures_count: 0,
    max_captures: 3,
    submitted: false,
    ready_for_submit: false,
    limits: { inline_max_bytes: 1, upload_url_ttl_seconds: 300, image_max_bytes: 10 },
    ...overrides,
  };
}

const pending = (p: Partial<Pending>): Pending => ({ ...NOTHING_PENDING, ...p });

describe("resumeIndex", () => {
  it("starts at the first step on a fresh link", () => {
    expect(resumeIndex(view(), NOTHING_PENDING, 0)).toBe(0);
  });

  it("keeps a partly filled step until the end user went past it", () => {
    const v = view();
    const onePhoto = pending({ captures: new Map([["front", 1]]) });
    expect(resumeIndex(v, onePhoto, 0)).toBe(0);
    expect(resumeIndex(v, onePhoto, 1)).toBe(1);
  });

  it("skips optional steps the end user already passed, but not ones ahead", () => {
    const v = view();
    const onePhoto = pending({ captures: new Map([["front", 1]]) });
    expect(resumeIndex(v, onePhoto, 2)).toBe(2);
    expect(resumeIndex(v, onePhoto, 3)).toBe(3);
  });

  // Outside probe of 2026-12-06: step keys are the tenant's words, `toString` and `__proto__` too;
  // queued photos were counted in a plain object, where those names are inherited.
  it("counts queued photos per step whatever the step is called (toString, __proto__)", () => {
    const v = view({
      steps: [
        { key: "toString", type: "image", description: "Front", min: 1, max: 1, captured: 0 },
        { key: "__proto__", type: "image", description: "Back", min: 1, max: 1, captured: 0 },
      ],
    });
    expect(firstUnmet(v, NOTHING_PENDING)).toBe(0);
    expect(resumeIndex(v, NOTHING_PENDING, 0)).toBe(0);
    const queued = pending({ captures: new Map([["toString", 1], ["__proto__", 1]]) });
    expect(firstUnmet(v, queued)).toBe(-1);
  });

  it("goes back to a passed step whose minimum is no longer met (a refused capture)", () => {
    expect(resumeIndex(view(), NOTHING_PENDING, 3)).toBe(0);
    expect(firstUnmet(view(), NOTHING_PENDING)).toBe(0);
  });

  it("counts queued work like accepted work: full steps and queued answers are done", () => {
    const v = view();
    expect(resumeIndex(v, pending({ captures: new Map([["front", 2]]), answers: new Set(["note"]) }), 0)).toBe(2);
  });
});

describe("applyReply", () => {
  it("recounts steps and answers from the mutation's Verification", () => {
    const next = applyReply(view(), {
      status: "partially_captured",
      captures_count: 3,
      captures: [{ step_key: "front" }, { step_key: "front" }, { step_key: "docs" }],
      answers: { note: { value: "x" } },
    });
    expect(next.steps.map((s) => (s.type === "text" ? s.answered : s.captured))).toEqual([2, true, 1]);
    expect(next.submitted).toBe(true); // every evidence step at its max: the server is ready too
  });

  it("is submitted only when the server says so or the evidence is complete", () => {
    const reply = { status: "partially_captured" as const, captures_count: 1, captures: [{ step_key: "front" }] };
    expect(applyReply(view(), reply).submitted).toBe(false);
    expect(applyReply(view(), { ...reply, submitted_at: "2030-01-01T00:00:00Z" }).submitted).toBe(true);
  });
});

describe("throttleDelayMs", () => {
  it("waits what Retry-After says (1 s to 60 s; 5 s without one), MAX_THROTTLED times, then hands over to the end user", () => {
    expect([1, 2, 3].map((n) => throttleDelayMs(2, n))).toEqual([2000, 2000, 2000]);
    expect(throttleDelayMs(0, 1)).toBe(1000);
    expect(throttleDelayMs(3600, 1)).toBe(60_000);
    expect(throttleDelayMs(undefined, 1)).toBe(5000);
    expect(MAX_THROTTLED).toBe(3);
    expect(throttleDelayMs(1, MAX_THROTTLED + 1)).toBeNull();
  });
});

describe("backoffMs", () => {
  it("doubles from 1 s to a 30 s ceiling with bounded jitter", () => {
    expect([1, 2, 3, 6, 20].map((n) => backoffMs(n, 0.5))).toEqual([1000, 2000, 4000, 30000, 30000]);
    expect(backoffMs(1, 0)).toBe(800);
    expect(backoffMs(1, 1)).toBe(1200);
  });
});

describe("asPicked", () => {
  it("an image step is a live photo, except in audit mode, where an existing file of any image type fills it", () => {
    const [front, , docs] = view().steps as [any, any, any];
    expect(asPicked(front, view())).toBeNull();
    expect(asPicked(docs, view())).toBe(docs);
    expect(asPicked(front, view({ mode: "audit" }))).toEqual({
      ...front,
      type: "upload",
      accept: ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"],
      max_size_bytes: 10,
    });
  });
});

describe("nextToSend", () => {
  // The helper's scenario: a photo, a required question, then an optional one.
  const claim = (answered: { order?: boolean; notes?: boolean } = {}, captured = 0) =>
    view({
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 1, captured },
        { key: "order", type: "text", required: true, validation: { max_length: 20, format: "free_text" }, answered: answered.order ?? false },
        { key: "notes", type: "text", required: false, validation: { max_length: 200, format: "free_text" }, answered: answered.notes ?? false },
      ],
    });
  const capture = { kind: "capture", step_key: "front" } as const;
  const order = { kind: "answer", step_key: "order" } as const;
  const notes = { kind: "answer", step_key: "notes" } as const;
  const submit = { kind: "submit" } as const;

  it("sends in queue order what does not complete the evidence", () => {
    expect(nextToSend([capture, order], claim(), 1)).toBe(capture);
    expect(nextToSend([notes, order], claim({}, 1), 2)).toBe(notes);
  });

  it("keeps the job that completes the evidence while an optional question is at or after the end user's step", () => {
    expect(nextToSend([order], claim({}, 1), 1)).toBeUndefined();
    expect(nextToSend([order], claim({}, 1), 2)).toBeUndefined();
    // The optional answer overtakes it.
    expect(nextToSend([order, notes], claim({}, 1), 2)).toBe(notes);
  });

  it("releases it once the end user is past the optional questions, or they are answered", () => {
    expect(nextToSend([order], claim({}, 1), 3)).toBe(order);
    expect(nextToSend([order], claim({ notes: true }, 1), 2)).toBe(order);
    // An optional question the end user skipped earlier holds nothing back.
    const skippedFirst = view({
      steps: [
        { key: "notes", type: "text", required: false, validation: { max_length: 200, format: "free_text" }, answered: false },
        { key: "front", type: "image", description: "Front", min: 1, max: 1, captured: 0 },
      ],
    });
    expect(nextToSend([capture], skippedFirst, 1)).toBe(capture);
  });

  it("a completing capture is held like an answer; submit goes last", () => {
    expect(nextToSend([capture], claim({ order: true }), 0)).toBeUndefined();
    expect(nextToSend([capture, submit], claim({ order: true }), 3)).toBe(capture);
    expect(nextToSend([submit], claim({ order: true }, 1), 3)).toBe(submit);
    // Nothing completes an evidence already complete: plain queue order.
    expect(nextToSend([notes, submit], claim({ order: true }, 1), 2)).toBe(notes);
  });
});
