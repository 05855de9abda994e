import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { createDb } from "../db/client";
import { findApiKey, listApiKeys, mintApiKey, revokeApiKey, type ApiKeyRow } from "../domain/tenants/api-keys";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { iso } from "../lib/time";
import { validationHook } from "../lib/validation";
import { ApiKeyIdParam, ApiKeyListSchema, ApiKeySchema, MintApiKeySchema, MintedApiKeySchema } from "../schemas/api-keys";
import { jsonBody, jsonContent, pickErrors } from "../schemas/common";

/** Operators manage their tenant's API keys from the dashboard (session cookie only). */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

function presentKey(row: ApiKeyRow): z.infer<typeof ApiKeySchema> {
  return {
    id: row.id,
    ...(row.name ? { name: row.name } : {}),
    scope: row.scope,
    environment: row.environment,
    prefix: row.keyPrefix,
    created_at: iso(row.createdAt),
    ...(row.lastUsedAt !== null ? { last_used_at: iso(row.lastUsedAt) } : {}),
    ...(row.revokedAt !== null ? { revoked_at: iso(row.revokedAt) } : {}),
  };
}

const keyTarget = (row: ApiKeyRow) => ({ type: "api_key", id: row.id, label: row.name ?? row.keyPrefix });

const mint = createRoute({
  method: "post",
  path: "/v1/api-keys",
  operationId: "createApiKey",
  tags: ["API keys"],
  summary: "Mint an API key (the plaintext is in this response only)",
  ...access({ session: "admin" }),
  request: { body: jsonBody(MintApiKeySchema, { scope: "full", name: "Production back-end" }) },
  responses: { 201: jsonContent(MintedApiKeySchema, "The new key, plaintext included once"), ...pickErrors(400, 401, 403, 413, 500) },
});

app.openapi(mint, async (c) => {
  const body = c.req.valid("json");
  const { row, plaintext } = await mintApiKey(createDb(c.env.DB), {
    tenantId: c.get("principal").tenantId,
    environment: settings(c.env).keyEnvironment,
    scope: body.scope,
    ...(body.name ? { name: body.name } : {}),
    audit: (row) => auditEntry(c, "api_key.created", keyTarget(row), { scope: row.scope }),
  });
  c.header("Cache-Control", "no-store");
  return c.json({ ...presentKey(row), key: plaintext }, 201);
});

const list = createRoute({
  method: "get",
  path: "/v1/api-keys",
  operationId: "listApiKeys",
  tags: ["API keys"],
  summary: "List the tenant's API keys (revoked ones included), newest first",
  ...access({ session: "admin" }),
  responses: { 200: jsonContent(ApiKeyListSchema, "The keys, never their plaintext"), ...pickErrors(401, 403, 500) },
});

app.openapi(list, async (c) => {
  const rows = await listApiKeys(createDb(c.env.DB), c.get("principal").tenantId);
  return c.json({ items: rows.map(presentKey) }, 200);
});

const revoke = createRoute({
  method: "delete",
  path: "/v1/api-keys/{id}",
  operationId: "revokeApiKey",
  tags: ["API keys"],
  summary: "Revoke an API key (immediately refused afterwards; repeating the call is harmless)",
  ...access({ session: "admin" }),
  request: { params: ApiKeyIdParam },
  responses: { 200: jsonContent(ApiKeySchema, "The revoked key"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(revoke, async (c) => {
  const { id } = c.req.valid("param");
  const tenantId = c.get("principal").tenantId;
  const db = createDb(c.env.DB);
  if (!isId("apiKey", id)) throw ApiError.notFound("API key");
  const before = await findApiKey(db, tenantId, id);
  if (!before) throw ApiError.notFound("API key");
  await revokeApiKey(db, tenantId, id, auditEntry(c, "api_key.revoked", keyTarget(before), { scope: before.scope }));
  const row = await findApiKey(db, tenantId, id);
  if (!row) throw ApiError.notFound("API key");
  return c.json(presentKey(row), 200);
});

export default app;
