import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { createDb } from "../db/client";
import type { AuditAction } from "../domain/audit/log";
import { checkDomainClaim, presentDomainState, readDomainState, removeDomain, startDomainClaim } from "../domain/tenants/domains";
import type { AppEnv } from "../env";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pickErrors } from "../schemas/common";
import { DomainClaimRequestSchema, TenantDomainSchema } from "../schemas/tenant-domain";

/* The tenant's domain, proved by a DNS TXT record (domain/tenants/domains.ts): the console's settings drive it. */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

type TenantDomain = z.infer<typeof TenantDomainSchema>;
const audit = (c: Context<AppEnv>, action: AuditAction) => (domain: string) =>
  auditEntry(c, action, { type: "tenant", id: c.get("principal").tenantId, label: domain }, { domain });

const read = createRoute({
  method: "get",
  path: "/v1/tenant/domain",
  operationId: "getTenantDomain",
  tags: ["Tenant"],
  summary: "The tenant's verified domain, and its pending claim",
  ...access({ session: "viewer" }),
  responses: { 200: jsonContent(TenantDomainSchema, "The domain and the claim (each absent when there is none)"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(read, async (c) => c.json(presentDomainState(await readDomainState(createDb(c.env.DB), c.get("principal").tenantId)) as TenantDomain, 200));

const claim = createRoute({
  method: "post",
  path: "/v1/tenant/domain/claim",
  operationId: "claimTenantDomain",
  tags: ["Tenant"],
  summary: "Start proving a domain: the TXT record to publish",
  description:
    "Answers the record to publish (`claim.record`: `_verification-service.<domain>` TXT `verification-service-domain=<token>`, a fresh random token each time), valid 7 days. " +
    "A new claim replaces the pending one (its record then proves nothing); a domain already verified stays until the new one is. " +
    "At most 10 claims per tenant per hour (429). Recorded as `domain.claimed`.",
  ...access({ session: "admin" }),
  request: { body: jsonBody(DomainClaimRequestSchema, { domain: "acme-insurance.example" }) },
  responses: { 201: jsonContent(TenantDomainSchema, "The claim, with the record to publish"), ...pickErrors(400, 401, 403, 404, 413, 429, 500) },
});

app.openapi(claim, async (c) => {
  const { domain } = c.req.valid("json");
  const state = await startDomainClaim(c.env, createDb(c.env.DB), { tenantId: c.get("principal").tenantId, domain, audit: audit(c, "domain.claimed") });
  return c.json(presentDomainState(state) as TenantDomain, 201);
});

const check = createRoute({
  method: "post",
  path: "/v1/tenant/domain/check",
  operationId: "checkTenantDomain",
  tags: ["Tenant"],
  summary: "Look up the pending claim's TXT record; found, the domain is verified",
  description:
    "Asks DNS over HTTPS for the record. Found with the claim's value: the domain becomes `verified_domain` (certificates and emails name the tenant by it) and the claim is spent; " +
    "recorded as `domain.verified`. 409 `invalid_state` when there is no claim, it expired, or the record does not hold the value (yet); " +
    "503 `storage_unavailable` when the resolver cannot be asked (nothing is verified; retry after `Retry-After`). At most 30 checks per tenant per 10 minutes (429). " +
    "The service looks at the record again every 6 hours and drops the domain once it is gone (`domain.dropped`).",
  ...access({ session: "admin" }),
  responses: { 200: jsonContent(TenantDomainSchema, "Verified"), ...pickErrors(401, 403, 404, 409, 429, 500, 503) },
});

app.openapi(check, async (c) => {
  const state = await checkDomainClaim(c.env, createDb(c.env.DB), { tenantId: c.get("principal").tenantId, audit: audit(c, "domain.verified") });
  return c.json(presentDomainState(state) as TenantDomain, 200);
});

const remove = createRoute({
  method: "delete",
  path: "/v1/tenant/domain",
  operationId: "removeTenantDomain",
  tags: ["Tenant"],
  summary: "Stop using the verified domain (and drop a pending claim)",
  description: "Certificates signed from then on name the tenant by its declared display name only. Recorded as `domain.removed` when a verified domain went; repeating is harmless.",
  ...access({ session: "admin" }),
  responses: { 200: jsonContent(TenantDomainSchema, "What is left (nothing)"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(remove, async (c) => {
  const state = await removeDomain(createDb(c.env.DB), { tenantId: c.get("principal").tenantId, audit: audit(c, "domain.removed") });
  return c.json(presentDomainState(state) as TenantDomain, 200);
});

export default app;
