import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { access } from "../auth/access";
import { createDb } from "../db/client";
import { CAPTURE_FLOW_LIMITS, clientKey, CREATE_LIMITS, enforceLimit } from "../domain/public-limits";
import { tenants } from "../db/schema";
import { loadRecord, loadTenantRecord } from "../db/verifications";
import { listTimeline } from "../domain/verification/timeline";
import { signingKey } from "../lib/signing-keys";
import { presentPublic, presentVerification, type Audience } from "../model/verification/present";
import { assertPublishableMaySet, createVerification, listVerifications, presentCreated } from "../domain/verification/service";
import type { AppEnv } from "../env";
import { isLocalRequest, settings } from "../env";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { iso } from "../lib/time";
import { validationHook } from "../lib/validation";
import { IdempotencyHeaders, jsonBody, jsonContent, PageQuery, pathId, pickErrors } from "../schemas/common";
import {
  AuditEventSchema,
  ListQuerySchema,
  PublicVerificationSchema,
  VerificationListSchema,
  VerificationSchema,
} from "../schemas/verification";
import { CreateVerificationSchema } from "../schemas/verification-create";

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const IdParam = z.object({ id: pathId("id", { example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }) });

function audienceOf(kind: string): Audience {
  return kind === "session" ? "operator" : "tenant";
}

const create = createRoute({
  method: "post",
  path: "/v1/verifications",
  operationId: "createVerification",
  tags: ["Verifications"],
  summary: "Create a verification",
  description:
    "A publishable key may not set `webhook_url`, `notify_email`, `metadata` or `context` (403 `forbidden` naming the field). " +
    "Verifications with `notify_email` count against the tenant's daily cap (429 `too_many_requests` beyond it). " +
    "A publishable key (it ships inside apps) creates at most 60 verifications a minute per tenant, a full key 6000 (per Cloudflare location; 429 with `Retry-After` beyond).",
  ...access({ apiKey: "any", session: "reviewer" }),
  request: {
    headers: IdempotencyHeaders,
    body: jsonBody(CreateVerificationSchema, {
      steps: [
        { key: "front", type: "image", description: "Front of the car, whole plate visible", min: 1, max: 1 },
        { key: "odometer", type: "image", description: "The odometer", min: 1, max: 1 },
        { key: "plate", type: "text", description: "Licence plate number", required: true, validation: { max_length: 10, format: "alphanumeric_id" } },
      ],
      webhook_url: "https://example.com/hooks/verification",
      metadata: { claim_id: "CLM-20931" },
      expires_in_seconds: 86_400,
    }),
  },
  responses: {
    201: jsonContent(VerificationSchema, "The new verification, `capture_url` included"),
    ...pickErrors(400, 401, 403, 409, 413, 429, 500, 503),
  },
});

app.openapi(create, async (c) => {
  const principal = c.get("principal");
  const input = c.req.valid("json");
  if (principal.kind === "api_key" && principal.scope === "publishable") {
    assertPublishableMaySet(input);
    await enforceLimit(c.env, CREATE_LIMITS.publishableCreate, principal.tenantId);
  } else {
    await enforceLimit(c.env, CREATE_LIMITS.backendCreate, principal.tenantId);
  }
  const outcome = await createVerification(c.env, createDb(c.env.DB), {
    tenantId: principal.tenantId,
    input,
    idempotencyKey: c.req.valid("header")["idempotency-key"],
    idempotencyNamespace: principal.kind === "api_key" && principal.scope === "publishable" ? "publishable" : "backend",
    localRequest: isLocalRequest(c.env, c.req.url),
  });
  const created = presentCreated(outcome, { baseUrl: settings(c.env).baseUrl, audience: audienceOf(principal.kind) });
  if (created.replayed) c.header("Idempotent-Replayed", "true");
  return c.json(created.body as z.infer<typeof VerificationSchema>, 201);
});

const list = createRoute({
  method: "get",
  path: "/v1/verifications",
  operationId: "listVerifications",
  tags: ["Verifications"],
  summary: "List verifications, newest first",
  description:
    "Keyset pagination: pass the previous page's `next_cursor` as `cursor` (with the same filters) until it is absent. " +
    "Filters combine (AND): `status`, `verdict` (label), `assessed`, `template_id`, `has_review`, `created_gte`/`created_lt`, and the search `q`.",
  ...access({ apiKey: "full", session: "viewer" }),
  request: { query: ListQuerySchema },
  responses: { 200: jsonContent(VerificationListSchema, "One page"), ...pickErrors(400, 401, 403, 500) },
});

app.openapi(list, async (c) => {
  const principal = c.get("principal");
  const q = c.req.valid("query");
  const now = Date.now();
  const { records, nextCursor } = await listVerifications(c.env, createDb(c.env.DB), principal.tenantId, {
    limit: q.limit ?? 20,
    ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.verdict ? { verdict: q.verdict } : {}),
    ...(q.assessed !== undefined ? { assessed: q.assessed === "true" } : {}),
    ...(q.template_id ? { templateId: q.template_id } : {}),
    ...(q.q !== undefined ? { q: q.q } : {}),
    ...(q.has_review !== undefined ? { hasReview: q.has_review === "true" } : {}),
    ...(q.created_gte ? { createdGte: Date.parse(q.created_gte) } : {}),
    ...(q.created_lt ? { createdLt: Date.parse(q.created_lt) } : {}),
  }, now);
  const baseUrl = settings(c.env).baseUrl;
  const items = records.map((r) => presentVerification(r, { baseUrl, audience: audienceOf(principal.kind), now }));
  return c.json({ items, ...(nextCursor ? { next_cursor: nextCursor } : {}) } as z.infer<typeof VerificationListSchema>, 200);
});

const get = createRoute({
  method: "get",
  path: "/v1/verifications/{id}",
  operationId: "getVerification",
  tags: ["Verifications"],
  summary: "Fetch a verification",
  ...access({ apiKey: "full", session: "viewer" }),
  request: { params: IdParam },
  responses: { 200: jsonContent(VerificationSchema, "The verification"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(get, async (c) => {
  const principal = c.get("principal");
  const { id } = c.req.valid("param");
  const record = isId("verification", id) ? await loadTenantRecord(createDb(c.env.DB), principal.tenantId, id) : null;
  if (!record) throw ApiError.notFound("verification");
  const body = presentVerification(record, { baseUrl: settings(c.env).baseUrl, audience: audienceOf(principal.kind) });
  return c.json(body as z.infer<typeof VerificationSchema>, 200);
});

const publicView = createRoute({
  method: "get",
  path: "/v1/verifications/{id}/public",
  operationId: "getPublicVerification",
  tags: ["Verifications"],
  summary: "Share-safe projection (certificate page); no authentication",
  description: "Counted with `GET /v1/verify/{token}`: 60 requests per minute per client network (429).",
  security: [],
  request: { params: IdParam },
  responses: { 200: jsonContent(PublicVerificationSchema, "Verdict label only"), ...pickErrors(404, 429, 500) },
});

app.openapi(publicView, async (c) => {
  // The id is the capture link's credential: guessing it here costs what guessing it there does.
  await enforceLimit(c.env, CAPTURE_FLOW_LIMITS.captureRead, clientKey(c.req.header("CF-Connecting-IP")));
  const { id } = c.req.valid("param");
  const db = createDb(c.env.DB);
  const record = isId("verification", id) ? await loadRecord(db, id) : null;
  if (!record) throw ApiError.notFound("verification");
  const tenant = await db.select({ name: tenants.displayName }).from(tenants).where(eq(tenants.id, record.row.tenantId)).get();
  c.header("Cache-Control", "no-store");
  return c.json(presentPublic(record, tenant?.name ?? "") as z.infer<typeof PublicVerificationSchema>, 200);
});

const events = createRoute({
  method: "get",
  path: "/v1/verifications/{id}/events",
  operationId: "listVerificationEvents",
  tags: ["Verifications"],
  summary: "Audit timeline, oldest first",
  description:
    "Keyset-paginated: up to `limit` events (default and most 100), and `next_cursor` while more follow; pass it back as `cursor` for the next page. " +
    "A timeline is bounded by design: captures by `max_captures`, answers by at most 10 different values per text step (409 `answer_limit` after), abandonments by the first 10 (`verification.abandoned`, payload `abandonment`; later ones are counted, not recorded), the rest by the verification's own transitions.",
  ...access({ apiKey: "full", session: "viewer" }),
  request: { params: IdParam, query: PageQuery },
  responses: {
    200: jsonContent(
      z.object({
        events: z.array(AuditEventSchema),
        next_cursor: z.string().optional().openapi({ description: "Present while more events follow: pass it back as `cursor`." }),
      }),
      "One page of the timeline",
    ),
    ...pickErrors(400, 401, 403, 404, 500),
  },
});

app.openapi(events, async (c) => {
  const principal = c.get("principal");
  const { id } = c.req.valid("param");
  const query = c.req.valid("query");
  const db = createDb(c.env.DB);
  const record = isId("verification", id) ? await loadTenantRecord(db, principal.tenantId, id) : null;
  if (!record) throw ApiError.notFound("verification");
  const { rows, nextCursor } = await listTimeline(db, await signingKey(c.env, "cursors"), id, {
    limit: query.limit,
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
  });
  return c.json(
    {
      events: rows.map((e) => ({
        event_id: e.id,
        event_name: e.name,
        occurred_at: iso(e.occurredAt),
        ...(e.payload ? { payload: e.payload } : {}),
      })),
      ...(nextCursor ? { next_cursor: nextCursor } : {}),
    },
    200,
  );
});

export default app;
