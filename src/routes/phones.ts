import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { sessionPrincipal } from "../auth/principal";
import { createDb } from "../db/client";
import { listPhones, MAX_PHONES_PER_TENANT, registerPhone, removePhone, type PhoneRow } from "../domain/accounts/phones";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { iso } from "../lib/time";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pickErrors } from "../schemas/common";
import { PhoneIdParam, PhoneListSchema, PhoneSchema, RegisterPhoneSchema } from "../schemas/phones";

/**
 * Operators register the phones whose messaging sign-in codes (`POST /v1/bot/otp`) may add a user to
 * their tenant. Dashboard session only; writes pass the same Origin check as every session write.
 */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const tags = ["Bot phones"];

function presentPhone(row: PhoneRow): z.infer<typeof PhoneSchema> {
  return {
    id: row.id,
    phone: row.phone,
    ...(row.label ? { label: row.label } : {}),
    registered_by: row.registeredBy,
    created_at: iso(row.createdAt),
  };
}

const phoneTarget = (row: PhoneRow) => ({ type: "phone", id: row.id, label: row.phone });

const register = createRoute({
  method: "post",
  path: "/v1/phones",
  operationId: "registerPhone",
  tags,
  summary: "Register a phone whose messaging sign-in codes may join this tenant",
  description:
    "A code the bot issues for it signs its person in to this tenant, joining it as a `reviewer` the first time (an admin may change the role; removing the member also removes this registration). " +
    "A number already registered for this tenant is 400 `invalid_request` (`fields.phone`). " +
    `A tenant holds at most ${MAX_PHONES_PER_TENANT} registrations: one more is 409 \`invalid_state\` until one is removed.`,
  ...access({ session: "admin" }),
  request: { body: jsonBody(RegisterPhoneSchema, { phone: "+447700900123", label: "Claims desk" }) },
  responses: { 201: jsonContent(PhoneSchema, "Registered"), ...pickErrors(400, 401, 403, 409, 413, 500) },
});

app.openapi(register, async (c) => {
  const principal = c.get("principal");
  const body = c.req.valid("json");
  const row = await registerPhone(createDb(c.env.DB), {
    tenantId: principal.tenantId,
    phone: body.phone,
    ...(body.label ? { label: body.label } : {}),
    registeredBy: sessionPrincipal(principal).userId,
    audit: (r) => auditEntry(c, "phone.registered", phoneTarget(r)),
  });
  return c.json(presentPhone(row), 201);
});

const list = createRoute({
  method: "get",
  path: "/v1/phones",
  operationId: "listPhones",
  tags,
  summary: "List the tenant's registered phones, newest first",
  description: `All of them in one answer: a tenant holds at most ${MAX_PHONES_PER_TENANT}.`,
  ...access({ session: "admin" }),
  responses: { 200: jsonContent(PhoneListSchema, "The registered phones"), ...pickErrors(401, 403, 500) },
});

app.openapi(list, async (c) => {
  const rows = await listPhones(createDb(c.env.DB), c.get("principal").tenantId);
  return c.json({ items: rows.map(presentPhone) }, 200);
});

const remove = createRoute({
  method: "delete",
  path: "/v1/phones/{id}",
  operationId: "removePhone",
  tags,
  summary: "Remove a registered phone",
  description:
    "No new code is issued for it, and codes already issued no longer sign in. Users who signed in with it keep their " +
    "account and current session. Answers the removed phone; unknown or another tenant's is 404.",
  ...access({ session: "admin" }),
  request: { params: PhoneIdParam },
  responses: { 200: jsonContent(PhoneSchema, "The removed phone"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(remove, async (c) => {
  const { id } = c.req.valid("param");
  const row = isId("phone", id) ? await removePhone(createDb(c.env.DB), c.get("principal").tenantId, id, (r) => auditEntry(c, "phone.removed", phoneTarget(r))) : undefined;
  if (!row) throw ApiError.notFound("phone");
  return c.json(presentPhone(row), 200);
});

export default app;
