import { describe, expect, it } from "vitest";
import { fingerprint, measureBurst, PATCH_SIDE, RepeatWatch, type GreyFrame } from "../../client/capture-page/integrity/measures";
import { assessCaptureBurst, CAPTURE_BURST_THRESHOLDS, virtualCameraOf } from "../../src/analysis/signals/capture-burst";
import { aggregateVerdict } from "../../src/analysis/verdict";
import type { CaptureIntegrity } from "../../src/schemas/capture-integrity";
import { rng } from "../helpers/synth";

/** A smooth, non-periodic texture defined everywhere, so a shifted view of it is exact. */
function texture(seed: number): (x: number, y: number) => number {
  const r = rng(seed);
  const waves = Array.from({ length: 24 }, () => ({ fx: (r() - 0.5) * 0.5, fy: (r() - 0.5) * 0.5, p: r() * 6.28, a: 6 + r() * 10 }));
  return (x, y) => 128 + waves.reduce((s, w) => s + w.a * Math.sin(w.fx * x + w.fy * y + w.p), 0) / 2.5;
}

/**
 * Frames of a scene seen through a camera: frame k moves by `shift(k, x)` (which may depend on
 * where in the frame, for depth), with Gaussian-ish sensor noise of `noise` grey levels.
 */
type Frame = GreyFrame & { patch: Uint8Array };
function scene(count: number, shift: (k: number, x: number) => { dx: number; dy: number }, noise: number, seed = 1): Frame[] {
  const tex = texture(seed);
  const fine = texture(seed + 1);
  const r = rng(seed + 2);
  const n = () => (noise > 0 ? (r() + r() + r() - 1.5) * 2 * noise : 0);
  return Array.from({ length: count }, (_, k) => {
    const luma = new Uint8Array(160 * 120);
    for (let y = 0; y < 120; y += 1) {
      for (let x = 0; x < 160; x += 1) {
        const s = shift(k, x);
        luma[y * 160 + x] = Math.max(0, Math.min(255, Math.round(tex(x + s.dx, y + s.dy) + n())));
      }
    }
    const patch = new Uint8Array(PATCH_SIDE * PATCH_SIDE);
    const s = shift(k, 80);
    for (let y = 0; y < PATCH_SIDE; y += 1) for (let x = 0; x < PATCH_SIDE; x += 1) patch[y * PATCH_SIDE + x] = Math.max(0, Math.min(255, Math.round(fine(x + 4 * s.dx, y + 4 * s.dy) + n())));
    return { t: k * 33.3, width: 160, height: 120, luma, patch };
  });
}

const PHONE: CaptureIntegrity["device"] = { label: "Back Camera", kind: "videoinput", facing_mode: "environment", settings: { width: 1920, height: 1440, frame_rate: 30 }, controls: ["focusMode", "zoom"] };
/** The burst as the page measures it: the reduced frames, and the native patches of the last five (after the shutter). */
const burstOf = (frames: Frame[]) => measureBurst(frames, frames.slice(-5).map((f) => f.patch));
const record = (frames: Frame[], device = PHONE, previewRepeats = 0): CaptureIntegrity => ({
  schema_version: 1,
  device,
  burst: burstOf(frames),
  preview: { frames: 90, duration_ms: 3000, repeated_frames: previewRepeats },
});
const codes = (r: unknown) => (r as { evidence: Array<{ code: string }> }).evidence.map((e) => e.code);

describe("capture burst measures (the page's code)", () => {
  it("an injected still: every frame identical, no noise, no motion", () => {
    const frames = scene(12, () => ({ dx: 0, dy: 0 }), 0);
    const burst = burstOf(frames.map((f) => ({ ...f, luma: frames[0]!.luma, patch: frames[0]!.patch })));
    expect(burst).toMatchObject({ frames: 12, identical_pairs: 11, repeated_frames: 0, temporal_noise: 0, motion_px: 0, changed_fraction: 0 });
    expect(burst.duration_ms).toBeGreaterThanOrEqual(300);
  });

  it("a live sensor on a hand moving sideways: noise and motion measured", () => {
    const burst = burstOf(scene(12, (k) => ({ dx: 0.4 * k, dy: 0.15 * k }), 2));
    expect(burst.identical_pairs).toBe(0);
    expect(burst.temporal_noise).toBeGreaterThan(1);
    expect(burst.temporal_noise).toBeLessThan(4);
    expect(burst.motion_px).toBeGreaterThan(0.3);
    expect(burst.motion_px).toBeLessThan(0.6);
  });

  it("a flat picture moving as one plane fits one homography; two layers at different depths do not", () => {
    const flat = burstOf(scene(12, (k) => ({ dx: 0.35 * k, dy: 0.1 * k }), 1));
    expect(flat.parallax!.baseline_px).toBeGreaterThan(3);
    expect(flat.parallax!.residual_px).toBeLessThan(CAPTURE_BURST_THRESHOLDS.flatResidualPx);
    // The left half (far) moves a third as much as the right half (near): parallax.
    const deep = burstOf(scene(12, (k, x) => ({ dx: (x < 80 ? 0.12 : 0.45) * k, dy: 0 }), 1));
    expect(deep.parallax!.residual_px).toBeGreaterThan(2 * CAPTURE_BURST_THRESHOLDS.flatResidualPx);
  });

  it("a looping clip repeats frames exactly: the preview's watch counts it, a frozen run is not a loop", () => {
    const clip = scene(6, (k) => ({ dx: k, dy: 0 }), 2);
    const loop = new RepeatWatch();
    for (let i = 0; i < 18; i += 1) loop.add(fingerprint(clip[i % 6]!), false);
    expect(loop.repeated).toBe(12);
    const frozen = new RepeatWatch();
    for (let i = 0; i < 18; i += 1) frozen.add(fingerprint(clip[0]!), false);
    expect(frozen.repeated).toBe(0);
    const camera = new RepeatWatch();
    for (const f of scene(18, (k) => ({ dx: k % 3, dy: 0 }), 2)) camera.add(fingerprint(f), false);
    expect(camera.repeated).toBe(0);
  });
});

describe("depth from the capture burst (decision)", () => {
  it("without a record a live capture is not assessed, never assumed live", () => {
    expect(assessCaptureBurst(null)).toEqual({ status: "not_assessed", reason: "no_capture_integrity" });
  });

  it("a burst too short to measure is not assessed, unless the label already names a virtual camera", () => {
    const short = record(scene(3, (k) => ({ dx: k, dy: 0 }), 2));
    expect(assessCaptureBurst(short)).toEqual({ status: "not_assessed", reason: "capture_burst_incomplete" });
    const obs = assessCaptureBurst({ ...short, device: { ...PHONE, label: "OBS Virtual Camera" } });
    expect(obs).toMatchObject({ source: "capture_burst", anomaly: true });
    expect(codes(obs)).toEqual(["virtual_camera"]);
  });

  it("a frozen stream renamed to an ordinary camera is an anomaly by its frames alone", () => {
    const frames = scene(12, () => ({ dx: 0, dy: 0 }), 0);
    const still = record(frames.map((f) => ({ ...f, luma: frames[0]!.luma, patch: frames[0]!.patch })));
    const result = assessCaptureBurst(still);
    expect(result).toMatchObject({ source: "capture_burst", anomaly: true, confidence: 0.05, provider: "capture-burst", method_version: "capture-burst/2" });
    expect(codes(result)).toContain("frozen_stream");
    expect(codes(result)).not.toContain("virtual_camera");
  });

  it("identical reduced frames with a live sensor's noise in the native patches (a denoised, still scene) are not frozen", () => {
    const frames = scene(12, () => ({ dx: 0, dy: 0 }), 2);
    const burst = measureBurst(frames.map((f) => ({ ...f, luma: frames[0]!.luma })), frames.slice(-5).map((f) => f.patch));
    expect(burst.identical_pairs).toBe(11);
    expect(burst.temporal_noise).toBeGreaterThan(1);
    const result = assessCaptureBurst({ schema_version: 1, device: PHONE, burst, preview: { frames: 90, duration_ms: 3000, repeated_frames: 0 } });
    expect(result).toMatchObject({ anomaly: false });
    expect(codes(result)).not.toContain("frozen_stream");
  });

  it("repeated frames in the preview (a loop) are an anomaly even when the burst itself looks live", () => {
    const result = assessCaptureBurst(record(scene(12, (k, x) => ({ dx: (x < 80 ? 0.12 : 0.45) * k, dy: 0 }), 2), PHONE, 4));
    expect(result).toMatchObject({ anomaly: true });
    expect(codes(result)).toContain("repeated_frames");
  });

  it("a live scene with depth is clean with a confidence that says why; a flat plane trips", () => {
    const live = assessCaptureBurst(record(scene(12, (k, x) => ({ dx: (x < 80 ? 0.12 : 0.45) * k, dy: 0.05 * k }), 2)));
    expect(live).toMatchObject({ source: "capture_burst", anomaly: false });
    expect((live as { confidence: number }).confidence).toBeGreaterThan(0.7);
    expect(codes(live)).toEqual(["sensor_noise", "camera_motion", "parallax"]);
    const flat = assessCaptureBurst(record(scene(12, (k) => ({ dx: 0.35 * k, dy: 0.1 * k }), 2)));
    expect(flat).toMatchObject({ anomaly: true, confidence: 0.2 });
    expect(CAPTURE_BURST_THRESHOLDS.flatnessTrips).toBe(true);
    expect(codes(flat)).toContain("planar_motion");
  });

  it("over a longer baseline the plane's resampling residual still reads flat, a genuine scene's share of it does not", () => {
    const withParallax = (residual_px: number, baseline_px: number): CaptureIntegrity => {
      const live = record(scene(12, (k) => ({ dx: 0.35 * k, dy: 0.1 * k }), 2));
      return { ...live, burst: { ...live.burst, parallax: { blocks: 40, baseline_px, residual_px } } };
    };
    // The browser suite's moving plane as Chromium resampled it (2026-11-27): 0.326 px over 4.83 px.
    expect(codes(assessCaptureBurst(withParallax(0.326, 4.83)))).toContain("planar_motion");
    // The lowest share any genuine press showed in the evaluation: 0.088 of its baseline.
    const genuine = assessCaptureBurst(withParallax(0.088 * 4.83, 4.83));
    expect(genuine).toMatchObject({ anomaly: false });
    expect(codes(genuine)).toContain("parallax");
  });

  it("a live sensor that barely moved (on a table) is clean: too little motion to judge depth", () => {
    const result = assessCaptureBurst(record(scene(12, () => ({ dx: 0, dy: 0 }), 2)));
    expect(result).toMatchObject({ anomaly: false });
    expect(codes(result)).toContain("parallax_not_measured");
    expect((result as { confidence: number }).confidence).toBeGreaterThanOrEqual(0.3);
  });

  it.each([
    ["OBS Virtual Camera", "OBS Virtual Camera"],
    ["Dummy video device (0x0000)", "v4l2loopback"],
    ["ManyCam Virtual Webcam", "ManyCam"],
    ["Snap Camera", "Snap Camera"],
    ["XSplit VCam", "XSplit VCam"],
    ["fake_device_0", "Chromium's fake camera"],
    ["/tmp/clip.y4m", "a video file played as the camera"],
    ["DroidCam Source 3", "DroidCam"],
    ["Iriun Webcam", "Iriun Webcam"],
    ["NVIDIA Broadcast", "NVIDIA Broadcast"],
    ["Some Virtual Cam", "a device named virtual"],
  ])("the label %s names %s", (label, name) => {
    expect(virtualCameraOf(label)).toBe(name);
  });

  it.each(["Back Camera", "camera2 0, facing back", "FaceTime HD Camera", "Integrated Webcam (0bda:58f4)", "Logitech BRIO (046d:085e)", ""])("the label %j is an ordinary camera", (label) => {
    expect(virtualCameraOf(label)).toBeNull();
  });

  it("in the verdict a capture-burst anomaly is suspicious with depth_anomaly, and the record's absence keeps it from verified", () => {
    const frames = scene(12, () => ({ dx: 0, dy: 0 }), 0);
    const depth = assessCaptureBurst(record(frames.map((f) => ({ ...f, luma: frames[0]!.luma, patch: frames[0]!.patch }))));
    const tripped = aggregateVerdict(["depth"], [{ capture_id: "cap_1", uploaded: false, signals: { depth } }]);
    expect(tripped).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    const missing = aggregateVerdict(["depth"], [{ capture_id: "cap_1", uploaded: false, signals: { depth: assessCaptureBurst(null) } }]);
    expect(missing).toMatchObject({ label: "suspicious", reason_code: "not_assessed", not_assessed: ["depth"], signals: { depth: { status: "not_assessed", reason: "no_capture_integrity" } } });
  });
});
