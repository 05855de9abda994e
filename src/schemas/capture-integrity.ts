import { z } from "@hono/zod-openapi";
import { BURST_LIMITS } from "./burst-limits";
import { DateTime } from "./common";

/*
 * The capture-integrity record (CONTRACT.md, "Decisions of the fifth release"): what the hosted
 * capture page sends with each live capture. Version 2 carries the burst itself, the reduced video
 * frames around the shutter and native-resolution patches of their centre, as two greyscale PNG
 * film strips, with a nonce the service issued to the page: the service measures the frames itself
 * (analysis/burst/), and what the page reports (its device, its preview's counters) is kept as the
 * client's claim, which never decides a signal in the client's favour. Version 1 (measures the page
 * computed) is still accepted and served, as a claim only. Every field is bounded
 * (docs/signals.md, "`depth` from the capture burst").
 */

export { BURST_LIMITS };

const count = (max: number) => z.int().min(0).max(max);
const measure = (max: number) => z.number().min(0).max(max);
const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

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
  .openapi("CaptureIntegrityDevice", { description: "The camera as the browser described it: a claim of the client." });

const PreviewSchema = z
  .strictObject({
    frames: count(1_000_000).openapi({ description: "Frames the page fingerprinted while the preview ran." }),
    duration_ms: measure(86_400_000),
    repeated_frames: count(1_000_000).openapi({
      description: "Frames whose fingerprint equals one seen earlier, with different frames between (a looping clip repeats its frames exactly; a camera never does).",
    }),
  })
  .openapi("CaptureIntegrityPreview", { description: "What the page counted while its preview ran: a claim of the client, which can count against it only." });

// ---- Version 1: the page's own measures (a claim) ----

const ParallaxSchema = z
  .strictObject({
    blocks: count(1024).openapi({ description: "Textured blocks whose motion was measured between the burst's first and last frames." }),
    baseline_px: measure(1000).openapi({ description: "Their mean displacement, in pixels of the reduced frame." }),
    residual_px: measure(1000).openapi({ description: "The RMS distance of their motion from the single homography that best explains it." }),
  })
  .openapi("CaptureIntegrityParallax");

const BurstMeasuresSchema = z
  .strictObject({
    frames: count(120),
    duration_ms: measure(10_000),
    width: count(1024),
    height: count(1024),
    identical_pairs: count(119),
    repeated_frames: count(120),
    temporal_noise: measure(255),
    changed_fraction: measure(1),
    motion_px: measure(1000),
    parallax: ParallaxSchema.nullable(),
  })
  .openapi("CaptureIntegrityBurstMeasures", { description: "Version 1: measures the page computed of its burst. A claim: never read for a signal." });

export const CaptureIntegrityV1Schema = z
  .strictObject({
    schema_version: z.literal(1),
    device: DeviceSchema,
    burst: BurstMeasuresSchema,
    preview: PreviewSchema,
  })
  .openapi("CaptureIntegrityV1", {
    description:
      "The record of capture pages before the fifth release: the page's own measures of its burst. Accepted and served as the client's claim: `depth` reads not assessed (`no_burst_frames`), or `depth_anomaly` where the claim counts against the client (a virtual camera's name, repeated frames).",
  });

// ---- Version 2: the frames themselves ----

/** Milliseconds from the shutter press, strictly increasing. */
const FrameTimes = (min: number, max: number) =>
  z
    .array(z.number().min(-BURST_LIMITS.maxOffsetMs).max(BURST_LIMITS.maxOffsetMs))
    .min(min)
    .max(max)
    .refine((times) => times.every((t, i) => i === 0 || t > times[i - 1]!), "Must be strictly increasing.");

const strip = (maxBytes: number) =>
  z
    .string()
    .max(base64Length(maxBytes))
    .regex(BASE64, "Must be base64.")
    .openapi({ description: `A greyscale 8-bit PNG (base64, at most ${maxBytes} bytes decoded).` });

/** What the capture endpoint checks of a strip before storing it (domain/capture/burst.ts). */
const WHOLE_PNG = "Not interlaced, and whole: IHDR, image data (IDAT, no other chunk) and an empty IEND chunk that ends it, every chunk within the file (400 naming the field otherwise).";

const FramesRequestSchema = z
  .strictObject({
    width: z.int().min(BURST_LIMITS.frameMinSide).max(BURST_LIMITS.frameMaxSide).openapi({ description: "One reduced frame's width." }),
    height: z.int().min(BURST_LIMITS.frameMinSide).max(BURST_LIMITS.frameMaxSide),
    times_ms: FrameTimes(BURST_LIMITS.minFrames, BURST_LIMITS.maxFrames).openapi({
      description: "Each frame's time, in milliseconds from the shutter press (the frame on screen at the press is at 0). Its length is the frame count.",
    }),
    png_base64: strip(BURST_LIMITS.maxFramesBytes).openapi({
      description: `The frames, oldest first, stacked top to bottom in one greyscale 8-bit PNG of \`width\` × \`height\`·count pixels (base64, at most ${BURST_LIMITS.maxFramesBytes} bytes decoded). ${WHOLE_PNG}`,
    }),
  })
  .openapi("CaptureBurstFramesUpload");

const PatchesRequestSchema = z
  .strictObject({
    side: z.literal(BURST_LIMITS.patchSide).openapi({ description: "Each patch's side, in the camera's native pixels." }),
    times_ms: FrameTimes(BURST_LIMITS.minPatches, BURST_LIMITS.maxPatches).openapi({ description: "Each patch's frame time, from the shutter press; its length is the patch count." }),
    png_base64: strip(BURST_LIMITS.maxPatchesBytes).openapi({
      description: `The centre of consecutive frames at the camera's native resolution, stacked top to bottom in one greyscale 8-bit PNG of \`side\` × \`side\`·count pixels (at most ${BURST_LIMITS.maxPatchesBytes} bytes decoded). ${WHOLE_PNG}`,
    }),
  })
  .openapi("CaptureBurstPatchesUpload");

const Nonce = z
  .string()
  .min(16)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/)
  .openapi({ description: "The burst nonce the service issued to the page (`POST /v1/verifications/{token}/captures/burst-nonce`), once per capture." });

export const CaptureIntegrityUploadSchema = z
  .strictObject({
    schema_version: z.literal(2),
    nonce: Nonce,
    device: DeviceSchema,
    preview: PreviewSchema,
    frames: FramesRequestSchema,
    patches: PatchesRequestSchema,
  })
  .openapi("CaptureIntegrityUpload", {
    description:
      "What the hosted capture page sends with a live capture: the frames around the shutter, reduced and greyscale, and native-resolution patches of their centre, which the service measures itself; the nonce it issued for this capture; and the camera and preview as the page reported them (claims).",
  });

const StoredStrip = {
  sha256: z.string().length(64).openapi({ description: "SHA-256 of the PNG as received." }),
  bytes: z.int().min(0),
};

const FramesStoredSchema = z
  .strictObject({ width: z.int(), height: z.int(), count: z.int(), times_ms: z.array(z.number()), ...StoredStrip })
  .openapi("CaptureBurstFrames", { description: "The reduced frames the service received (the PNG itself is evidence: deleted with the capture)." });

const PatchesStoredSchema = z.strictObject({ side: z.int(), count: z.int(), times_ms: z.array(z.number()), ...StoredStrip }).openapi("CaptureBurstPatches");

export const CaptureIntegrityV2Schema = z
  .strictObject({
    schema_version: z.literal(2),
    nonce: z.string(),
    device: DeviceSchema,
    preview: PreviewSchema,
    frames: FramesStoredSchema,
    patches: PatchesStoredSchema,
  })
  .openapi("CaptureIntegrityV2", { description: "The burst as received: what the service measured is in the capture's `analysis.signals.depth`." });

/** What a capture request may carry. */
// Plain unions, not discriminated ones: OpenAPI's discriminator needs a string property, `schema_version` is a number.
export const CaptureIntegrityRequestSchema = z.union([CaptureIntegrityUploadSchema, CaptureIntegrityV1Schema]).openapi("CaptureIntegrityRequest", {
  description:
    "Sent by the hosted capture page with each live capture (version 2: the frames themselves). On a `hosted_page` verification the `depth` signal is decided from the frames the service measures; a live capture without them reads `depth` not assessed.",
});

/** What a capture stores and the evidence API serves. */
export const CaptureIntegritySchema = z.union([CaptureIntegrityV2Schema, CaptureIntegrityV1Schema]).openapi("CaptureIntegrity", {
  description: "The capture page's record as stored: version 2 describes the burst the service received and measured; version 1 is a claim of the page.",
});

export type CaptureIntegrityV1 = z.infer<typeof CaptureIntegrityV1Schema>;
export type CaptureIntegrityUpload = z.infer<typeof CaptureIntegrityUploadSchema>;
/** The record as the capture page's shutter leaves it: the nonce is asked for when the capture is sent. */
export type PendingIntegrity = Omit<CaptureIntegrityUpload, "nonce">;
export type CaptureIntegrityV2 = z.infer<typeof CaptureIntegrityV2Schema>;
export type CaptureIntegrityRequest = z.infer<typeof CaptureIntegrityRequestSchema>;
export type CaptureIntegrity = z.infer<typeof CaptureIntegritySchema>;
export type CaptureDevice = z.infer<typeof DeviceSchema>;
export type CapturePreview = z.infer<typeof PreviewSchema>;
export type BurstMeasuresV1 = z.infer<typeof BurstMeasuresSchema>;

/** The burst nonce the capture page asks for before a live capture. */
export const BurstNonceSchema = z
  .object({ nonce: Nonce, expires_at: DateTime })
  .openapi("BurstNonce", { description: "Carried in the next live capture's `capture_integrity.nonce`; valid for one capture until `expires_at`." });
