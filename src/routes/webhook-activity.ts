import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { createDb } from "../db/client";
import { recentDeliveries } from "../db/webhooks";
import { presentDelivery } from "../domain/webhooks/present";
import { sendTestEvent } from "../domain/webhooks/test-event";
import type { AppEnv } from "../env";
import { isLocalRequest } from "../env";
import { issueCursor, readCursor } from "../lib/page-cursor";
import { signingKey } from "../lib/signing-keys";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pickErrors } from "../schemas/common";
import {
  RecentDeliveriesQuerySchema,
  WebhookDeliveryPageSchema,
  WebhookTestEventSchema,
  WebhookTestRequestSchema,
  WebhookTestResultSchema,
} from "../schemas/webhooks";

/** The tenant's webhook activity across verifications, and the "send test event" check. */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const CURSOR_PURPOSE = "delivery-cursor";

const recent = createRoute({
  method: "get",
  path: "/v1/webhook-deliveries",
  operationId: "listRecentWebhookDeliveries",
  tags: ["Webhooks"],
  summary: "Recent webhook deliveries across all verifications, newest first",
  description: "Keyset pagination: pass the previous page's `next_cursor` as `cursor` (with the same `status`) until it is absent.",
  ...access({ apiKey: "full", session: "viewer" }),
  request: { query: RecentDeliveriesQuerySchema },
  responses: { 200: jsonContent(WebhookDeliveryPageSchema, "One page, each delivery with its attempts"), ...pickErrors(400, 401, 403, 500) },
});

app.openapi(recent, async (c) => {
  const q = c.req.valid("query");
  const secret = await signingKey(c.env, "cursors");
  const query = { purpose: CURSOR_PURPOSE, tenantId: c.get("principal").tenantId, filters: { status: q.status } };
  const beforeId = q.cursor !== undefined ? await readCursor(secret, query, q.cursor) : undefined;
  const limit = q.limit ?? 20;
  const rows = await recentDeliveries(createDb(c.env.DB), c.get("principal").tenantId, {
    limit: limit + 1,
    ...(beforeId ? { beforeId } : {}),
    ...(q.status ? { status: q.status } : {}),
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > limit && last ? await issueCursor(secret, query, last.id) : undefined;
  const items = page.map((d) => presentDelivery(d, d.attemptLog)) as z.infer<typeof WebhookDeliveryPageSchema>["items"];
  return c.json({ items, ...(nextCursor ? { next_cursor: nextCursor } : {}) }, 200);
});

const test = createRoute({
  method: "post",
  path: "/v1/webhook-test",
  operationId: "sendWebhookTestEvent",
  tags: ["Webhooks"],
  summary: "Send a signed `webhook.test` event to a URL now, and see what it answered",
  description:
    "Signed like every delivery (Standard Webhooks, every active secret), sent once, neither retried nor stored. " +
    "The URL follows the `webhook_url` rules (https, a public host). At most 20 per tenant per 10 minutes (429 beyond).",
  ...access({ apiKey: "full", session: "admin" }),
  request: { body: jsonBody(WebhookTestRequestSchema, { url: "https://example.com/hooks/verification" }) },
  responses: {
    200: jsonContent(WebhookTestResultSchema, "The attempt: `delivered` when the receiver answered 2xx"),
    ...pickErrors(400, 401, 403, 413, 429, 500, 503),
  },
});

app.openapi(test, async (c) => {
  const { url } = c.req.valid("json");
  c.header("Cache-Control", "no-store");
  const result = await sendTestEvent(c.env, createDb(c.env.DB), c.get("principal").tenantId, url, { local: isLocalRequest(c.env, c.req.url) });
  return c.json(result, 200);
});

app.openAPIRegistry.registerWebhook({
  method: "post",
  path: "webhook-test",
  operationId: "webhookTestEvent",
  tags: ["Webhooks"],
  security: [{ webhookSignature: [] }],
  summary: "Sent by `POST /v1/webhook-test` only (type `webhook.test`): acknowledge it and change nothing",
  description: "Signed exactly as `verification-event`; `data.object` names the tenant and carries no verification.",
  request: {
    headers: z.object({ "webhook-id": z.string(), "webhook-timestamp": z.string(), "webhook-signature": z.string() }),
    body: jsonBody(WebhookTestEventSchema, {
      id: "evt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z",
      type: "webhook.test",
      created_at: "2026-11-22T10:04:12.000Z",
      data: { object: { tenant_id: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", message: "A test event sent from the dashboard or the API. It carries no verification." } },
    }),
  },
  responses: { 200: { description: "Any 2xx acknowledges the event" } },
});

export default app;
