import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { createDb } from "../db/client";
import { loadTenantRecord } from "../db/verifications";
import { issueOtp } from "../domain/accounts/otp";
import { presentVerification } from "../model/verification/present";
import { createVerification, presentCreated } from "../domain/verification/service";
import type { AppEnv } from "../env";
import { isLocalRequest, settings } from "../env";
import { ApiError } from "../lib/errors";
import { iso } from "../lib/time";
import { validationHook } from "../lib/validation";
import { BotCreateVerificationSchema, BotLookupSchema, BotOtpRequestSchema, BotOtpSchema } from "../schemas/bot";
import { IdempotencyHeaders, jsonBody, jsonContent, pickErrors } from "../schemas/common";
import { VerificationSchema } from "../schemas/verification";

/**
 * The messaging bot's endpoints. Each request is signed (`X-Bot-Auth`, see auth/bot.ts) and names
 * the tenant it acts for in the body (`tenant_id`); the middleware checks both before validation.
 */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

const create = createRoute({
  method: "post",
  path: "/v1/bot/verifications",
  operationId: "botCreateVerification",
  tags: ["Messaging bot"],
  summary: "Create a verification for `tenant_id`",
  ...access({ bot: true }),
  request: {
    headers: IdempotencyHeaders,
    body: jsonBody(BotCreateVerificationSchema, { tenant_id: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", max_captures: 1 }),
  },
  responses: { 201: jsonContent(VerificationSchema, "The new verification"), ...pickErrors(400, 401, 404, 409, 413, 429, 500, 503) },
});

app.openapi(create, async (c) => {
  const { tenant_id: _tenant, ...input } = c.req.valid("json");
  const outcome = await createVerification(c.env, createDb(c.env.DB), {
    tenantId: c.get("principal").tenantId,
    input,
    idempotencyKey: c.req.valid("header")["idempotency-key"],
    idempotencyNamespace: "bot",
    localRequest: isLocalRequest(c.env, c.req.url),
  });
  const created = presentCreated(outcome, { baseUrl: settings(c.env).baseUrl, audience: "tenant" });
  if (created.replayed) c.header("Idempotent-Replayed", "true");
  return c.json(created.body as z.infer<typeof VerificationSchema>, 201);
});

const lookup = createRoute({
  method: "post",
  path: "/v1/bot/verifications/lookup",
  operationId: "botLookupVerification",
  tags: ["Messaging bot"],
  summary: "Fetch a verification of `tenant_id`",
  ...access({ bot: true }),
  request: { body: jsonBody(BotLookupSchema, { tenant_id: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", verification_id: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }) },
  responses: { 200: jsonContent(VerificationSchema, "The verification"), ...pickErrors(400, 401, 404, 413, 500) },
});

app.openapi(lookup, async (c) => {
  const { verification_id } = c.req.valid("json");
  const record = await loadTenantRecord(createDb(c.env.DB), c.get("principal").tenantId, verification_id);
  if (!record) throw ApiError.notFound("verification");
  const body = presentVerification(record, { baseUrl: settings(c.env).baseUrl, audience: "tenant" });
  return c.json(body as z.infer<typeof VerificationSchema>, 200);
});

const otp = createRoute({
  method: "post",
  path: "/v1/bot/otp",
  operationId: "botIssueOtp",
  tags: ["Messaging bot"],
  summary: "Issue a dashboard sign-in code for `phone` in `tenant_id` (the bot delivers it)",
  description:
    "Only for a phone an operator of the tenant registered (`POST /v1/phones`); any other number is 403 `forbidden`. " +
    "Several tenants may register the same number: each code signs in to the tenant it was issued for (joining it as a reviewer the first time). " +
    "The code is redeemed with `POST /v1/auth/otp/verify`.",
  ...access({ bot: true }),
  request: { body: jsonBody(BotOtpRequestSchema, { tenant_id: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", phone: "+447700900123" }) },
  responses: { 201: jsonContent(BotOtpSchema, "The code to deliver"), ...pickErrors(400, 401, 403, 404, 413, 500) },
});

app.openapi(otp, async (c) => {
  const { phone } = c.req.valid("json");
  const issued = await issueOtp(c.env, createDb(c.env.DB), { tenantId: c.get("principal").tenantId, phone });
  c.header("Cache-Control", "no-store");
  return c.json({ otp_id: issued.id, code: issued.code, expires_at: iso(issued.expiresAt) }, 201);
});

export default app;
