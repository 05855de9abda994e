import type { Agreement } from "../burst/agreement";
import { photoFrameChain } from "../burst/frame-chain";
import type { PatchAgreement } from "../burst/patch-agreement";
import type { BurstMeasures } from "../burst/measures";
import type { ReceivedBurst } from "../burst/received";
import type { CaptureIntegrity } from "../../schemas/capture-integrity";
import { clamp01, round2, type DepthResult, type Evidence, type NotAssessedReason } from "../evidence";

/*
 * The `depth` signal of a hosted-page live capture (CONTRACT.md, fifth release): did the frames
 * around the shutter come from a camera looking at a real scene, and do they belong to this photo?
 * Decided from what the service measured of the frames the capture page sent (analysis/burst/),
 * never from numbers the page reported: those are its claim and decide nothing. The one thing the
 * page says that counts is a virtual camera's name, and only against the capture: nobody forges a
 * cue against themselves. A pure function of its inputs (docs/signals.md, "`depth` from the
 * capture burst").
 */

export const CAPTURE_BURST_VERSION = "capture-burst/12";
export const CAPTURE_BURST_PROVIDER = "capture-burst";
/** The certificate's method for a burst that passed as one moving plane (a flat subject, or a scene far away). */
export const FLAT_SCENE_METHOD = "capture_burst_flat_scene";
/** …and for one that passed with too little motion (or texture) to judge depth: a live camera, nothing said of the scene. */
export const NO_PARALLAX_METHOD = "capture_burst_no_parallax";

/** Every threshold of the decision, in one place (docs/signals.md lists them with how they were chosen). */
export const CAPTURE_BURST_THRESHOLDS = {
  /** The burst must hold at least this many frames over at least this long to be measured at all. */
  minFrames: 5,
  minDurationMs: 300,
  /**
   * Frozen: the reduced frames are all identical, or the native patches carry no sensor noise and the
   * reduced frames neither move nor change. Below this temporal noise (σ, grey levels) there is none.
   * An injected still measures exactly 0 on all of them; a compressed genuine video can measure 0
   * noise where its picture stands still (the encoder removed it), so noise alone never decides.
   * Identical frames alone do (capture-burst/5): the patches are not tied to the frames, so noise in
   * them beside frames that never change was a script's (probe of 2026-12-04), and no genuine press
   * of the evaluations has reduced frames that never change.
   */
  frozenNoiseBelow: 0.1,
  /** …and below this whole-frame motion (px of the reduced frame) the frames did not move. */
  frozenMotionBelow: 0.05,
  /**
   * …and below this share of changed pixels nothing else in the frame changed either. Motion, changed
   * pixels and noise are all measured beyond the frames' common change of level (capture-burst/6:
   * a still photo with its levels ramped read as a scene with depth, probe of 2026-12-05).
   */
  frozenChangedBelow: 0.002,
  /**
   * Still patches: at least this share of the native patches' textured pixels unchanged between
   * consecutive patches once aligned and their change of exposure taken out (within 0.95 grey level
   * of a fitted gain and offset: capture-burst/9; exactly, beyond the median difference, under /8),
   * median over pairs, while the frames are not frozen.
   * A camera that moves changes every edge by sub-pixel motion and noise; a picture moved by whole
   * pixels, or patches held still beside changing frames, change none (probe of 2026-12-05: both read
   * verified under capture-burst/5). Chosen on the footage's training split (scripts/eval/capture-
   * footage/evaluate.ts --measures; docs/signals.md): no genuine hand-held press reaches 0.53 under
   * /9 (0.55 under /8); a compressed fixed camera's (no noise left, its centre still) can.
   */
  stillPatchesFrom: 0.9,
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
   * Residual (px) at or below which the motion is that of one plane, or this share of the baseline
   * over a longer one (resampling a moving plane leaves a residual that grows with how far it moved),
   * and the residual at which a scene counts as clearly 3-D (for the confidence). Chosen with
   * `npm run eval:capture -- --sweep` (docs/signals.md).
   */
  flatResidualPx: 0.3,
  flatResidualPerBaseline: 0.08,
  sceneResidualPx: 0.8,
  /**
   * The photo reduced to the burst's frame size must correlate at least this well with a frame at
   * the shutter (analysis/burst/agreement.ts). Chosen on genuine captures and mismatched pairs
   * (docs/signals.md, "The photo belongs to the burst").
   */
  minPhotoAgreement: 0.9,
  /**
   * The first native patch must correlate at least this well with the photo's centre (block
   * texture, analysis/burst/patch-agreement.ts): the page cuts both from one drawing. Chosen on the
   * Debian videos and the footage (scripts/eval/capture-burst.ts, capture-footage/evaluate.ts): every
   * genuine press whose centre has texture measures 0.998 or more; another video's patches sent
   * beside its photo at most 0.74 (capture-burst/8: under /7 such patches beside forged frames
   * passed, 0 of 144).
   */
  minPatchAgreement: 0.9,
  /**
   * The photo's frame must continue the frames beside it: it correlates at least this well with the
   * frame before and the frame after once each pair's shift is taken out (analysis/burst/frame-chain.ts,
   * `photoChain`), or the photo was spliced into another recording's frames (rung 4″,
   * capture-burst/10; every link of the burst was read until /12, and a slow camera's jerk between
   * any two frames read as a splice). Chosen between the genuine and the spliced: on the footage's
   * training split (capture-footage/evaluate.ts --measures) no genuine press's photo falls below
   * 0.699 (a fixed camera; hand-held 0.895), on Debian's videos 0.626, and Debian's presses with
   * another video's photo spliced in reach at most 0.360 (npm run eval:capture; docs/signals.md).
   */
  minFrameChain: 0.45,
  /**
   * White noise: noise between the native patches (at least `whiteNoiseMin` σ) whose pixels are
   * hardly correlated with their next neighbours (below `whiteNoiseBelow`) was added pixel by pixel
   * to a picture; a camera's pipeline spreads its noise (analysis/burst/measures.ts#noiseCorrelation).
   * Chosen on the Debian videos and the footage's training split (scripts/eval/noise-rules.ts sweeps;
   * docs/signals.md): 0.15 flags no genuine footage press of 266 and 3 of 216 Debian presses, all
   * one fixed webcam's (0.2 flags 5 footage presses; adding "near − far < 0" catches 99 % of the
   * warps instead of 86 %, and 2 footage presses more). From the frozen rule's 0.1 σ up
   * (capture-burst/5; 0.5 before, and σ 0.4 through the page passed): the sweep counts every press
   * whose correlation is measured, whatever its noise, and the figures did not move. The noise is
   * the larger of `temporal_noise` and `untrimmed_noise` (capture-burst/7: sparse noise, ±1 on one pixel
   * in twelve, read as none in the trimmed `temporal_noise`).
   */
  whiteNoiseMin: 0.1,
  whiteNoiseBelow: 0.15,
  /** A flat scene that passes reads at most this confident: one plane says nothing about depth. */
  flatSceneConfidence: 0.4,
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

/** What the analysis found of one live capture's burst (everything the decision reads). */
export interface LiveCaptureFindings {
  /** The stored capture-integrity record (null: the capture came without one). */
  record: CaptureIntegrity | null;
  /** A version 2 record's burst as received and checked (null for version 1). */
  burst: ReceivedBurst | null;
  /** What the service measured of the burst's frames (null: none to measure). */
  measures: BurstMeasures | null;
  /** The photo against the frames at the shutter (null: the photo's pixels could not be read). */
  agreement: Agreement | null;
  /** The first native patch against the photo's centre (null: the photo's pixels could not be read). */
  patches: PatchAgreement | null;
  /** A screen cue measured on the photo or the burst: what makes one moving plane an anomaly. */
  screenCue: Evidence | null;
}

/** The depth signal's not-assessed shape, with what was seen. */
export interface DepthNotAssessed {
  status: "not_assessed";
  reason: NotAssessedReason;
  evidence: Evidence[];
  provider: string;
  method_version: string;
}

function result(confidence: number, anomaly: boolean, evidence: Evidence[], method?: string): DepthResult {
  return {
    source: "capture_burst",
    confidence: round2(confidence),
    anomaly,
    provider: CAPTURE_BURST_PROVIDER,
    method_version: CAPTURE_BURST_VERSION,
    ...(method ? { method } : {}),
    evidence,
  };
}

function unassessed(reason: NotAssessedReason, evidence: Evidence[]): DepthNotAssessed {
  return { status: "not_assessed", reason, evidence, provider: CAPTURE_BURST_PROVIDER, method_version: CAPTURE_BURST_VERSION };
}

/**
 * What the page claimed: a virtual camera's name counts against the capture; the numbers it reported
 * (its preview's repeats) are shown to the reviewer as its claim and decide nothing (CONTRACT.md).
 */
function claims(record: CaptureIntegrity): { against: Evidence[]; noted: Evidence[] } {
  const virtual = virtualCameraOf(record.device.label);
  const repeats = record.preview.repeated_frames + (record.schema_version === 1 ? record.burst.repeated_frames : 0);
  return {
    against: virtual ? [{ code: "virtual_camera", detail: virtual }] : [],
    noted: repeats > 0 ? [{ code: "repeated_frames_reported", value: repeats, detail: "the page reported frames exactly equal to earlier ones (a looping clip?): a claim, not a check" }] : [],
  };
}

/** The burst's own integrity: the nonce, its single use, the attestation's binding, replays, and the photo's agreement with the frames and the patches. */
function integrity(burst: ReceivedBurst, agreement: Agreement | null, patches: PatchAgreement | null): { against: Evidence[]; unknown: Array<{ reason: NotAssessedReason; evidence: Evidence }>; seen: Evidence[] } {
  const against: Evidence[] = [];
  const unknown: Array<{ reason: NotAssessedReason; evidence: Evidence }> = [];
  const seen: Evidence[] = [];
  if (!burst.nonce.ok) unknown.push({ reason: burst.nonce.code, evidence: { code: burst.nonce.code, detail: burst.nonce.detail } });
  if (burst.nonceReusedBy.length > 0) against.push({ code: "burst_nonce_reused", detail: `also carried by ${burst.nonceReusedBy.join(", ")}` });
  if (burst.attestationUnbound) against.push({ code: "attestation_not_bound", detail: burst.attestationUnbound.cdata ? "the attestation token was issued for another burst" : "the attestation token carries no burst nonce" });
  if (burst.replayOf.length > 0) against.push({ code: "burst_replayed", value: burst.replayOf.length, detail: `frames already received with ${burst.replayOf.slice(0, 3).join(", ")}` });
  if (agreement) {
    if (agreement.measured) {
      const code = agreement.score >= CAPTURE_BURST_THRESHOLDS.minPhotoAgreement ? "burst_photo_agreement" : "burst_photo_mismatch";
      (code === "burst_photo_mismatch" ? against : seen).push({ code, value: agreement.score, detail: `frame at ${agreement.offsetMs} ms from the shutter` });
    } else if (agreement.why === "aspect") {
      against.push({ code: "burst_photo_mismatch", detail: agreement.detail });
    } else if (agreement.why === "no_frame") {
      unknown.push({ reason: "burst_photo_unmatched", evidence: { code: "burst_photo_unmatched", detail: agreement.detail } });
    } else {
      // Too plain to compare (a white wall): not held against it, but frames that cannot be tied to
      // the photo cannot pass for it either (frames of another scene would).
      unknown.push({ reason: "burst_photo_unmatched", evidence: { code: "burst_photo_agreement_not_measured", detail: agreement.detail } });
    }
  }
  if (patches?.measured && patches.score >= CAPTURE_BURST_THRESHOLDS.minPatchAgreement) {
    seen.push({ code: "burst_patch_agreement", value: patches.score });
  } else if (patches?.measured) {
    against.push({ code: "burst_patch_mismatch", value: patches.score, detail: "the first full-resolution crop is not the photo's centre: crops of another recording were sent beside it" });
  } else if (patches) {
    // A plain centre (a wall, the sky) ties nothing, and says nothing against the capture either.
    seen.push({ code: "burst_patch_agreement_not_measured", detail: patches.detail });
  }
  return { against, unknown, seen };
}

/**
 * How well the photo's frame continues the recording beside it (frame-chain.ts#photoFrameChain).
 * Null when the photo agrees with no frame (`burst_photo_mismatch` says so).
 */
export function photoChain(m: BurstMeasures, agreement: Agreement | null): number | null {
  if (!agreement?.measured || agreement.score < CAPTURE_BURST_THRESHOLDS.minPhotoAgreement) return null;
  return photoFrameChain(m.frame_links, m.plain_frames, agreement.frame);
}

/**
 * The depth signal of a hosted-page live capture. `confidence` is the confidence that the frames
 * came from a camera over a real scene. Anything that counts against the capture is an anomaly
 * (`suspicious` at most, in the verdict); anything that leaves it unknown is not assessed; neither
 * ever reads as a pass.
 */
export function assessCaptureBurst(f: LiveCaptureFindings): DepthResult | DepthNotAssessed {
  const t = CAPTURE_BURST_THRESHOLDS;
  if (!f.record) return unassessed("no_capture_integrity", []);
  const claimed = claims(f.record);
  const against = [...claimed.against];
  if (f.record.schema_version === 1 || !f.burst) {
    if (against.length > 0) return result(0.05, true, [...against, ...claimed.noted]);
    return unassessed("no_burst_frames", [{ code: "client_claim_only", detail: "the page sent its own measures, not the frames: a claim, not read for the signal" }, ...claimed.noted]);
  }
  const checks = integrity(f.burst, f.agreement, f.patches);
  against.push(...checks.against);
  const evidence: Evidence[] = [...checks.seen, ...claimed.noted];
  const unknown = [...checks.unknown];
  const m = f.measures;
  if (f.burst.unreadable || !m) {
    unknown.push({ reason: "burst_unreadable", evidence: { code: "burst_unreadable", detail: f.burst.unreadable ?? "no frames" } });
  } else if (m.frames < t.minFrames || m.duration_ms < t.minDurationMs) {
    unknown.push({ reason: "capture_burst_incomplete", evidence: { code: "capture_burst_incomplete", detail: `${m.frames} frames over ${m.duration_ms} ms` } });
  } else if (m.patch_pairs === 0) {
    // One native patch is no pair: no noise rule can run (capture-burst/9; under /8 it read as
    // measured, and a picture moved by whole pixels passed: outside probe of 2026-12-06).
    unknown.push({ reason: "capture_burst_incomplete", evidence: { code: "capture_burst_incomplete", detail: "one native patch: no pair to measure noise between" } });
  }

  let flat = false;
  let parallaxMeasured = false;
  let depthTerm = 0;
  // Patches that never line up carry no noise to read: every edge of the scene would pass for it.
  const patchesMeasured = m !== null && m.aligned_pairs > 0;
  if (m && !f.burst.unreadable && m.patch_pairs > 0 && !patchesMeasured) {
    unknown.push({ reason: "burst_patches_unaligned", evidence: { code: "burst_patches_unaligned", value: m.patch_pairs, detail: "no two consecutive native patches line up: they moved further apart than the search reaches, or show different things" } });
  }
  if (m && !f.burst.unreadable) {
    if (m.repeated_frames > 0) against.push({ code: "repeated_frames", value: m.repeated_frames, detail: "frames of the burst exactly equal to earlier ones: a looping clip" });
    const allIdentical = m.identical_pairs >= m.frames - 1;
    const still = m.motion_px < t.frozenMotionBelow && m.changed_fraction < t.frozenChangedBelow;
    // Reduced frames that never change at all are frozen whatever the native patches carry: the
    // patches are not tied to the frames, and noise added to them alone passed (probe of 2026-12-04).
    const frozen = m.frames >= 2 && (allIdentical || (m.temporal_noise < t.frozenNoiseBelow && still));
    if (frozen) {
      against.push({ code: "frozen_stream", value: m.identical_pairs, detail: allIdentical ? "the frames never changed at all" : "no sensor noise and no motion between frames" });
    } else if (m.patch_still_share !== null && m.patch_still_share >= t.stillPatchesFrom) {
      against.push({ code: "still_patches", value: round2(m.patch_still_share), detail: "the native patches' edges never changed while the frames did: a picture moved by whole pixels, or held still" });
    }
    const chain = photoChain(m, f.agreement);
    if (chain !== null && chain < t.minFrameChain) {
      against.push({ code: "burst_frames_discontinuous", value: round2(chain), detail: "the photo's frame does not continue the frames beside it: the photo was spliced into another recording" });
    } else if (chain !== null) {
      evidence.push({ code: "frame_chain", value: round2(chain) });
    }
    // Either spread of the noise counts: `temporal_noise` leaves out sparse noise (its largest fifth
    // of differences is taken for edges), `untrimmed_noise` counts every pixel it spans (capture-burst/7).
    const noise = Math.max(m.temporal_noise, m.untrimmed_noise ?? 0);
    if (noise >= t.whiteNoiseMin && m.noise_correlation !== null && m.noise_correlation < t.whiteNoiseBelow) {
      against.push({ code: "white_noise", value: round2(m.noise_correlation!), detail: "noise not spread over neighbouring pixels as a camera's is: added to a picture" });
    }
    if (patchesMeasured) evidence.push({ code: "sensor_noise", value: round2(m.temporal_noise) });
    evidence.push({ code: "camera_motion", value: round2(m.motion_px) });
    if (m.noise_correlation !== null) evidence.push({ code: "noise_correlation", value: round2(m.noise_correlation) });
    if (m.patch_still_share !== null) evidence.push({ code: "patch_still_share", value: round2(m.patch_still_share) });
    const p = m.parallax;
    if (p && p.blocks >= t.parallaxMinBlocks && p.baseline_px >= t.parallaxMinBaselinePx) {
      const flatBelow = Math.max(t.flatResidualPx, t.flatResidualPerBaseline * p.baseline_px);
      parallaxMeasured = true;
      flat = p.residual_px <= flatBelow;
      depthTerm = clamp01((p.residual_px - flatBelow) / Math.max(0.1, t.sceneResidualPx - flatBelow));
      evidence.push({
        code: flat ? "planar_motion" : "parallax",
        value: round2(p.residual_px),
        detail: `${flat ? "one moving plane (a flat subject, a scene far away, or a screen or print)" : "the scene moved with depth"}: homography residual over ${p.blocks} blocks, baseline ${round2(p.baseline_px)} px`,
      });
    } else {
      evidence.push({ code: "parallax_not_measured", detail: p ? `baseline ${round2(p.baseline_px)} px over ${p.blocks} blocks` : "too little texture" });
    }
  }
  // One moving plane is a question, not an answer: it trips only with a screen measured in the photo or the frames.
  if (flat && f.screenCue) against.push({ code: "flat_screen", detail: "one moving plane, and a screen cue" }, f.screenCue);

  if (against.length > 0) return result(0.05, true, [...against, ...evidence, ...unknown.map((u) => u.evidence)]);
  if (unknown.length > 0) return unassessed(unknown[0]!.reason, [...unknown.map((u) => u.evidence), ...evidence]);
  const confidence = 0.3 + 0.25 * clamp01(m!.temporal_noise / t.noiseFull) + 0.2 * clamp01(m!.motion_px / t.motionFull) + 0.2 * depthTerm;
  // A clean burst never reads below 0.3: the verdict takes a depth confidence under 0.25 as an anomaly.
  if (flat) return result(Math.min(t.flatSceneConfidence, Math.max(0.3, confidence)), false, evidence, FLAT_SCENE_METHOD);
  // Certificates must not word a burst that could not show depth as one that did (probe of 2026-12-04).
  return result(Math.min(0.95, Math.max(0.3, confidence)), false, evidence, parallaxMeasured ? undefined : NO_PARALLAX_METHOD);
}
