import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { createDb } from "../db/client";
import { presentTemplate } from "../domain/templates/present";
import type { AuditAction } from "../domain/audit/log";
import { findTemplate, listTemplates, mergeSpec, publishTemplate, revokeTemplate, specOf, updateTemplate, type TemplateAudit, type TemplateRow } from "../domain/templates/templates";
import { assertAssessable, signalDefaults } from "../domain/capabilities";
import { findTenant } from "../domain/tenants/tenants";
import { assertWebhookUrlAllowed } from "../domain/webhooks/url-guard";
import type { AppEnv } from "../env";
import { isLocalRequest, settings } from "../env";
import { ApiError, isStorageFailure } from "../lib/errors";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pickErrors } from "../schemas/common";
import {
  LinkTemplateListErrorSchema,
  LinkTemplateListSchema,
  LinkTemplateSchema,
  PublishLinkTemplateSchema,
  TemplateSlugParam,
  type TemplateSpec,
  UpdateLinkTemplateSchema,
} from "../schemas/link-templates";
import { log } from "../lib/log";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";

/** Link templates: publish, inspect, update (new version), revoke (full API key or session); list (session). */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
type Item = z.infer<typeof LinkTemplateSchema>;

async function present(env: Env, tenantId: string, rows: TemplateRow[]): Promise<Item[]> {
  const tenant = await findTenant(createDb(env.DB), tenantId);
  if (!tenant) throw new ApiError("unauthorized", "Authentication required.");
  const baseUrl = settings(env).baseUrl;
  const defaults = signalDefaults(env, "hosted_page");
  return rows.map((row) => presentTemplate(row, { baseUrl, orgSlug: tenant.slug, defaults }) as Item);
}

/** A template's link leads to the hosted capture page: what it requires must be assessable there (400 naming each field). */
function assertStartable(env: Env, spec: TemplateSpec): void {
  assertAssessable(env, spec, "hosted_page");
}

/** A template's publish (each version) or revoke, as the audit log records it. */
function templateAudit(c: Context<AppEnv>, action: AuditAction): TemplateAudit {
  return (row) => auditEntry(c, action, { type: "template", id: row.id, label: row.slug }, { version: row.version, name: row.name });
}

const publish = createRoute({
  method: "post",
  path: "/v1/link-templates",
  operationId: "publishLinkTemplate",
  tags: ["Link templates"],
  summary: "Publish a link template (version 1)",
  ...access({ apiKey: "full", session: "admin" }),
  request: {
    body: jsonBody(PublishLinkTemplateSchema, {
      slug: "roof-damage",
      name: "Roof damage claim",
      steps: [{ key: "roof", type: "image", description: "The damaged part of the roof", min: 1, max: 3 }],
      expected_object: "a house roof",
    }),
  },
  responses: { 201: jsonContent(LinkTemplateSchema, "The published template"), ...pickErrors(400, 401, 403, 413, 500, 503) },
});

app.openapi(publish, async (c) => {
  const { slug, name, mode, ...spec } = c.req.valid("json");
  const tenantId = c.get("principal").tenantId;
  // Checked here as at creation: a template with a private or unresolvable URL, or one requiring
  // what this deployment cannot assess on the hosted page, would otherwise fail every start.
  assertStartable(c.env, spec);
  if (spec.webhook_url) await assertWebhookUrlAllowed(c.env, spec.webhook_url, { local: isLocalRequest(c.env, c.req.url) });
  const row = await publishTemplate(createDb(c.env.DB), tenantId, { slug, name, mode: mode ?? "verification", spec }, Date.now(), templateAudit(c, "template.published"));
  const [item] = await present(c.env, tenantId, [row]);
  return c.json(item!, 201);
});

/** The spec's quirk of the list: its storage failure answers `{error: "storage_unavailable"}`, with `error` a plain string. */
const listStorageFailure = (c: Context<AppEnv>) => c.json({ error: "storage_unavailable" as const }, 503);

/**
 * The quirk holds wherever the request's storage fails, the session check included (it reads the
 * user and the membership from D1 before the handler runs): the error handler has already answered
 * with the standard body, which is replaced. Other errors of the session check (401, 403) keep it.
 */
const listQuirk = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.error && !(c.error instanceof ApiError) && isStorageFailure(c.error)) {
    c.res = undefined;
    c.res = listStorageFailure(c);
  }
});

const listAccess = access({ session: "viewer" });

const list = createRoute({
  method: "get",
  path: "/v1/link-templates",
  operationId: "listLinkTemplates",
  tags: ["Link templates"],
  summary: "List the tenant's link templates, newest first (dashboard session only)",
  description:
    "A storage failure answers 503 `{error: \"storage_unavailable\"}`: on this endpoint only, `error` is a plain string. " +
    "This holds wherever the storage fails, the session check included.",
  ...listAccess,
  middleware: [listQuirk, ...listAccess.middleware] as const,
  responses: {
    200: jsonContent(LinkTemplateListSchema, "The templates"),
    ...pickErrors(401, 500),
    503: jsonContent(LinkTemplateListErrorSchema, "Storage unavailable"),
  },
});

app.openapi(list, async (c) => {
  const tenantId = c.get("principal").tenantId;
  let items: Item[];
  try {
    items = await present(c.env, tenantId, await listTemplates(createDb(c.env.DB), tenantId));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    log.error({ msg: "link templates list failed", request_id: c.get("requestId"), error: String(err) });
    return listStorageFailure(c);
  }
  return c.json({ items }, 200);
});

const inspect = createRoute({
  method: "get",
  path: "/v1/link-templates/{slug}",
  operationId: "getLinkTemplate",
  tags: ["Link templates"],
  summary: "Inspect a link template (current version and live counters)",
  ...access({ apiKey: "full", session: "viewer" }),
  request: { params: TemplateSlugParam },
  responses: { 200: jsonContent(LinkTemplateSchema, "The template"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(inspect, async (c) => {
  const tenantId = c.get("principal").tenantId;
  const row = await findTemplate(createDb(c.env.DB), tenantId, c.req.valid("param").slug);
  if (!row) throw ApiError.notFound("link template");
  const [item] = await present(c.env, tenantId, [row]);
  return c.json(item!, 200);
});

const update = createRoute({
  method: "patch",
  path: "/v1/link-templates/{slug}",
  operationId: "updateLinkTemplate",
  tags: ["Link templates"],
  summary: "Update a link template: publishes a new version (the previous one is kept)",
  description:
    "Given fields replace the current ones (`steps` and `max_captures` replace each other); `null` clears an optional field. Verifications already started keep the version they were created from. " +
      "A patch that leaves the name, mode and spec as they are publishes nothing: 200 with the current version.",
  ...access({ apiKey: "full", session: "admin" }),
  request: { params: TemplateSlugParam, body: jsonBody(UpdateLinkTemplateSchema, { name: "Roof damage claim (2027)", expected_object: null }) },
  responses: { 200: jsonContent(LinkTemplateSchema, "The new version (the current one when nothing changed)"), ...pickErrors(400, 401, 403, 404, 409, 413, 500, 503) },
});

app.openapi(update, async (c) => {
  const tenantId = c.get("principal").tenantId;
  const { webhook_url } = c.req.valid("json");
  // The version this publishes must be startable: checked on the spec it merges into (one read before the update's own).
  const current = await findTemplate(createDb(c.env.DB), tenantId, c.req.valid("param").slug);
  if (current && current.status === "active") assertStartable(c.env, mergeSpec(specOf(current), c.req.valid("json")));
  if (webhook_url) await assertWebhookUrlAllowed(c.env, webhook_url, { local: isLocalRequest(c.env, c.req.url) });
  const row = await updateTemplate(createDb(c.env.DB), tenantId, c.req.valid("param").slug, c.req.valid("json"), Date.now(), templateAudit(c, "template.published"));
  const [item] = await present(c.env, tenantId, [row]);
  return c.json(item!, 200);
});

const revoke = createRoute({
  method: "post",
  path: "/v1/link-templates/{slug}/revoke",
  operationId: "revokeLinkTemplate",
  tags: ["Link templates"],
  summary: "Revoke a link template: its link answers 410 from now on (final; the slug stays reserved)",
  ...access({ apiKey: "full", session: "admin" }),
  request: { params: TemplateSlugParam },
  responses: { 200: jsonContent(LinkTemplateSchema, "The revoked template"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(revoke, async (c) => {
  const tenantId = c.get("principal").tenantId;
  const row = await revokeTemplate(createDb(c.env.DB), tenantId, c.req.valid("param").slug, Date.now(), templateAudit(c, "template.revoked"));
  const [item] = await present(c.env, tenantId, [row]);
  return c.json(item!, 200);
});

export default app;
