import { describe, expect, it } from "vitest";
import { burstAround, fingerprint, RepeatWatch } from "../../client/capture-page/integrity/frames";
import { photoAgreement, type Agreement } from "../../src/analysis/burst/agreement";
import { measureBurst, PATCH_SIDE, type BurstMeasures, type GreyFrame } from "../../src/analysis/burst/measures";
import type { ReceivedBurst } from "../../src/analysis/burst/received";
import { assessCaptureBurst, CAPTURE_BURST_THRESHOLDS, FLAT_SCENE_METHOD, NO_PARALLAX_METHOD, virtualCameraOf, type LiveCaptureFindings } from "../../src/analysis/signals/capture-burst";
import { aggregateVerdict } from "../../src/analysis/verdict";
import type { CaptureIntegrityV1, CaptureIntegrityV2 } from "../../src/schemas/capture-integrity";
import { rng } from "../helpers/synth";

/** A smooth, non-periodic texture defined everywhere, so a shifted view of it is exact. */
function texture(seed: number): (x: number, y: number) => number {
  const r = rng(seed);
  const waves = Array.from({ length: 24 }, () => ({ fx: (r() - 0.5) * 0.5, fy: (r() - 0.5) * 0.5, p: r() * 6.28, a: 6 + r() * 10 }));
  return (x, y) => 128 + waves.reduce((s, w) => s + w.a * Math.sin(w.fx * x + w.fy * y + w.p), 0) / 2.5;
}

/**
 * A frame's noise field of σ about `sigma`: `white` draws each pixel on its own (noise added to a
 * picture), otherwise each pixel averages four neighbouring draws, as a camera's pipeline spreads
 * its noise (a correlation of about 0.5 with the next pixel).
 */
function noiseField(width: number, height: number, sigma: number, r: () => number, white = false): Float32Array {
  const draw = () => (r() + r() + r() - 1.5) * 2 * sigma;
  const raw = Float32Array.from({ length: (width + 1) * (height + 1) }, draw);
  if (white) return raw;
  const out = new Float32Array((width + 1) * (height + 1));
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = y * (width + 1) + x;
      out[i] = (raw[i]! + raw[i + 1]! + raw[i + width + 1]! + raw[i + width + 2]!) / 2;
    }
  }
  return out;
}

/**
 * Frames of a scene seen through a camera: frame k moves by `shift(k, x)` (which may depend on
 * where in the frame, for depth), with a camera's (spatially correlated) noise of about `noise`
 * grey levels, or white noise added pixel by pixel.
 */
type Frame = GreyFrame & { patch: Uint8Array };
function scene(count: number, shift: (k: number, x: number) => { dx: number; dy: number }, noise: number, seed = 1, white = false): Frame[] {
  const tex = texture(seed);
  const fine = texture(seed + 1);
  const r = rng(seed + 2);
  return Array.from({ length: count }, (_, k) => {
    const field = noiseField(160, 120, noise, r, white);
    const patchField = noiseField(PATCH_SIDE, PATCH_SIDE, noise, r, white);
    const n = (f: Float32Array, w: number, x: number, y: number) => f[y * (w + 1) + x]!;
    const luma = new Uint8Array(160 * 120);
    for (let y = 0; y < 120; y += 1) {
      for (let x = 0; x < 160; x += 1) {
        const s = shift(k, x);
        luma[y * 160 + x] = Math.max(0, Math.min(255, Math.round(tex(x + s.dx, y + s.dy) + n(field, 160, x, y))));
      }
    }
    const patch = new Uint8Array(PATCH_SIDE * PATCH_SIDE);
    const s = shift(k, 80);
    for (let y = 0; y < PATCH_SIDE; y += 1) for (let x = 0; x < PATCH_SIDE; x += 1) patch[y * PATCH_SIDE + x] = Math.max(0, Math.min(255, Math.round(fine(x + 4 * s.dx, y + 4 * s.dy) + n(patchField, PATCH_SIDE, x, y))));
    return { t: k * 33.3, width: 160, height: 120, luma, patch };
  });
}

const PHONE: CaptureIntegrityV2["device"] = { label: "Back Camera", kind: "videoinput", facing_mode: "environment", settings: { width: 1920, height: 1440, frame_rate: 30 }, controls: ["focusMode", "zoom"] };
/** The burst as the service measures it: the reduced frames, and the native patches of the last five (after the shutter). */
const burstOf = (frames: Frame[]) => measureBurst(frames, frames.slice(-5).map((f) => f.patch));
const codes = (r: unknown) => (r as { evidence: Array<{ code: string }> }).evidence.map((e) => e.code);

/** The stored version 2 record of a burst (what the decision reads of it: the device and preview claims). */
function v2(device = PHONE, previewRepeats = 0): CaptureIntegrityV2 {
  const times = Array.from({ length: 12 }, (_, i) => Math.round(i * 33.3 - 366));
  return {
    schema_version: 2,
    nonce: "n".repeat(51),
    device,
    preview: { frames: 90, duration_ms: 3000, repeated_frames: previewRepeats },
    frames: { width: 160, height: 120, count: 12, times_ms: times, sha256: "0".repeat(64), bytes: 1 },
    patches: { side: 64, count: 5, times_ms: times.slice(-5), sha256: "1".repeat(64), bytes: 1 },
  };
}

/** The frame at the shutter: the page's photo is the drawing of it. */
const SHUTTER = 8;
/** The photo (the frame at the shutter's picture unless `photo` is given) against the burst, as the service measures it. */
function agreementOf(frames: Frame[], photo?: Uint8Array): Agreement {
  const shutter = frames[Math.min(SHUTTER, frames.length - 1)]!;
  const pressed = frames.map((f) => ({ ...f, t: f.t - shutter.t }));
  return photoAgreement({ width: 160, height: 120, data: photo ?? shutter.luma }, pressed);
}

/** What the analysis found of a burst of `frames` whose checks all passed, with `over` replacing any part. */
function findings(frames: Frame[], over: { record?: CaptureIntegrityV2; burst?: Partial<ReceivedBurst>; measures?: BurstMeasures; finding?: Partial<LiveCaptureFindings> } = {}): LiveCaptureFindings {
  const record = over.record ?? v2();
  const burst: ReceivedBurst = {
    record,
    frames,
    patches: frames.slice(-5).map((f) => f.patch),
    unreadable: null,
    nonce: { ok: true, issuedAt: 0 },
    nonceReusedBy: [],
    attestationUnbound: null,
    replayOf: [],
    ...over.burst,
  };
  return { record, burst, measures: over.measures ?? burstOf(frames), agreement: agreementOf(frames), patches: { measured: true, score: 0.999 }, screenCue: null, ...over.finding };
}

const depthScene = (noise = 2) => scene(12, (k, x) => ({ dx: (x < 80 ? 0.12 : 0.45) * k, dy: 0.05 * k }), noise);
const planeScene = () => scene(12, (k) => ({ dx: 0.35 * k, dy: 0.1 * k }), 2);
const frozenScene = () => {
  const frames = scene(12, () => ({ dx: 0, dy: 0 }), 0);
  return frames.map((f) => ({ ...f, luma: frames[0]!.luma, patch: frames[0]!.patch }));
};

describe("capture burst measures (the service's code)", () => {
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

  it("consecutive frames of a moving camera continue each other; a frame of another scene spliced in at the shutter breaks the links on either side of it", () => {
    const frames = scene(12, (k, x) => ({ dx: (x < 80 ? 0.3 : 0.9) * k, dy: 0.2 * k }), 2);
    const links = burstOf(frames).frame_links;
    expect(links).toHaveLength(11);
    expect(Math.min(...links.map((l) => l!))).toBeGreaterThan(0.9);
    const other = scene(12, (k) => ({ dx: 0.4 * k, dy: 0 }), 2, 9);
    const spliced = burstOf(frames.map((f, i) => (i === SHUTTER ? { ...f, luma: other[SHUTTER]!.luma } : f))).frame_links;
    expect(spliced[SHUTTER - 1]).toBeLessThan(0.5);
    expect(spliced[SHUTTER]).toBeLessThan(0.5);
    expect(spliced[2]).toBeGreaterThan(0.9);
    // Too plain to say (a white wall): no link is measured.
    const plain = frames.map((f) => ({ ...f, luma: new Uint8Array(f.luma.length).fill(200) }));
    expect(burstOf(plain).frame_links.every((l) => l === null)).toBe(true);
  });

  it("a flat picture moving as one plane fits one homography; two layers at different depths do not", () => {
    const flat = burstOf(scene(12, (k) => ({ dx: 0.35 * k, dy: 0.1 * k }), 1));
    expect(flat.parallax!.baseline_px).toBeGreaterThan(3);
    expect(flat.parallax!.residual_px).toBeLessThan(CAPTURE_BURST_THRESHOLDS.flatResidualPx);
    // The left half (far) moves a third as much as the right half (near): parallax.
    const deep = burstOf(scene(12, (k, x) => ({ dx: (x < 80 ? 0.12 : 0.45) * k, dy: 0 }), 1));
    expect(deep.parallax!.residual_px).toBeGreaterThan(2 * CAPTURE_BURST_THRESHOLDS.flatResidualPx);
  });

  // Probe of 2026-12-05: a still photo with only its levels ramped read as "the scene moved with depth".
  it("a change of level (exposure, or a ramp of levels on a still) is no motion, no change and no noise", () => {
    const frames = scene(12, () => ({ dx: 0, dy: 0 }), 0);
    const ramped = frames.map((f, k) => ({ ...f, luma: frames[0]!.luma.map((v) => v + 3 * (k - 6)), patch: frames[0]!.patch.map((v) => v + 3 * (k - 6)) }));
    const burst = burstOf(ramped);
    expect(burst).toMatchObject({ identical_pairs: 0, temporal_noise: 0, motion_px: 0, changed_fraction: 0 });
    expect(burst.parallax === null || burst.parallax.baseline_px < CAPTURE_BURST_THRESHOLDS.parallaxMinBaselinePx).toBe(true);
    // A live sensor's exposure change leaves its noise and its motion as they were.
    const live = scene(12, (k) => ({ dx: 0.4 * k, dy: 0.15 * k }), 2);
    const brighter = burstOf(live.map((f, k) => ({ ...f, luma: f.luma.map((v) => Math.min(255, v + 2 * k)), patch: f.patch.map((v) => Math.min(255, v + 2 * k)) })));
    const plain = burstOf(live);
    expect(Math.abs(brighter.temporal_noise - plain.temporal_noise)).toBeLessThan(0.15);
    expect(Math.abs(brighter.motion_px - plain.motion_px)).toBeLessThan(0.05);
  });

  // Probe of 2026-12-05: the photo moved by whole pixels with no noise read as a flat scene.
  it("native patches moved by whole pixels leave every textured pixel unchanged; a moving camera's do not", () => {
    const live = burstOf(scene(12, (k) => ({ dx: 0.4 * k, dy: 0.15 * k }), 2));
    expect(live.patch_still_share).toBeLessThan(0.3);
    const shifted = burstOf(scene(12, (k) => ({ dx: k / 4, dy: Math.round(k / 2) / 4 }), 0));
    expect(shifted.patch_still_share).toBe(1);
    expect(shifted.temporal_noise).toBe(0);
  });

  // capture-burst/9 (outside probe of 2026-12-06): a gain ramp multiplies the levels, so under /8,
  // which took out one common difference exactly, every edge changed and the patches read as live.
  it("a change of exposure (gain and offset) is taken out before the still share: a picture moved by whole pixels under a gain ramp leaves its edges; a camera's noise does not", () => {
    const exposed = (frames: Frame[], gain: (k: number) => number, offset = 0) =>
      frames.map((f, k) => ({ ...f, patch: f.patch.map((v) => Math.max(0, Math.min(255, Math.round(v * gain(k) + offset * k)))) }));
    const shifted = scene(12, (k) => ({ dx: k / 4, dy: Math.round(k / 2) / 4 }), 0);
    for (const [gain, offset] of [[(k: number) => 1 + 0.015 * k, 0], [(k: number) => 1 - 0.01 * k, 1.5]] as const) {
      expect(burstOf(exposed(shifted, gain, offset)).patch_still_share).toBeGreaterThanOrEqual(CAPTURE_BURST_THRESHOLDS.stillPatchesFrom);
    }
    // A camera whose exposure changes as fast still changes its edges: its noise is more than a rounding.
    const live = scene(12, (k) => ({ dx: 0.4 * k, dy: 0.15 * k }), 1);
    expect(burstOf(exposed(live, (k) => 1 + 0.015 * k)).patch_still_share).toBeLessThan(0.5);
    // Noise of σ 0.7 on a still picture: a dim camera on a tripod is not still.
    const quiet = scene(12, () => ({ dx: 0, dy: 0 }), 0.7);
    expect(burstOf(quiet).patch_still_share).toBeLessThan(CAPTURE_BURST_THRESHOLDS.stillPatchesFrom);
  });

  // capture-burst/8: the patches were aligned within ±8 px only; further apart, every edge read as noise.
  it("patches 12 px apart are aligned by the wider search: a camera's are measured, a picture moved by whole pixels leaves every edge", () => {
    const live = burstOf(scene(12, (k) => ({ dx: 3 * k + 0.3 * (k % 2), dy: 0.1 * k }), 2));
    expect(live).toMatchObject({ patch_pairs: 4, aligned_pairs: 4 });
    expect(live.patch_still_share).toBeLessThan(0.3);
    expect(live.temporal_noise).toBeGreaterThan(1);
    const shifted = burstOf(scene(12, (k) => ({ dx: 3 * k, dy: 0 }), 0));
    expect(shifted).toMatchObject({ patch_pairs: 4, aligned_pairs: 4, patch_still_share: 1, temporal_noise: 0 });
  });

  it("patches further apart than the search reaches, or showing different things, are not read for noise", () => {
    const far = scene(12, (k) => ({ dx: 5 * k, dy: 0 }), 2);
    expect(burstOf(far)).toMatchObject({ patch_pairs: 4, aligned_pairs: 0 });
    // Each patch a different recording's (gravel, leaves: texture at every scale), beside frames of one scene.
    const gravel = (seed: number) => {
      const r = rng(seed);
      const coarse = Float32Array.from({ length: 17 * 17 }, () => r() * 120);
      return Uint8Array.from({ length: PATCH_SIDE * PATCH_SIDE }, (_, i) => Math.round(60 + coarse[Math.floor(i / PATCH_SIDE / 4) * 17 + Math.floor((i % PATCH_SIDE) / 4)]! + r() * 10));
    };
    const unrelated = scene(12, (k) => ({ dx: 0.4 * k, dy: 0 }), 2).map((f, k) => ({ ...f, patch: gravel(40 + k) }));
    expect(burstOf(unrelated)).toMatchObject({ patch_pairs: 4, aligned_pairs: 0 });
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

describe("the burst the page picks around the shutter", () => {
  it("a 60 fps camera read frame by frame: at most 16 frames, thinned evenly, the span and the frames at the shutter kept", () => {
    const frames = Array.from({ length: 60 }, (_, i) => ({ t: i * 16.7, width: 4, height: 3, luma: new Uint8Array(12).fill(i) }));
    const burst = burstAround(frames, 600)!;
    expect(burst.length).toBeLessThanOrEqual(16);
    expect(burst.at(-1)!.t).toBeGreaterThan(600);
    expect(burst.at(-1)!.t - burst[0]!.t).toBeGreaterThanOrEqual(350);
    expect(burst.some((f) => Math.abs(f.t - 600) <= 50)).toBe(true);
    // At 30 fps nothing is dropped.
    const slow = Array.from({ length: 30 }, (_, i) => ({ t: i * 33.3, width: 4, height: 3, luma: new Uint8Array(12).fill(i) }));
    expect(burstAround(slow, 600)!.map((f) => f.t)).toEqual(slow.filter((f) => f.t >= 200 && f.t <= 600 + 33.4).map((f) => f.t));
  });
});

describe("depth from the capture burst (decision, capture-burst/12)", () => {
  it("without a record a live capture is not assessed, never assumed live", () => {
    expect(assessCaptureBurst({ record: null, burst: null, measures: null, agreement: null, patches: null, screenCue: null })).toMatchObject({ status: "not_assessed", reason: "no_capture_integrity" });
  });

  it("a made-up version 1 record (a hand-held phone over a 3-D scene, typed by a script) is a claim: not assessed, never verified", () => {
    // The record: 12 frames over 400 ms, temporal noise 1.4, parallax residual 0.9 px over 3 px, "Back Camera".
    const typed: CaptureIntegrityV1 = {
      schema_version: 1,
      device: PHONE,
      burst: { frames: 12, duration_ms: 400, width: 160, height: 120, identical_pairs: 0, repeated_frames: 0, temporal_noise: 1.4, changed_fraction: 0.5, motion_px: 1, parallax: { blocks: 40, baseline_px: 3, residual_px: 0.9 } },
      preview: { frames: 90, duration_ms: 3000, repeated_frames: 0 },
    };
    const depth = assessCaptureBurst({ record: typed, burst: null, measures: null, agreement: null, patches: null, screenCue: null });
    expect(depth).toMatchObject({ status: "not_assessed", reason: "no_burst_frames" });
    expect(codes(depth)).toEqual(["client_claim_only"]);
    const verdict = aggregateVerdict(["depth"], [{ capture_id: "cap_1", uploaded: false, signals: { depth } }]);
    expect(verdict).toMatchObject({ label: "suspicious", reason_code: "not_assessed", not_assessed: ["depth"] });
    // A claim that counts against the client still counts.
    const obs = assessCaptureBurst({ record: { ...typed, device: { ...PHONE, label: "OBS Virtual Camera" } }, burst: null, measures: null, agreement: null, patches: null, screenCue: null });
    expect(obs).toMatchObject({ source: "capture_burst", anomaly: true, confidence: 0.05 });
    expect(codes(obs)).toEqual(["virtual_camera"]);
  });

  it("a frozen stream renamed to an ordinary camera is an anomaly by the frames the service measured", () => {
    const result = assessCaptureBurst(findings(frozenScene()));
    expect(result).toMatchObject({ source: "capture_burst", anomaly: true, confidence: 0.05, provider: "capture-burst", method_version: "capture-burst/12" });
    expect(codes(result)).toContain("frozen_stream");
    expect(codes(result)).not.toContain("virtual_camera");
  });

  // capture-burst/5: the patches are not tied to the frames, so a script sent still frames with noisy
  // patches (probe of 2026-12-04); no genuine press of the footage or Debian's videos has reduced
  // frames that never change at all (docs/signals.md).
  it("reduced frames that never change at all are frozen, whatever noise the native patches carry", () => {
    const frames = scene(12, () => ({ dx: 0, dy: 0 }), 2);
    const still = frames.map((f) => ({ ...f, luma: frames[0]!.luma }));
    const f = findings(still);
    expect(f.measures!.identical_pairs).toBe(11);
    expect(f.measures!.temporal_noise).toBeGreaterThan(1);
    const result = assessCaptureBurst(f);
    expect(result).toMatchObject({ anomaly: true, confidence: 0.05 });
    expect(result.evidence).toContainEqual({ code: "frozen_stream", value: 11, detail: "the frames never changed at all" });
  });

  // capture-burst/6: three noiseless forged bursts of the probe of 2026-12-05 read verified under /5.
  it("noiseless forged bursts are anomalies: the photo moved by whole pixels, a ramp of levels, a blinking corner", () => {
    const moved = findings(scene(12, (k) => ({ dx: k / 4, dy: Math.round(k / 2) / 4 }), 0));
    expect(moved.measures!.patch_still_share).toBe(1);
    const shifted = assessCaptureBurst(moved);
    expect(shifted).toMatchObject({ anomaly: true, confidence: 0.05, method_version: "capture-burst/12" });
    expect(shifted.evidence).toContainEqual(expect.objectContaining({ code: "still_patches", value: 1 }));
    expect(codes(shifted)).not.toContain("frozen_stream");

    const frames = scene(12, () => ({ dx: 0, dy: 0 }), 0);
    const ramped = frames.map((f, k) => ({ ...f, luma: frames[0]!.luma.map((v) => v + 3 * (k - 6)), patch: frames[0]!.patch.map((v) => v + 3 * (k - 6)) }));
    const ramp = assessCaptureBurst(findings(ramped));
    expect(ramp).toMatchObject({ anomaly: true, confidence: 0.05 });
    expect(codes(ramp)).toContain("frozen_stream");
    expect(codes(ramp)).not.toContain("parallax");

    const blinking = frames.map((f, k) => {
      const luma = frames[0]!.luma.slice();
      for (let y = 0; y < 20; y += 1) luma.fill(20 + ((k * 53) % 211), y * 160, y * 160 + 20);
      return { ...f, luma, patch: frames[0]!.patch };
    });
    const corner = assessCaptureBurst(findings(blinking));
    expect(corner).toMatchObject({ anomaly: true, confidence: 0.05 });
    expect(codes(corner)).toContain("still_patches");
  });

  it("a preview the page says repeated itself is shown as its claim and decides nothing: numbers the client reports never do", () => {
    const result = assessCaptureBurst(findings(depthScene(), { record: v2(PHONE, 4) }));
    expect(result).toMatchObject({ anomaly: false });
    expect(codes(result)).toContain("repeated_frames_reported");
    // A repeat the service finds in the frames themselves does.
    const frames = depthScene();
    const looped = [...frames.slice(0, 8), frames[2]!, ...frames.slice(9)];
    expect(codes(assessCaptureBurst(findings(looped)))).toContain("repeated_frames");
  });

  it("a live scene with depth, its photo agreeing with the frames at the shutter, is clean with a confidence that says why", () => {
    const live = assessCaptureBurst(findings(depthScene()));
    expect(live).toMatchObject({ source: "capture_burst", anomaly: false });
    expect((live as { confidence: number }).confidence).toBeGreaterThan(0.7);
    expect((live as { method?: string }).method).toBeUndefined();
    expect(codes(live)).toEqual(["burst_photo_agreement", "burst_patch_agreement", "frame_chain", "sensor_noise", "camera_motion", "noise_correlation", "patch_still_share", "parallax"]);
  });

  it("one moving plane alone passes as a flat scene (a document, a wall, a distant street); with a screen cue it trips", () => {
    const flat = assessCaptureBurst(findings(planeScene()));
    expect(flat).toMatchObject({ source: "capture_burst", anomaly: false, method: FLAT_SCENE_METHOD });
    expect((flat as { confidence: number }).confidence).toBeLessThanOrEqual(CAPTURE_BURST_THRESHOLDS.flatSceneConfidence);
    expect((flat as { confidence: number }).confidence).toBeGreaterThanOrEqual(0.3);
    expect(codes(flat)).toContain("planar_motion");
    const screen = assessCaptureBurst(findings(planeScene(), { finding: { screenCue: { code: "screen_in_photo", value: 0.8 } } }));
    expect(screen).toMatchObject({ anomaly: true, confidence: 0.05 });
    expect(codes(screen)).toEqual(expect.arrayContaining(["flat_screen", "screen_in_photo", "planar_motion"]));
    // A screen cue with depth in the frames is the screen signal's to judge, not depth's.
    expect(assessCaptureBurst(findings(depthScene(), { finding: { screenCue: { code: "screen_in_photo", value: 0.8 } } }))).toMatchObject({ anomaly: false });
  });

  it("over a longer baseline the plane's resampling residual still reads flat, a genuine scene's share of it does not", () => {
    const withParallax = (residual_px: number, baseline_px: number) => {
      const frames = planeScene();
      return findings(frames, { measures: { ...burstOf(frames), parallax: { blocks: 40, baseline_px, residual_px } } });
    };
    // The browser suite's moving plane as Chromium resampled it (2026-11-27): 0.326 px over 4.83 px.
    expect(codes(assessCaptureBurst(withParallax(0.326, 4.83)))).toContain("planar_motion");
    // The lowest share any genuine press showed in the evaluation: 0.088 of its baseline.
    const genuine = assessCaptureBurst(withParallax(0.088 * 4.83, 4.83));
    expect(genuine).toMatchObject({ anomaly: false });
    expect(codes(genuine)).toContain("parallax");
  });

  it("noise added pixel by pixel to a moving picture (a forged burst) is white_noise; a camera's spread noise is not", () => {
    const camera = findings(planeScene());
    expect(camera.measures!.noise_correlation).toBeGreaterThan(0.3);
    expect(codes(assessCaptureBurst(camera))).not.toContain("white_noise");
    const forged = findings(scene(12, (k) => ({ dx: 0.35 * k, dy: 0.1 * k }), 2, 1, true));
    expect(forged.measures!.noise_correlation).toBeLessThan(0.1);
    const result = assessCaptureBurst(forged);
    expect(result).toMatchObject({ anomaly: true, confidence: 0.05 });
    expect(codes(result)).toContain("white_noise");
    // Faint white noise is white too (σ 0.4 through the page passed capture-burst/4, probe of 2026-12-04).
    const faint = findings(scene(12, () => ({ dx: 0, dy: 0 }), 0.4, 1, true));
    expect(faint.measures!.temporal_noise).toBeLessThan(0.5);
    expect(codes(assessCaptureBurst(faint))).toContain("white_noise");
    // Without noise to speak of (σ 0.01: about one flat pixel in a hundred changes, under 0.1 σ
    // both ways it is measured), its structure says nothing.
    const none = findings(scene(12, () => ({ dx: 0, dy: 0 }), 0.01, 1, true).map((f, k, all) => (k % 2 ? { ...f, luma: all[0]!.luma } : f)));
    expect(none.measures!.temporal_noise).toBeLessThan(CAPTURE_BURST_THRESHOLDS.whiteNoiseMin);
    expect(none.measures!.untrimmed_noise).toBeLessThan(CAPTURE_BURST_THRESHOLDS.whiteNoiseMin);
    expect(codes(assessCaptureBurst(none))).not.toContain("white_noise");
  });

  // capture-burst/7: the picture moved by whole pixels with ±1 added to one patch pixel in twelve
  // read verified under /6 (a flat scene): the changed edges kept the still share under 0.9, and the
  // trimmed noise measure took every change for an edge (temporal_noise 0).
  it("sparse noise added to the patches of a picture moved by whole pixels is white_noise", () => {
    const moved = scene(12, (k) => ({ dx: k / 4, dy: Math.round(k / 2) / 4 }), 0);
    const r = rng(77);
    const sparse = moved.map((f) => ({ ...f, patch: f.patch.map((v) => (r() < 1 / 12 ? Math.max(0, Math.min(255, v + (r() < 0.5 ? -1 : 1))) : v)) }));
    const measured = findings(sparse);
    expect(measured.measures!.temporal_noise).toBeLessThan(CAPTURE_BURST_THRESHOLDS.whiteNoiseMin);
    expect(measured.measures!.patch_still_share).toBeLessThan(CAPTURE_BURST_THRESHOLDS.stillPatchesFrom);
    expect(measured.measures!.untrimmed_noise).toBeGreaterThanOrEqual(CAPTURE_BURST_THRESHOLDS.whiteNoiseMin);
    const result = assessCaptureBurst(measured);
    expect(result).toMatchObject({ anomaly: true, confidence: 0.05 });
    expect(codes(result)).toContain("white_noise");
  });

  // capture-burst/7: a patch with too few flat pixels had no correlation measured, so sparse noise
  // on a finely textured picture moved by whole pixels passed; it is measured over the whole patch.
  it("a patch too textured for flat areas is measured whole: sparse noise on a picture moved by whole pixels is white_noise, a camera's sub-pixel motion is not", () => {
    const busy = texture(9);
    const side = PATCH_SIDE;
    const patchAt = (dx: number, dy: number, noise: (i: number) => number) =>
      Uint8Array.from({ length: side * side }, (_, i) => Math.max(0, Math.min(255, Math.round(128 + 3 * (busy(3 * ((i % side) + dx), 3 * (Math.floor(i / side) + dy)) - 128) + noise(i)))));
    const frames = scene(12, (k) => ({ dx: k / 4, dy: Math.round(k / 2) / 4 }), 0);
    const r = rng(91);
    const forged = frames.map((f, k) => ({ ...f, patch: patchAt(k, Math.round(k / 2), () => (r() < 1 / 12 ? (r() < 0.5 ? -1 : 1) : 0)) }));
    const fm = findings(forged);
    expect(fm.measures!.noise_correlation).not.toBeNull();
    expect(fm.measures!.noise_correlation).toBeLessThan(CAPTURE_BURST_THRESHOLDS.whiteNoiseBelow);
    expect(codes(assessCaptureBurst(fm))).toContain("white_noise");
    const camera = frames.map((f, k) => {
      const field = noiseField(side, side, 1.5, r);
      return { ...f, patch: patchAt(0.37 * k, 0.21 * k, (i) => field[Math.floor(i / side) * (side + 1) + (i % side)]!) };
    });
    const cm = findings(camera);
    expect(cm.measures!.noise_correlation).toBeGreaterThan(CAPTURE_BURST_THRESHOLDS.whiteNoiseBelow);
    expect(codes(assessCaptureBurst(cm))).not.toContain("white_noise");
  });

  it("a live sensor that barely moved (on a table) is clean: too little motion to judge depth", () => {
    const result = assessCaptureBurst(findings(scene(12, () => ({ dx: 0, dy: 0 }), 2)));
    expect(result).toMatchObject({ anomaly: false });
    expect(codes(result)).toContain("parallax_not_measured");
    expect((result as { confidence: number }).confidence).toBeGreaterThanOrEqual(0.3);
    // Certified as what it is: a live camera, nothing said of the scene's depth (probe of 2026-12-04).
    expect((result as { method?: string }).method).toBe(NO_PARALLAX_METHOD);
  });

  it("a burst too short to measure is not assessed, unless a claim already names a virtual camera", () => {
    const short = scene(3, (k) => ({ dx: k, dy: 0 }), 2);
    expect(assessCaptureBurst(findings(short))).toMatchObject({ status: "not_assessed", reason: "capture_burst_incomplete" });
    const obs = assessCaptureBurst(findings(short, { record: v2({ ...PHONE, label: "OBS Virtual Camera" }) }));
    expect(obs).toMatchObject({ source: "capture_burst", anomaly: true });
    expect(codes(obs)).toContain("virtual_camera");
  });

  it.each<[string, Partial<ReceivedBurst>, "anomaly" | "not_assessed", string]>([
    ["a nonce this service did not issue", { nonce: { ok: false, code: "burst_nonce_invalid", detail: "x" } }, "not_assessed", "burst_nonce_invalid"],
    ["a nonce issued more than 30 minutes before", { nonce: { ok: false, code: "burst_nonce_expired", detail: "x" } }, "not_assessed", "burst_nonce_expired"],
    ["a nonce another capture already carried", { nonceReusedBy: ["cap_1"] }, "anomaly", "burst_nonce_reused"],
    ["an attestation token bound to another burst", { attestationUnbound: { cdata: "other" } }, "anomaly", "attestation_not_bound"],
    ["frames the tenant's earlier capture already sent (a replay)", { replayOf: ["cap_0"] }, "anomaly", "burst_replayed"],
    ["strips that cannot be read back", { unreadable: "gone", frames: [], patches: [] }, "not_assessed", "burst_unreadable"],
  ])("%s: never a pass (%s, %s)", (_what, burst, outcome, code) => {
    const result = assessCaptureBurst(findings(depthScene(), { burst }));
    if (outcome === "anomaly") expect(result).toMatchObject({ source: "capture_burst", anomaly: true, confidence: 0.05 });
    else expect(result).toMatchObject({ status: "not_assessed", reason: code });
    expect(codes(result)).toContain(code);
  });

  it("a photo that does not agree with the frames at the shutter (real footage of another scene beside it) is an anomaly", () => {
    const mismatch = assessCaptureBurst(findings(depthScene(), { finding: { agreement: agreementOf(depthScene(), scene(12, () => ({ dx: 0, dy: 0 }), 2, 9)[0]!.luma) } }));
    expect(mismatch).toMatchObject({ anomaly: true });
    expect(codes(mismatch)).toContain("burst_photo_mismatch");
    const aspect = assessCaptureBurst(findings(depthScene(), { finding: { agreement: { measured: false, why: "aspect", detail: "photo 1000x1000" } } }));
    expect(codes(aspect)).toContain("burst_photo_mismatch");
    expect(assessCaptureBurst(findings(depthScene(), { finding: { agreement: { measured: false, why: "no_frame", detail: "x" } } }))).toMatchObject({ status: "not_assessed", reason: "burst_photo_unmatched" });
    // Too plain to compare (a white wall): not held against it, but never a pass either: frames of
    // another scene beside a plain photo passed (probe of 2026-12-04).
    const plain = assessCaptureBurst(findings(depthScene(), { finding: { agreement: { measured: false, why: "plain", detail: "x" } } }));
    expect(plain).toMatchObject({ status: "not_assessed", reason: "burst_photo_unmatched" });
    expect(codes(plain)).toContain("burst_photo_agreement_not_measured");
  });

  // Rung 4″ (found by reading the rules, outside probe of 2026-12-06; 4 of 216 caught under /9): another
  // recording's frames with the photo spliced in at the shutter, so the photo agrees with a frame there.
  it("a frame that does not continue its neighbours (the photo spliced into another recording) is an anomaly; a live scene's chain is shown", () => {
    const recording = depthScene();
    const photo = scene(12, (k) => ({ dx: 0.4 * k, dy: 0 }), 2, 9)[SHUTTER]!;
    const spliced = recording.map((f, i) => (i === SHUTTER ? { ...f, luma: photo.luma } : f));
    const result = assessCaptureBurst(findings(spliced));
    expect(result).toMatchObject({ anomaly: true, confidence: 0.05 });
    expect(codes(result)).toContain("burst_frames_discontinuous");
    const live = assessCaptureBurst(findings(recording));
    expect(live).toMatchObject({ anomaly: false });
    expect(codes(live)).toContain("frame_chain");
    expect(codes(live)).not.toContain("burst_frames_discontinuous");
    // The photo held over several frames (repeated, or to the end of the burst) is still entered from the recording.
    for (const frames of [[SHUTTER, SHUTTER + 1], [SHUTTER, SHUTTER + 1, SHUTTER + 2, SHUTTER + 3]]) {
      const held = recording.map((f, i) => (frames.includes(i) ? { ...f, luma: photo.luma } : f));
      expect(codes(assessCaptureBurst(findings(held)))).toContain("burst_frames_discontinuous");
    }
  });

  // capture-burst/12: until then every link of the burst was read, and a frame blanked on either side
  // of the spliced photo left only unmeasured links beside it (too plain to compare), so the photo
  // passed as continuing a recording it was never part of.
  it("a blank frame on either side of the photo does not hide its splice: a link beside the photo too plain to measure counts as broken", () => {
    const photo = scene(12, (k) => ({ dx: 0.4 * k, dy: 0 }), 2, 9)[SHUTTER]!;
    // Two different greys: the same one twice is a repeated frame.
    const blank = (level: number) => new Uint8Array(160 * 120).fill(level);
    const hidden = depthScene().map((f, i) => (i === SHUTTER ? { ...f, luma: photo.luma } : Math.abs(i - SHUTTER) === 1 ? { ...f, luma: blank(120 + i) } : f));
    const result = assessCaptureBurst(findings(hidden));
    expect(result).toMatchObject({ anomaly: true });
    expect(codes(result)).toContain("burst_frames_discontinuous");
  });

  // A plain wall: the photo's own frame too plain to link (std under 4) while the photo, a shade
  // more contrasted, still agrees with it. Its links are unmeasured for the photo's sake, not a
  // neighbour's: nothing is said, as before /12.
  it("a photo whose own frame is too plain to link is not read as spliced", () => {
    const faint = depthScene().map((f) => {
      const mean = f.luma.reduce((a, v) => a + v, 0) / f.luma.length;
      const std = Math.sqrt(f.luma.reduce((a, v) => a + (v - mean) ** 2, 0) / f.luma.length);
      return { ...f, luma: f.luma.map((v) => Math.round(128 + ((v - mean) * 3.5) / std)) };
    });
    const photo = faint[SHUTTER]!.luma.map((v) => Math.round(128 + (v - 128) * 1.3));
    const measures = burstOf(faint);
    expect(measures.plain_frames).toContain(SHUTTER);
    const result = assessCaptureBurst(findings(faint, { finding: { agreement: agreementOf(faint, photo) } }));
    expect(codes(result)).toContain("burst_photo_agreement");
    expect(codes(result)).not.toContain("burst_frames_discontinuous");
  });

  // capture-burst/12: at 10 fps a jerk of the hand between two frames breaks their link (footage made
  // three and four times as fast: 7 of 130 and 7 of 80 genuine presses read as spliced under /11).
  // Only the links beside the photo's frames are read: a break elsewhere splices nothing into the photo.
  it("a break between two frames away from the photo (a jerk of a slow camera) is not held against the capture", () => {
    const jerk = scene(12, (k, x) => ({ dx: (x < 80 ? 0.12 : 0.45) * k + (k >= 3 ? 40 : 0), dy: 0.05 * k + (k >= 3 ? 25 : 0) }), 2);
    const links = burstOf(jerk).frame_links;
    expect(links[2]).toBeLessThan(CAPTURE_BURST_THRESHOLDS.minFrameChain);
    const result = assessCaptureBurst(findings(jerk));
    expect(codes(result)).not.toContain("burst_frames_discontinuous");
    expect(codes(result)).toContain("frame_chain");
    expect(result).toMatchObject({ anomaly: false });
  });

  // Under /10 block motion searched ±4 px around no motion: a faster sweep matched no block, and its
  // frames, compared in place, read as spliced (links of 0.59 at 8 px a frame, 0.20 at 10).
  it("a camera sweeping further than the block search between frames still continues itself; a frame spliced into the sweep still breaks it", () => {
    for (const speed of [8, 10, 14]) {
      const sweep = scene(12, (k, x) => ({ dx: (x < 80 ? 0.9 : 1) * speed * k, dy: 0.5 * k }), 2);
      const measured = burstOf(sweep);
      expect(Math.min(...measured.frame_links.map((l) => l!))).toBeGreaterThan(0.9);
      expect(measured.motion_px).toBeGreaterThan(0.85 * speed);
      const result = assessCaptureBurst(findings(sweep));
      expect(codes(result)).not.toContain("burst_frames_discontinuous");
      expect(result).not.toMatchObject({ anomaly: true });
      const photo = scene(12, (k) => ({ dx: 0.4 * k, dy: 0 }), 2, 9)[SHUTTER]!;
      const spliced = sweep.map((f, i) => (i === SHUTTER ? { ...f, luma: photo.luma } : f));
      expect(burstOf(spliced).frame_links[SHUTTER]).toBeLessThan(CAPTURE_BURST_THRESHOLDS.minFrameChain);
      expect(codes(assessCaptureBurst(findings(spliced)))).toContain("burst_frames_discontinuous");
    }
  });

  it("patches that never line up leave the noise unmeasured: not assessed (burst_patches_unaligned), never a pass", () => {
    const result = assessCaptureBurst(findings(scene(12, (k) => ({ dx: 5 * k, dy: 0.1 * k }), 2)));
    expect(result).toMatchObject({ status: "not_assessed", reason: "burst_patches_unaligned" });
    expect(codes(result)).toContain("burst_patches_unaligned");
    expect(codes(result)).not.toContain("sensor_noise");
  });

  // capture-burst/9 (outside probe of 2026-12-06): one patch is no pair, and read as measured under /8.
  it("a single native patch leaves the noise unmeasured: not assessed (capture_burst_incomplete), never a pass, even beside a genuine scene's frames", () => {
    for (const frames of [depthScene(), scene(12, (k) => ({ dx: k / 4, dy: Math.round(k / 2) / 4 }), 0)]) {
      const single = frames.slice(-1).map((f) => f.patch);
      const result = assessCaptureBurst(findings(frames, { burst: { patches: single }, measures: measureBurst(frames, single) }));
      expect(result).toMatchObject({ status: "not_assessed", reason: "capture_burst_incomplete" });
      expect(codes(result)).toContain("capture_burst_incomplete");
      expect(codes(result)).not.toContain("sensor_noise");
      expect(codes(result)).not.toContain("burst_patches_unaligned");
    }
  });

  it("native patches that are not the photo's centre (a real camera's crops of another scene beside forged frames) are an anomaly", () => {
    const mismatch = assessCaptureBurst(findings(depthScene(), { finding: { patches: { measured: true, score: 0.31 } } }));
    expect(mismatch).toMatchObject({ anomaly: true, confidence: 0.05 });
    expect(codes(mismatch)).toContain("burst_patch_mismatch");
    const agreed = assessCaptureBurst(findings(depthScene()));
    expect(agreed).toMatchObject({ anomaly: false });
    expect(codes(agreed)).toContain("burst_patch_agreement");
    // A plain centre (a wall) ties nothing and counts against nothing: the burst is judged on the rest.
    const plain = assessCaptureBurst(findings(depthScene(), { finding: { patches: { measured: false, why: "plain", detail: "x" } } }));
    expect(plain).toMatchObject({ anomaly: false });
    expect(codes(plain)).toContain("burst_patch_agreement_not_measured");
    expect(CAPTURE_BURST_THRESHOLDS.minPatchAgreement).toBe(0.9);
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

  it("in the verdict a capture-burst anomaly is suspicious with depth_anomaly, and a record's absence keeps it from verified", () => {
    const depth = assessCaptureBurst(findings(frozenScene()));
    const tripped = aggregateVerdict(["depth"], [{ capture_id: "cap_1", uploaded: false, signals: { depth } }]);
    expect(tripped).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    const missing = aggregateVerdict(["depth"], [{ capture_id: "cap_1", uploaded: false, signals: { depth: assessCaptureBurst({ record: null, burst: null, measures: null, agreement: null, patches: null, screenCue: null }) } }]);
    expect(missing).toMatchObject({ label: "suspicious", reason_code: "not_assessed", not_assessed: ["depth"], signals: { depth: { status: "not_assessed", reason: "no_capture_integrity" } } });
    const flat = aggregateVerdict(["depth"], [{ capture_id: "cap_1", uploaded: false, signals: { depth: assessCaptureBurst(findings(planeScene())) } }]);
    expect(flat).toMatchObject({ label: "verified" });
  });
});
