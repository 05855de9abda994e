import type { CaptureIntegrity } from "../../schemas/capture-integrity";
import { clamp01, notAssessed, round2, type DepthResult, type Evidence, type NotAssessed } from "../evidence";

/*
 * The `depth` signal of a hosted-page capture, decided from its capture-integrity record: did the
 * frames around the shutter come from a camera looking at a real scene? A pure function of the
 * record (client-reported: a cue, never proof; docs/signals.md, "depth from the capture burst").
 */

export const CAPTURE_BURST_VERSION = "capture-burst/2";
export const CAPTURE_BURST_PROVIDER = "capture-burst";

/** Every threshold of the decision, in one place (docs/signals.md lists them with how they were chosen). */
export const CAPTURE_BURST_THRESHOLDS = {
  /** The burst must hold at least this many frames over at least this long to be measured at all. */
  minFrames: 5,
  minDurationMs: 300,
  /**
   * Frozen: the native patches carry no sensor noise, and the reduced frames are all identical or
   * neither move nor change. Below this temporal noise (σ, grey levels) there is none. An injected
   * still measures exactly 0 on all of them; a compressed genuine video can measure 0 noise where its
   * picture stands still (the encoder removed it), so noise alone never decides; a phone's denoiser
   * can make a still scene's reduced frames identical, so identical frames alone never decide either.
   */
  frozenNoiseBelow: 0.1,
  /** …and below this whole-frame motion (px of the reduced frame) the frames did not move. */
  frozenMotionBelow: 0.05,
  /** …and below this share of changed pixels nothing else in the frame changed either. */
  frozenChangedBelow: 0.002,
  /** Noise (σ) at which the frames count as fully noisy (for the confidence). */
  noiseFull: 1,
  /** Motion (px) at which the frames count as fully moving (for the confidence). */
  motionFull: 0.5,
  /**
   * Flatness: the burst's block motion must span at least this baseline (px of the 160 px frame)
   * before its fit to one homography says anything about depth; below it every scene fits a plane.
   */
  parallaxMinBaselinePx: 1.5,
  /** Fewer textured blocks than this and the parallax is not measured. */
  parallaxMinBlocks: 12,
  /**
   * Residual (px) at or below which the motion is that of one plane, and at which a scene counts as
   * clearly 3-D (for the confidence). Chosen with scripts/eval/capture-burst.ts --sweep (run of
   * 2026-11-27, with flatResidualPerBaseline below): at 0.3 px over a 1.5 px baseline no genuine
   * video's press read flat (0 of 213 with a parallax measured) and 138 of 144 presses over a photo
   * on a moving plane did; 0.2 px caught 118, 0.5 px 139; a 1 px baseline let one genuine press in.
   */
  flatResidualPx: 0.3,
  /**
   * …or, over a longer baseline, this share of it: resampling a moving plane leaves a residual that
   * grows with how far it moved (0.34 px over 8.4 px and 0.326 px over 4.83 px in Chromium's
   * pipeline, browser suite of 2026-11-27: the second read 3-D at 0.05), while no genuine press's
   * residual fell below 0.088 of its baseline (the lowest of 122 with a baseline ≥ 1.5 px, three
   * hand-held videos among them; --sweep, run of 2026-11-27). 0.08 is the largest share under it:
   * genuine 0 of 215 flat, the moving plane 139 of 144 (138 at 0.05).
   */
  flatResidualPerBaseline: 0.08,
  sceneResidualPx: 0.8,
  /**
   * Whether flatness alone trips `depth_anomaly`: yes, as measured on genuine videos (0 %, docs/signals.md);
   * but a genuine photo of a flat subject (a document, a wall) taken while the phone moves is flat
   * too, and only two hand-held videos were measured: a reviewer reads `planar_motion` as a reason to
   * look, never as proof (the trip is `suspicious` at most).
   */
  flatnessTrips: true,
} as const;

/** Virtual cameras by the label they give their device, and what each is. */
export const VIRTUAL_CAMERAS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: "OBS Virtual Camera", pattern: /\bobs(?:[- ]virtual[- ]?cam(?:era)?|-camera)\b/i },
  { name: "v4l2loopback", pattern: /dummy video device|v4l2[ _-]?loopback/i },
  { name: "ManyCam", pattern: /manycam/i },
  { name: "Snap Camera", pattern: /snap camera/i },
  { name: "XSplit VCam", pattern: /xsplit/i },
  { name: "Chromium's fake camera", pattern: /^fake_device_\d+$/i },
  { name: "a video file played as the camera", pattern: /\.(?:y4m|mjpe?g)$/i },
  { name: "DroidCam", pattern: /droidcam/i },
  { name: "Iriun Webcam", pattern: /iriun/i },
  { name: "EpocCam", pattern: /epoccam/i },
  { name: "e2eSoft VCam", pattern: /e2esoft|\bvcam\b/i },
  { name: "SplitCam", pattern: /splitcam/i },
  { name: "CyberLink YouCam", pattern: /youcam/i },
  { name: "CamTwist", pattern: /camtwist/i },
  { name: "NVIDIA Broadcast", pattern: /nvidia broadcast/i },
  { name: "mmhmm", pattern: /mmhmm/i },
  { name: "ChromaCam", pattern: /chromacam/i },
  { name: "vMix", pattern: /vmix/i },
  { name: "NDI Webcam", pattern: /\bndi\b/i },
  { name: "Streamlabs", pattern: /streamlabs/i },
  { name: "Unity Video Capture", pattern: /unity video capture/i },
  { name: "Webcamoid / akvcam", pattern: /webcamoid|akvcam/i },
  { name: "SparkoCam", pattern: /sparkocam/i },
  { name: "Logi Capture", pattern: /logi capture/i },
  { name: "a device named virtual", pattern: /virtual/i },
];

/** Which virtual camera a device label names, if any. */
export function virtualCameraOf(label: string | undefined): string | null {
  if (!label) return null;
  return VIRTUAL_CAMERAS.find((v) => v.pattern.test(label))?.name ?? null;
}

/** A result in the depth signal's shape. */
function result(confidence: number, anomaly: boolean, evidence: Evidence[]): DepthResult {
  return { source: "capture_burst", confidence: round2(confidence), anomaly, provider: CAPTURE_BURST_PROVIDER, method_version: CAPTURE_BURST_VERSION, evidence };
}

/**
 * The depth signal of a hosted-page live capture from its record. `confidence` is the confidence
 * that the frames came from a camera over a real scene. Without a record (a script posting to the
 * capture endpoint, or the camera-app fallback, which shows the page no stream) or with a burst too
 * short to measure, it is not assessed: never assumed live.
 */
export function assessCaptureBurst(record: CaptureIntegrity | null | undefined): DepthResult | NotAssessed {
  if (!record) return notAssessed("no_capture_integrity");
  const t = CAPTURE_BURST_THRESHOLDS;
  const { burst, preview, device } = record;
  const evidence: Evidence[] = [];

  const virtual = virtualCameraOf(device.label);
  if (virtual) evidence.push({ code: "virtual_camera", detail: virtual });
  const repeats = burst.repeated_frames + preview.repeated_frames;
  if (repeats > 0) evidence.push({ code: "repeated_frames", value: repeats, detail: "frames exactly equal to earlier ones: a looping clip" });
  const measured = burst.frames >= t.minFrames && burst.duration_ms >= t.minDurationMs;
  if (!measured) {
    if (evidence.length > 0) return result(0.05, true, evidence);
    return notAssessed("capture_burst_incomplete");
  }

  // No sensor noise, and either every frame the same or nothing moving or changing in them.
  const allIdentical = burst.identical_pairs >= burst.frames - 1;
  const still = burst.motion_px < t.frozenMotionBelow && burst.changed_fraction < t.frozenChangedBelow;
  const frozen = burst.temporal_noise < t.frozenNoiseBelow && (allIdentical || still);
  if (frozen) evidence.push({ code: "frozen_stream", value: burst.identical_pairs, detail: "no sensor noise and no motion between frames" });
  evidence.push({ code: "sensor_noise", value: round2(burst.temporal_noise) }, { code: "camera_motion", value: round2(burst.motion_px) });

  // What the motion says about depth, when it moved enough to say anything.
  let depthTerm = 0;
  let flat = false;
  const p = burst.parallax;
  if (p && p.blocks >= t.parallaxMinBlocks && p.baseline_px >= t.parallaxMinBaselinePx) {
    const flatBelow = Math.max(t.flatResidualPx, t.flatResidualPerBaseline * p.baseline_px);
    flat = p.residual_px <= flatBelow;
    depthTerm = clamp01((p.residual_px - flatBelow) / Math.max(0.1, t.sceneResidualPx - flatBelow));
    evidence.push({ code: flat ? "planar_motion" : "parallax", value: round2(p.residual_px), detail: `homography residual over ${p.blocks} blocks, baseline ${round2(p.baseline_px)} px` });
  } else {
    evidence.push({ code: "parallax_not_measured", detail: p ? `baseline ${round2(p.baseline_px)} px over ${p.blocks} blocks` : "too little texture" });
  }

  if (virtual || repeats > 0 || frozen) return result(0.05, true, evidence);
  // One moving plane: below the verdict's 0.25, so the verdict's {source, confidence} alone says it tripped.
  if (flat && t.flatnessTrips) return result(0.2, true, evidence);
  const confidence =
    0.3 + 0.25 * clamp01(burst.temporal_noise / t.noiseFull) + 0.2 * clamp01(burst.motion_px / t.motionFull) + 0.2 * depthTerm - (flat ? 0.1 : 0);
  // A clean burst never reads below 0.3: the verdict takes a depth confidence under 0.25 as an anomaly.
  return result(Math.min(0.95, Math.max(0.3, confidence)), false, evidence);
}
