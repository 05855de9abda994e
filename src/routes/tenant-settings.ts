import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { createDb } from "../db/client";
import { admitAiProviderSetting, readTenantSettings, updateTenantSettings, type TenantSettings } from "../domain/tenants/settings";
import type { AppEnv } from "../env";
import { configuredAiProviders } from "../providers/ai-detection";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pickErrors } from "../schemas/common";
import { TenantSettingsPatchSchema, TenantSettingsSchema } from "../schemas/tenant-settings";

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

function present(s: TenantSettings): z.infer<typeof TenantSettingsSchema> {
  return { display_name: s.displayName, retention_days: s.retentionDays, share_reuse_index: s.shareReuseIndex, ai_detection_provider: s.aiDetectionProvider };
}

const read = createRoute({
  method: "get",
  path: "/v1/tenant/settings",
  operationId: "getTenantSettings",
  tags: ["Tenant"],
  summary: "The tenant's settings",
  ...access({ session: "viewer" }),
  responses: { 200: jsonContent(TenantSettingsSchema, "The settings"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(read, async (c) => c.json(present(await readTenantSettings(createDb(c.env.DB), c.get("principal").tenantId)), 200));

const update = createRoute({
  method: "patch",
  path: "/v1/tenant/settings",
  operationId: "updateTenantSettings",
  tags: ["Tenant"],
  summary: "Change the tenant's settings",
  description:
    "Given fields change, the others stay; the audit log's `settings.updated` names the values that changed, and a PATCH that changes nothing records nothing. `display_name`: the organisation's name on the capture page, certificates and the console. " +
    "`retention_days` (1..3650, or null to keep everything): a daily run redacts the tenant's verifications created more than that many " +
    "days ago, exactly as `POST /v1/verifications/{id}/redact` does. `share_reuse_index` (default false): opt in to comparing captures with those of the " +
    "other tenants that opted in (reverse search's `shared_history`; docs/operations.md, privacy notes). `ai_detection_provider` (default null, this deployment's " +
    "choice): `none` sends this tenant's images to no AI-detection provider (provenance metadata decides), a provider's name sends them to that one; a name this " +
    "deployment does not configure (`GET /v1/capabilities`, `signals.ai.detection_providers`) is 400.",
  ...access({ session: "admin" }),
  request: { body: jsonBody(TenantSettingsPatchSchema, { display_name: "Acme Insurance", retention_days: 365 }) },
  responses: { 200: jsonContent(TenantSettingsSchema, "The settings now"), ...pickErrors(400, 401, 403, 404, 413, 500) },
});

app.openapi(update, async (c) => {
  const body = c.req.valid("json");
  const patch = {
    ...(body.display_name !== undefined ? { displayName: body.display_name } : {}),
    ...(body.retention_days !== undefined ? { retentionDays: body.retention_days } : {}),
    ...(body.share_reuse_index !== undefined ? { shareReuseIndex: body.share_reuse_index } : {}),
    ...(body.ai_detection_provider !== undefined ? { aiDetectionProvider: body.ai_detection_provider } : {}),
  };
  if (body.ai_detection_provider !== undefined) admitAiProviderSetting(body.ai_detection_provider, configuredAiProviders(c.env));
  const tenantId = c.get("principal").tenantId;
  const audit = (changed: Record<string, unknown>) => auditEntry(c, "settings.updated", { type: "tenant", id: tenantId }, { changed });
  return c.json(present(await updateTenantSettings(createDb(c.env.DB), tenantId, patch, audit)), 200);
});

export default app;
