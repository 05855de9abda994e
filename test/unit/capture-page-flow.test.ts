import { describe, expect, it } from "vitest";
import {
  applyReply,
  backoffMs,
  fileMediaType,
  firstUnmet,
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
    const onePhoto = pending({ captures: { front: 1 } });
    expect(resumeIndex(v, onePhoto, 0)).toBe(0);
    expect(resumeIndex(v, onePhoto, 1)).toBe(1);
  });

  it("skips optional steps the end user already passed, but not ones ahead", () => {
    const v = view();
    const onePhoto = pending({ captures: { front: 1 } });
    expect(resumeIndex(v, onePhoto, 2)).toBe(2);
    expect(resumeIndex(v, onePhoto, 3)).toBe(3);
  });

  it("goes back to a passed step whose minimum is no longer met (a refused capture)", () => {
    expect(resumeIndex(view(), NOTHING_PENDING, 3)).toBe(0);
    expect(firstUnmet(view(), NOTHING_PENDING)).toBe(0);
  });

  it("counts queued work like accepted work: full steps and queued answers are done", () => {
    const v = view();
    expect(resumeIndex(v, pending({ captures: { front: 2 }, answers: new Set(["note"]) }), 0)).toBe(2);
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

describe("backoffMs", () => {
  it("doubles from 1 s to a 30 s ceiling with bounded jitter", () => {
    expect([1, 2, 3, 6, 20].map((n) => backoffMs(n, 0.5))).toEqual([1000, 2000, 4000, 30000, 30000]);
    expect(backoffMs(1, 0)).toBe(800);
    expect(backoffMs(1, 1)).toBe(1200);
  });
});

describe("fileMediaType", () => {
  it("trusts the declared type and infers one from the name when the browser gives none", () => {
    expect(fileMediaType("a.png", "image/png")).toBe("image/png");
    expect(fileMediaType("a.jpg", "image/jpg")).toBe("image/jpeg");
    expect(fileMediaType("IMG_1.HEIC", "")).toBe("image/heic");
    expect(fileMediaType("notes.txt", "")).toBe("");
  });
});
