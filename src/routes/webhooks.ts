import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { createDb } from "../db/client";
import { loadTenantRecord } from "../db/verifications";
import { attemptsOf, deliveriesOf } from "../db/webhooks";
import { retryDelivery } from "../domain/webhooks/deliveries";
import { presentDelivery } from "../domain/webhooks/present";
import { MAX_RETIRING_SECRETS, revealWebhookSecret, rotateWebhookSecret, type SecretView } from "../domain/webhooks/secrets";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { iso } from "../lib/time";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pathId, pickErrors } from "../schemas/common";
import { WebhookDeliveryListSchema, WebhookDeliverySchema, WebhookEventSchema, WebhookSecretSchema } from "../schemas/webhooks";

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const IdParam = (example: string) => z.object({ id: pathId("id", { example }) });

type Delivery = z.infer<typeof WebhookDeliverySchema>;

const list = createRoute({
  method: "get",
  path: "/v1/verifications/{id}/webhook-deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Webhooks"],
  summary: "Webhook deliveries of a verification, with every attempt",
  ...access({ apiKey: "full", session: "viewer" }),
  request: { params: IdParam("vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z") },
  responses: { 200: jsonContent(WebhookDeliveryListSchema, "Oldest first"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(list, async (c) => {
  const { id } = c.req.valid("param");
  const db = createDb(c.env.DB);
  const record = isId("verification", id) ? await loadTenantRecord(db, c.get("principal").tenantId, id) : null;
  if (!record) throw ApiError.notFound("verification");
  const deliveries = await deliveriesOf(db, id);
  return c.json({ items: deliveries.map((d) => presentDelivery(d, d.attemptLog) as Delivery) }, 200);
});

const retry = createRoute({
  method: "post",
  path: "/v1/webhook-deliveries/{id}/retry",
  operationId: "retryWebhookDelivery",
  tags: ["Webhooks"],
  summary: "Send a failed (or replay a delivered) webhook again, same id and body",
  description: "After a redaction the stored body's `data.object` is the redacted verification: a retry never sends erased data. `data.certificate` is the certificate served when the attempt is sent, not the one signed at the event.",
  ...access({ apiKey: "full", session: "admin" }),
  request: { params: IdParam("whd_01JD2Y4N9M6Q8R0S2T4V6W8X0Z") },
  responses: {
    200: jsonContent(WebhookDeliverySchema, "The delivery, pending again and queued"),
    ...pickErrors(401, 403, 404, 409, 500),
  },
});

app.openapi(retry, async (c) => {
  const { id } = c.req.valid("param");
  if (!isId("webhookDelivery", id)) throw ApiError.notFound("webhook delivery");
  const db = createDb(c.env.DB);
  const delivery = await retryDelivery(c.env, db, c.get("principal").tenantId, id, (before) =>
    auditEntry(c, "webhook_delivery.retried", { type: "webhook_delivery", id: before.id, label: before.eventType }, { verification_id: before.verificationId, status_before: before.status }),
  );
  return c.json(presentDelivery(delivery, await attemptsOf(db, id)) as Delivery, 200);
});

function presentSecret(s: SecretView): z.infer<typeof WebhookSecretSchema> {
  return { secret: s.secret, ...(s.previousExpiresAt !== null ? { previous_secret_expires_at: iso(s.previousExpiresAt) } : {}) };
}

const readSecret = createRoute({
  method: "get",
  path: "/v1/webhook-secret",
  operationId: "getWebhookSecret",
  tags: ["Webhooks"],
  summary: "Reveal the tenant's webhook signing secret",
  description: "Each call is recorded as `webhook_secret.revealed`: the console asks only when an operator presses Reveal.",
  ...access({ session: "admin" }),
  responses: { 200: jsonContent(WebhookSecretSchema, "The current secret"), ...pickErrors(401, 403, 500) },
});

app.openapi(readSecret, async (c) => {
  c.header("Cache-Control", "no-store");
  const tenantId = c.get("principal").tenantId;
  const secret = await revealWebhookSecret(createDb(c.env.DB), tenantId, auditEntry(c, "webhook_secret.revealed", { type: "tenant", id: tenantId }));
  return c.json(presentSecret(secret), 200);
});

const rotate = createRoute({
  method: "post",
  path: "/v1/webhook-secret/rotate",
  operationId: "rotateWebhookSecret",
  tags: ["Webhooks"],
  summary: "Rotate the webhook signing secret; the previous one keeps signing for 24 h",
  description:
    "The current secret is rotated out and signs every delivery for 24 h more (a `v1,` signature of its own), beside any rotated out earlier " +
    `whose 24 h are not over: a rotation never ends the window an earlier one answered. At most ${MAX_RETIRING_SECRETS} secrets rotated out sign at once; ` +
    "a rotation beyond is 429 `too_many_requests`, its `Retry-After` when the oldest stops.",
  ...access({ session: "admin" }),
  responses: { 200: jsonContent(WebhookSecretSchema, "The new secret"), ...pickErrors(401, 403, 429, 500) },
});

app.openapi(rotate, async (c) => {
  c.header("Cache-Control", "no-store");
  const tenantId = c.get("principal").tenantId;
  const secret = await rotateWebhookSecret(createDb(c.env.DB), tenantId, auditEntry(c, "webhook_secret.rotated", { type: "tenant", id: tenantId }));
  return c.json(presentSecret(secret), 200);
});

// The outbound request itself, in the document's `webhooks` section (OpenAPI 3.1).
app.openAPIRegistry.registerWebhook({
  method: "post",
  path: "verification-event",
  operationId: "verificationEvent",
  tags: ["Webhooks"],
  security: [{ webhookSignature: [] }],
  summary: "Sent to the verification's webhook_url (Standard Webhooks)",
  description:
    "Headers `webhook-id` (the event id, stable across retries), `webhook-timestamp` (unix seconds of the attempt) and " +
    "`webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>` per active secret, space-separated). " +
    "Answer 2xx within 10 s; otherwise it is retried with exponential backoff for about 3 days. Redirects are not followed.",
  request: {
    headers: z.object({ "webhook-id": z.string(), "webhook-timestamp": z.string(), "webhook-signature": z.string() }),
    body: jsonBody(WebhookEventSchema, {
      id: "evt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
      type: "verification.completed",
      created_at: "2026-11-22T10:04:12.000Z",
      data: {
        object: {
          id: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
          status: "completed",
          capture_url: "https://verify.example.com/c/vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
          created_at: "2026-11-22T10:00:00.000Z",
          expires_at: "2026-11-29T10:00:00.000Z",
          captures_count: 1,
          config: {
            max_captures: 1,
            steps: [{ key: "capture_1", type: "image", description: "", min: 1, max: 1 }],
            signals_required: ["screen", "ai", "reverse"],
          },
          captures: [{ id: "cap_01JD2Y5B7C9D1E3F5G7H9J1K3M", step_key: "capture_1", created_at: "2026-11-22T10:03:40.000Z" }],
          submitted_at: "2026-11-22T10:03:41.000Z",
          completed_at: "2026-11-22T10:04:12.000Z",
          verdict: {
            label: "verified",
            score: 0.93,
            signals: {
              screen_detection: { screen_detected: false, confidence: 0.91 },
              ai_detection: { label: "likely_human", confidence: 0.9, method: "provenance", evidence: [{ code: "c2pa_manifest_valid" }, { code: "c2pa_trusted_capture" }] },
              reverse_search: { found_online: false, match_count: 0 },
            },
            assessment: "complete",
            not_assessed: [],
          },
        },
      },
    }),
  },
  responses: { 200: { description: "Any 2xx acknowledges the event" } },
});

export default app;
