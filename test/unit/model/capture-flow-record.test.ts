import { describe, expect, it } from "vitest";
import { newVerificationRow, type CaptureRow, type VerificationRecord } from "../../../src/db/verifications";
import { captureFlowRecord, presentVerification } from "../../../src/model/verification/present";

const NOW = 1_800_000_000_000;

function capture(seq: number): CaptureRow {
  return {
    id: `cap_${seq}`,
    verificationId: "vfy_1",
    tenantId: "ten_1",
    stepKey: seq === 1 ? "front" : "back",
    stepType: "image",
    seq,
    imageKey: `verifications/vfy_1/cap_${seq}`,
    contentType: "image/jpeg",
    sizeBytes: 1000 + seq,
    sha256: "ab".repeat(32),
    surface: "camera",
    clientCapturedAt: NOW - 5000,
    location: { lat: 52.5, lng: 13.4, accuracy_m: 5 },
    forensicBufferKey: null,
    attestation: { ok: true, provider: "turnstile" },
    captureIntegrity: null,
    createdAt: NOW - 1000 * seq,
  };
}

/** A record carrying everything a capture-link holder must never see. */
function wholeRecord(): VerificationRecord {
  const row = newVerificationRow({
    id: "vfy_1",
    tenantId: "ten_1",
    config: {
      max_captures: 4,
      steps: [
        { key: "front", type: "image", min: 1, max: 2, label: "Front" },
        { key: "back", type: "image", min: 1, max: 2, label: "Back" },
        { key: "plate", type: "text", required: true, label: "Plate" },
      ],
      signals_required: ["screen_detection"],
      webhook_url: "https://tenant.example/hooks",
      metadata: { order: "42" },
      context: "a private note",
    } as unknown as VerificationRecord["row"]["config"],
    sealEnabled: true,
    createdAt: NOW - 60_000,
    expiresAt: NOW + 3_600_000,
    templateId: "tpl_1",
    templateVersion: 3,
  });
  return {
    row: { ...row, capturesCount: 2, sealHash: "cd".repeat(32), verdict: { label: "pass" }, progress: { kind: "step_reached" }, version: 4 },
    captures: [capture(1), capture(2)],
    answers: [
      { verificationId: "vfy_1", stepKey: "plate", value: "AB-123", answeredAt: NOW - 500, revisions: 1 },
      { verificationId: "vfy_1", stepKey: "colour", value: "red", answeredAt: NOW - 400, revisions: 1 },
    ],
  };
}

describe("the capture flow's view of a record (what the verification's object answers its writes with)", () => {
  it("presents exactly as the whole record does, key order included", () => {
    const whole = wholeRecord();
    const options = { baseUrl: "https://verify.example", audience: "capture" as const, now: NOW };
    const fromWhole = presentVerification(whole, options);
    const fromProjection = presentVerification(captureFlowRecord(whole), options);
    expect(JSON.stringify(fromProjection)).toBe(JSON.stringify(fromWhole));
    expect(fromProjection).toMatchObject({ captures_count: 2, answers: { plate: { value: "AB-123" } }, record_seal: expect.any(Object) });
  });

  it("carries nothing the end user's view does not show", () => {
    const text = JSON.stringify(captureFlowRecord(wholeRecord()));
    for (const secret of ["tenant.example", "metadata", "private note", "signals_required", "52.5", "turnstile", "imageKey", "sha256", "tpl_1", "verdict", "step_reached"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("follows the status the view derives: an open verification past its expiry shows expired", () => {
    const whole = wholeRecord();
    const later = { baseUrl: "https://verify.example", audience: "capture" as const, now: NOW + 3_600_001 };
    expect(presentVerification(captureFlowRecord(whole), later).status).toBe("expired");
    expect(presentVerification(captureFlowRecord({ ...whole, row: { ...whole.row, readyAt: NOW } }), later).status).toBe("pending");
  });
});
