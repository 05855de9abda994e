import { z } from "@hono/zod-openapi";

/*
 * The capture-integrity record (CONTRACT.md, "Decisions of the fourth release"): what the hosted
 * capture page saw of the camera and of a short burst of frames around the shutter, sent with each
 * live capture. Everything in it is client-reported: a cue, never proof. Every field is bounded so
 * the whole record stays under about 2 KB of JSON (docs/signals.md, "depth from the capture burst").
 */

const count = (max: number) => z.int().min(0).max(max);
const measure = (max: number) => z.number().min(0).max(max);

const SettingsSchema = z
  .strictObject({
    width: count(16_384).optional(),
    height: count(16_384).optional(),
    frame_rate: measure(1000).optional(),
    aspect_ratio: measure(100).optional(),
    resize_mode: z.string().max(32).optional(),
  })
  .openapi({ description: "The track's `getSettings()` as the browser reported them (no device or group id is sent)." });

const DeviceSchema = z
  .strictObject({
    label: z.string().max(256).optional().openapi({
      description:
        "The video device's label as the browser reports it (e.g. `Back Camera`, `camera2 0, facing back`, `OBS Virtual Camera`). It can name a person's device, so redaction removes it.",
    }),
    kind: z.string().min(1).max(32).openapi({ description: "The device's kind (`videoinput`) or, when the browser does not list it, the track's (`video`)." }),
    facing_mode: z.string().max(32).optional(),
    settings: SettingsSchema,
    controls: z
      .array(z.string().regex(/^[A-Za-z]{1,32}$/))
      .max(24)
      .openapi({ description: "The names of the controls the track offers (`getCapabilities()`), e.g. `focusMode`, `exposureMode`, `zoom`, `torch`." }),
  })
  .openapi("CaptureIntegrityDevice");

const ParallaxSchema = z
  .strictObject({
    blocks: count(1024).openapi({ description: "Textured blocks whose motion was measured between the burst's first and last frames." }),
    baseline_px: measure(1000).openapi({ description: "Their mean displacement, in pixels of the reduced frame." }),
    residual_px: measure(1000).openapi({
      description: "The RMS distance of their motion from the single homography that best explains it: about 0 for a flat screen or print, larger for a scene with depth.",
    }),
  })
  .openapi("CaptureIntegrityParallax");

const BurstSchema = z
  .strictObject({
    frames: count(120).openapi({ description: "Distinct video frames the page read around the shutter." }),
    duration_ms: measure(10_000).openapi({ description: "Time from the first to the last of them." }),
    width: count(1024).openapi({ description: "The reduced frame the page measured motion on (its longest side at most 160 px)." }),
    height: count(1024),
    identical_pairs: count(119).openapi({ description: "Consecutive reduced frames with exactly the same pixels." }),
    repeated_frames: count(120).openapi({ description: "Frames exactly equal to an earlier, non-adjacent frame of the burst (a looping clip)." }),
    temporal_noise: measure(255).openapi({
      description: "Noise between consecutive native-resolution patches of the picture's centre read just after the shutter, once aligned (σ, grey levels): 0 for an injected still.",
    }),
    changed_fraction: measure(1).openapi({ description: "Median share of the reduced frame's pixels that changed by more than 2 grey levels between consecutive frames." }),
    motion_px: measure(1000).openapi({ description: "Median motion of the whole frame between consecutive frames, in pixels of the reduced frame." }),
    parallax: ParallaxSchema.nullable().openapi({ description: "What the motion says about depth; null when too few blocks had texture to measure." }),
  })
  .openapi("CaptureIntegrityBurst");

const PreviewSchema = z
  .strictObject({
    frames: count(1_000_000).openapi({ description: "Frames the page fingerprinted while the preview ran." }),
    duration_ms: measure(86_400_000),
    repeated_frames: count(1_000_000).openapi({
      description: "Frames whose fingerprint equals one seen earlier, with different frames between (a looping clip repeats its frames exactly; a camera never does).",
    }),
  })
  .openapi("CaptureIntegrityPreview");

export const CaptureIntegritySchema = z
  .strictObject({
    schema_version: z.literal(1),
    device: DeviceSchema,
    burst: BurstSchema,
    preview: PreviewSchema,
  })
  .openapi("CaptureIntegrity", {
    description:
      "What the hosted capture page saw of the camera and of a burst of frames around the shutter, sent with a live capture. Client-reported: a cue, never proof. " +
      "On `hosted_page` verifications the `depth` signal is assessed from it (`source: capture_burst`).",
  });

export type CaptureIntegrity = z.infer<typeof CaptureIntegritySchema>;
