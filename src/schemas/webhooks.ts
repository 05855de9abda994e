import { z } from "@hono/zod-openapi";
import { DateTime } from "./common";
import { VerificationSchema } from "./verification";

export const WebhookAttemptSchema = z
  .object({
    attempt: z.int().min(1),
    status_code: z.int().optional().openapi({ description: "Absent when no HTTP response came back (timeout, network error, refused URL)." }),
    latency_ms: z.int().min(0),
    error: z.string().optional(),
    attempted_at: DateTime,
    next_attempt_at: DateTime.optional().openapi({ description: "When the next attempt was scheduled; absent after the last one." }),
  })
  .openapi("WebhookAttempt");

export const WebhookDeliverySchema = z
  .object({
    id: z.string().openapi({ example: "whd_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    event_id: z.string().openapi({ description: "The `webhook-id` header and the body's `id` on every attempt.", example: "evt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    event_type: z.string().openapi({ example: "verification.completed" }),
    verification_id: z.string(),
    url: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    attempt_count: z.int().min(0),
    last_status_code: z.int().optional(),
    last_error: z.string().optional(),
    next_attempt_at: DateTime.optional(),
    delivered_at: DateTime.optional(),
    created_at: DateTime,
    updated_at: DateTime,
    attempts: z.array(WebhookAttemptSchema),
  })
  .openapi("WebhookDelivery");

export const WebhookDeliveryListSchema = z.object({ items: z.array(WebhookDeliverySchema) }).openapi("WebhookDeliveryList");

export const WebhookSecretSchema = z
  .object({
    secret: z.string().openapi({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
    previous_secret_expires_at: DateTime.optional().openapi({
      description: "Until then the previous secret also signs every delivery (a second `v1,` signature).",
    }),
  })
  .openapi("WebhookSecret");

/** The webhook request body (documented in the OpenAPI `webhooks` section). */
export const WebhookEventSchema = z
  .object({
    id: z.string().openapi({ example: "evt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    type: z.enum([
      "verification.created",
      "verification.capture.persisted",
      "verification.completed",
      "verification.expired",
      "verification.failed",
      "verification.case.completed",
      "verification.reviewed",
      "verification.redacted",
    ]),
    created_at: DateTime,
    data: z.object({ object: VerificationSchema }).openapi({ description: "`object`: the Verification as the tenant sees it, answers included." }),
  })
  .openapi("WebhookEvent");
