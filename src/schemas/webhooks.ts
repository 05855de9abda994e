import { z } from "@hono/zod-openapi";
import { DateTime, pageLimit } from "./common";
import { CertificateSchema } from "./certificates";
import { VerificationSchema } from "./verification";
import { WebhookUrlSchema } from "./verification-create";

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
      description: "Until then the secrets rotated out also sign every delivery (a `v1,` signature each; each stops 24 h after its own rotation, the last at this time).",
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
      "verification.case.analyzed",
      "verification.reviewed",
      "verification.redacted",
    ]),
    created_at: DateTime,
    data: z.object({ object: VerificationSchema, certificate: CertificateSchema.optional() }).openapi({
      description:
        "`object`: the Verification as the tenant sees it, answers included. `certificate`: from `verification.completed` on, the signed certificate served when the attempt is sent (what `GET /v1/verifications/{id}/certificate` answers then): on a retry after a review, finalize or redaction it certifies that later state, and it never has less than 3.5 days left.",
    }),
  })
  .openapi("WebhookEvent");

export const WebhookDeliveryPageSchema = z
  .object({ items: z.array(WebhookDeliverySchema), next_cursor: z.string().optional() })
  .openapi("WebhookDeliveryPage");

export const RecentDeliveriesQuerySchema = z.object({
  limit: pageLimit().optional(),
  cursor: z.string().max(512).optional(),
  status: z.enum(["pending", "succeeded", "failed"]).optional(),
});

export const WebhookTestRequestSchema = z
  .strictObject({
    url: WebhookUrlSchema.openapi({ description: "Where to send it: the same rules as a verification's `webhook_url` (https, a public host)." }),
  })
  .openapi("WebhookTestRequest");

/** The test event's body (documented in the OpenAPI `webhooks` section as `webhook-test`). */
export const WebhookTestEventSchema = z
  .object({
    id: z.string().openapi({ example: "evt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    type: z.literal("webhook.test"),
    created_at: DateTime,
    data: z.object({ object: z.object({ tenant_id: z.string(), message: z.string() }) }),
  })
  .openapi("WebhookTestEvent");

export const WebhookTestResultSchema = z
  .object({
    url: z.string(),
    event: WebhookTestEventSchema,
    delivered: z.boolean().openapi({ description: "The receiver answered 2xx within 10 s." }),
    status_code: z.int().optional().openapi({ description: "Absent when no HTTP response came back." }),
    error: z.string().optional(),
    latency_ms: z.int().min(0),
  })
  .openapi("WebhookTestResult");
