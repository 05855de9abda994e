import { z } from "@hono/zod-openapi";
import { CaptureIntegrityRequestSchema } from "./capture-integrity";
import { DateTime, DateTimeInput, prose } from "./common";
import { StepSchema } from "./steps";
import { STATUSES, VerificationSchema } from "./verification";

export const UploadUrlRequestSchema = z
  .strictObject({
    content_type: z.string().min(1).max(100),
    kind: z.enum(["image", "forensic_buffer"]).optional().openapi({ description: "Defaults to image." }),
  })
  .openapi("UploadUrlRequest");

export const UploadUrlResponseSchema = z
  .object({ upload_url: z.url(), image_key: z.string(), capture_id: z.string(), expires_at: DateTime })
  .openapi("UploadUrl");

export const UploadReceiptSchema = z
  .object({ image_key: z.string(), size_bytes: z.int(), sha256: z.string() })
  .openapi("UploadReceipt");

export const LocationSchema = z
  .strictObject({
    lat: z.number().min(-90).max(90),
    lng: z.number().min(-180).max(180),
    accuracy_m: z.number().min(0).max(1_000_000).optional(),
    is_mock: z.boolean().optional(),
  })
  .openapi("DeviceLocation");

/** Epoch milliseconds, or an RFC 3339 timestamp. */
const Timestamp = z.union([z.int().min(0).max(8_640_000_000_000_000), DateTimeInput]);

export const CaptureRequestSchema = z
  .strictObject({
    image_base64: z.string().optional().openapi({ description: "Inline shape: the image bytes, at most 6 MB decoded." }),
    image_key: z.string().min(1).max(512).optional().openapi({ description: "Key-reference shape: the `image_key` from upload-url." }),
    image_sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "Must be 64 hex characters.")
      .optional()
      .openapi({ description: "Key-reference shape: required with `image_key` (the SHA-256 of the bytes uploaded to it); refused with `image_base64`." }),
    step_key: z.string().min(1).max(64).optional(),
    surface: z.string().min(1).max(64).optional(),
    client_captured_at: Timestamp.optional(),
    attestation_token: z.string().min(1).max(4096).optional(),
    location: LocationSchema.optional(),
    forensic_buffer_key: z.string().min(1).max(512).optional(),
    capture_integrity: CaptureIntegrityRequestSchema.optional().openapi({
      description:
        "Sent by the hosted capture page with each live capture: the frames around the shutter (reduced, greyscale) and native patches of their centre, which the service measures, with the burst nonce it issued. " +
        "On a `hosted_page` verification the `depth` signal is decided from those frames; a live capture without them (no record, or a version 1 record of the page's own measures) reads `depth` not assessed.",
    }),
  })
  .superRefine((body, ctx) => {
    const inline = body.image_base64 !== undefined;
    const keyed = body.image_key !== undefined;
    if (inline === keyed) {
      ctx.addIssue({ code: "custom", path: [inline ? "image_key" : "image_base64"], message: "Send exactly one of image_base64 or image_key." });
    }
    if (keyed && body.image_sha256 === undefined) {
      ctx.addIssue({ code: "custom", path: ["image_sha256"], message: "Required with image_key." });
    }
    if (inline && body.image_sha256 !== undefined) {
      ctx.addIssue({ code: "custom", path: ["image_sha256"], message: "Only used with image_key." });
    }
  })
  .openapi("CaptureRequest", {
    description: "Exactly one shape: inline (`image_base64`, no `image_sha256`) or key reference (`image_key` with `image_sha256`).",
    // Each shape leaves the other's fields out (`not: {}`: present, the body fails that shape).
    oneOf: [
      { required: ["image_base64"], properties: { image_base64: { type: "string" }, image_key: { not: {} }, image_sha256: { not: {} } } },
      { required: ["image_key", "image_sha256"], properties: { image_key: { type: "string" }, image_sha256: { type: "string" }, image_base64: { not: {} } } },
    ],
  });
export type CaptureRequest = z.infer<typeof CaptureRequestSchema>;

export const AnswerRequestSchema = z
  .strictObject({
    step_key: z.string().min(1).max(64),
    value: prose(z.string().min(1).max(2000)).openapi({
      description: "The answer as typed. Lines and tabs are kept; other control characters and half a surrogate pair are refused (400). The step's `validation` applies on top.",
    }),
  })
  .openapi("AnswerRequest");

export const PROGRESS_STEPS = ["landing", "ready", "capturing", "reviewing", "uploading", "camera_blocked", "success"] as const;

export const ProgressRequestSchema = z
  .strictObject({
    schema_version: z.literal(1),
    kind: z.enum(["step_reached", "camera_permission", "abandoned"]),
    step: z.enum(PROGRESS_STEPS),
    elapsed_ms: z.int().min(0),
    step_index: z.int().min(0).optional(),
    camera_permission: z.enum(["granted", "denied", "unavailable", "unknown"]).optional(),
  })
  .openapi("ProgressReport");

// Each step as configured plus its progress: one flat object per type (the stored step's fields
// spread into a new object), not an intersection with the closed step schemas, which nothing satisfies.
const [ImageStep, TextStep, UploadStep] = StepSchema.options;
const VerifyStep = z.discriminatedUnion("type", [
  z.strictObject({ ...ImageStep.shape, captured: z.int().min(0) }).openapi("CaptureFlowImageStep"),
  z.strictObject({ ...TextStep.shape, answered: z.boolean() }).openapi("CaptureFlowTextStep"),
  z.strictObject({ ...UploadStep.shape, captured: z.int().min(0) }).openapi("CaptureFlowUploadStep"),
]);

export const VerifyViewSchema = z
  .object({
    id: z.string(),
    status: z.enum(STATUSES),
    expires_at: DateTime,
    tenant: z.object({ display_name: z.string() }),
    mode: z.enum(["verification", "audit"]),
    steps: z.array(VerifyStep),
    captures_count: z.int(),
    max_captures: z.int(),
    submitted: z.boolean(),
    ready_for_submit: z.boolean().openapi({
      description:
        "Whether `submit` would be taken now: the link is live, the verification is not finished, every evidence step holds its `min` and every required text step is answered (also with no capture at all: such a verification then ends `failed` with `failure_reason: no_evidence`). The capture page decides \"ready to send\" from this alone.",
    }),
    limits: z.object({ inline_max_bytes: z.int(), upload_url_ttl_seconds: z.int(), image_max_bytes: z.int() }),
    attestation: z.object({ site_key: z.string() }).optional(),
  })
  .openapi("CaptureFlowView");

/**
 * The Verification as the capture-flow mutations answer it: the end user's view, never the
 * tenant-private config (context, expectations, signals, metadata, webhook, email) or a verdict.
 */
export const CaptureVerificationSchema = VerificationSchema.pick({
  id: true,
  status: true,
  capture_url: true,
  created_at: true,
  expires_at: true,
  captures_count: true,
  answers: true,
  record_seal: true,
  submitted_at: true,
})
  .extend({
    config: z
      .object({ max_captures: z.int().min(1).max(20), steps: z.array(StepSchema), mode: z.enum(["verification", "audit"]).optional() })
      .openapi("CaptureConfig"),
    captures: z.array(z.object({ id: z.string(), step_key: z.string(), created_at: DateTime })),
  })
  .openapi("CaptureVerification");
