import { describe, expect, it } from "vitest";
import { newVerificationRow, type CaptureRow, type VerificationRecord } from "../../../src/db/verifications";
import { captureRow } from "../../../src/model/verification/capture";
import { CAPTURE_WINDOW_MS, planSweep, SWEEP_GRACE_MS } from "../../../src/model/verification/orphan-sweep";
import { isSettled, QUIET_AFTER_MS, redactedColumns, redactedRecord } from "../../../src/model/verification/redaction";
import { checkSlot, FORENSIC_BUFFER_MAX_BYTES, openUploadCap, planUpload, UPLOAD_TTL_MS, withDigest, type UploadSlot } from "../../../src/model/verification/upload-slots";
import { IMAGE_STEP_MAX_BYTES } from "../../../src/model/verification/config";

/* The model's upload-slot, sweep and redaction rules as plain functions: no env, no binding. */

const NOW = 1_800_000_000_000;

const slot: UploadSlot = {
  id: "cap_1",
  verificationId: "vfy_1",
  kind: "image",
  objectKey: "verifications/vfy_1/cap_1",
  contentType: "image/jpeg",
  maxBytes: 1000,
  expiresAt: NOW + UPLOAD_TTL_MS,
  status: "minted",
  sizeBytes: null,
  sha256: null,
  sniffedType: null,
};
const use = { verificationId: "vfy_1", kind: "image", field: "image_key", now: NOW } as const;

function record(overrides: Partial<VerificationRecord["row"]> = {}, captures: CaptureRow[] = []): VerificationRecord {
  const row = newVerificationRow({
    id: "vfy_1",
    tenantId: "ten_1",
    config: {
      max_captures: 3,
      steps: [{ key: "front", type: "image", description: "Front", min: 1, max: 3 }],
      signals_required: ["screen"],
      metadata: { order: "42" },
      notify_email: "a@example.com",
      context: { kind: "claim", summary: "dented door" },
    },
    sealEnabled: false,
    createdAt: NOW - 60_000,
    expiresAt: NOW + 3_600_000,
  });
  return { row: { ...row, ...overrides }, captures, answers: [{ verificationId: "vfy_1", stepKey: "plate", value: "B-XY 1", answeredAt: NOW }] } as VerificationRecord;
}

describe("upload slots", () => {
  it("lets a verification hold twice the captures it can still take, never fewer than none", () => {
    expect(openUploadCap({ max_captures: 3 } as never, 1)).toBe(4);
    expect(openUploadCap({ max_captures: 3 } as never, 5)).toBe(0);
  });

  it("accepts a slot of this verification and kind until its capture window closes, then 409 upload_expired; a persisted key whenever it comes", () => {
    expect(checkSlot(slot, use)).toBeNull();
    expect(checkSlot(slot, { ...use, now: slot.expiresAt + CAPTURE_WINDOW_MS - 1 })).toBeNull();
    expect(checkSlot(slot, { ...use, now: slot.expiresAt + CAPTURE_WINDOW_MS })).toMatchObject({ ok: false, error: { code: "upload_expired" } });
    expect(checkSlot(slot, { ...use, now: slot.expiresAt + CAPTURE_WINDOW_MS * 24, persisted: true })).toBeNull();
    // A persisted key still belongs to its verification and kind.
    expect(checkSlot({ ...slot, verificationId: "vfy_2" }, { ...use, persisted: true })).toMatchObject({ ok: false, error: { code: "invalid_request" } });
  });

  it("refuses a missing slot, another verification's and another kind's alike (400 on the field)", () => {
    for (const refused of [checkSlot(null, use), checkSlot({ ...slot, verificationId: "vfy_2" }, use), checkSlot({ ...slot, kind: "forensic_buffer" }, use)]) {
      expect(refused).toMatchObject({ ok: false, error: { code: "invalid_request", fields: { image_key: expect.any(String) } } });
    }
  });

  it("plans a mint from the verification as it stands: its slot, bounded by the verification's expiry, and its cap; 410 dead, 409 full or finished", () => {
    const request = { id: "cap_9", kind: "image", objectKey: "verifications/vfy_1/cap_9", contentType: "image/png", direct: false, now: NOW } as const;
    expect(planUpload({ ...record().row, capturesCount: 1 }, request)).toEqual({
      ok: true,
      mint: {
        slot: { ...slot, id: "cap_9", objectKey: "verifications/vfy_1/cap_9", contentType: "image/png", maxBytes: IMAGE_STEP_MAX_BYTES },
        cap: 4,
        direct: false,
        now: NOW,
      },
    });
    // No URL outlives its verification; a depth map has its own bound and key.
    const ending = planUpload(record({ expiresAt: NOW + 1000 }).row, { ...request, kind: "forensic_buffer", objectKey: "verifications/vfy_1/cap_9.depth.png" });
    expect(ending).toMatchObject({ ok: true, mint: { slot: { expiresAt: NOW + 1000, maxBytes: FORENSIC_BUFFER_MAX_BYTES, objectKey: "verifications/vfy_1/cap_9.depth.png" }, cap: 6 } });
    expect(planUpload(record({ expiresAt: NOW }).row, request)).toMatchObject({ ok: false, error: { code: "expired" } });
    expect(planUpload(record({ redactedAt: NOW - 1 }).row, request)).toMatchObject({ ok: false, error: { code: "redacted" } });
    expect(planUpload({ ...record().row, capturesCount: 3 }, request)).toMatchObject({ ok: false, error: { code: "step_full" } });
    expect(planUpload(record({ submittedAt: NOW - 1 }).row, request)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
  });

  it("answers a kept slot with the digest of the capture that took its bytes", () => {
    const taken = captureRow({ verificationId: "vfy_1", tenantId: "ten_1" }, { captureId: "cap_1", imageKey: slot.objectKey, mediaType: "image/png", sizeBytes: 900, sha256: "cd".repeat(32) }, { step: { key: "front", type: "image", description: "Front", min: 1, max: 3 }, seq: 1 }, NOW);
    expect(withDigest(slot, record({}, [taken]))).toEqual({ ...slot, status: "uploaded", sizeBytes: 900, sha256: "cd".repeat(32), sniffedType: "image/png" });
    expect(withDigest(slot, record())).toBe(slot);
  });
});

describe("orphan sweep plan", () => {
  it("keeps referenced bytes, removes unreferenced ones past the grace, and comes back for the rest", () => {
    const plan = planSweep({
      now: NOW,
      terminal: true,
      objects: [
        { key: "kept", uploadedAt: NOW - 2 * SWEEP_GRACE_MS },
        { key: "old", uploadedAt: NOW - 2 * SWEEP_GRACE_MS },
        { key: "fresh", uploadedAt: NOW - 1000 },
      ] as never,
      referenced: new Set(["kept"]),
      uploads: [],
    });
    expect(plan).toEqual({ remove: ["old"], nextAt: NOW - 1000 + SWEEP_GRACE_MS });
  });
});

describe("redaction plan", () => {
  it("drops what a person supplied from the config and the review's note, keeps the decision", () => {
    const row = record({ review: { decision: "approved", note: "plate matches", by: "usr_1", at: NOW }, narrative: "text" }).row;
    const columns = redactedColumns(row, NOW);
    expect(columns.config).not.toHaveProperty("metadata");
    expect(columns.config).not.toHaveProperty("notify_email");
    expect(columns.config).not.toHaveProperty("context");
    expect(columns.config.steps).toEqual(row.config.steps);
    expect(columns.review).toEqual({ decision: "approved", by: "usr_1", at: NOW });
    expect(columns).toMatchObject({ narrative: null, caseAnalysis: null, redactedAt: NOW });
  });

  it("reads as a tombstone: no answers, no capture locations", () => {
    const taken = { ...captureRow({ verificationId: "vfy_1", tenantId: "ten_1" }, { captureId: "cap_1", imageKey: "k", mediaType: "image/jpeg", sizeBytes: 1, sha256: "ab".repeat(32), location: { lat: 1, lng: 2 } }, { step: { key: "front", type: "image", description: "Front", min: 1, max: 3 }, seq: 1 }, NOW) };
    const after = redactedRecord(record({}, [taken]), NOW);
    expect(after.answers).toEqual([]);
    expect(after.captures[0]!.location).toBeNull();
    expect(after.captures[0]!.sha256).toBe(taken.sha256);
  });

  it("counts a verification as settled only when it is over and quiet for longer than any upload can run", () => {
    expect(isSettled(record({ status: "completed", updatedAt: NOW - QUIET_AFTER_MS - 1 }), NOW)).toBe(true);
    expect(isSettled(record({ status: "completed", updatedAt: NOW - QUIET_AFTER_MS + 1 }), NOW)).toBe(false);
    expect(isSettled(record({ status: "partially_captured", updatedAt: NOW - QUIET_AFTER_MS - 1 }), NOW)).toBe(false);
    expect(isSettled(record({ status: "completed", updatedAt: 0, redactedAt: NOW - 1 }), NOW)).toBe(false);
  });
});
