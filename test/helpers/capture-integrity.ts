import type { CaptureIntegrity } from "../../src/schemas/capture-integrity";

/*
 * Capture-integrity records as the capture page sends them. The genuine one carries the measures
 * the page's code took of a real hand-held phone video (imageio's cockatoo.mp4, the shutter at 1 s:
 * scripts/eval/capture-burst.ts), the device a phone's back camera.
 */
export const PHONE_DEVICE: CaptureIntegrity["device"] = {
  label: "Back Camera",
  kind: "videoinput",
  facing_mode: "environment",
  settings: { width: 1920, height: 1440, frame_rate: 30, aspect_ratio: 1.333, resize_mode: "none" },
  controls: ["exposureMode", "focusMode", "torch", "whiteBalanceMode", "zoom"],
};

export function genuineRecord(): CaptureIntegrity {
  return {
    schema_version: 1,
    device: PHONE_DEVICE,
    burst: {
      frames: 10,
      duration_ms: 450,
      width: 160,
      height: 120,
      identical_pairs: 0,
      repeated_frames: 0,
      temporal_noise: 2.654,
      changed_fraction: 0.619,
      motion_px: 2.826,
      parallax: { blocks: 24, baseline_px: 8.323, residual_px: 2.557 },
    },
    preview: { frames: 80, duration_ms: 3950, repeated_frames: 0 },
  };
}

/** A still photo through a virtual camera renamed "Back Camera": every frame of the burst identical. */
export function frozenRecord(label = "Back Camera"): CaptureIntegrity {
  return {
    schema_version: 1,
    device: { ...PHONE_DEVICE, label, controls: [] },
    burst: { frames: 13, duration_ms: 400, width: 160, height: 120, identical_pairs: 12, repeated_frames: 0, temporal_noise: 0, changed_fraction: 0, motion_px: 0, parallax: { blocks: 49, baseline_px: 0, residual_px: 0 } },
    preview: { frames: 60, duration_ms: 2000, repeated_frames: 0 },
  };
}
