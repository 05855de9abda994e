import type { Context } from "hono";
import type { AuditAction, AuditActor, AuditClient, AuditEntry } from "../domain/audit/log";
import type { AppEnv } from "../env";
import type { Principal } from "./principal";

/** The request's client as the audit log keeps it: its address (`CF-Connecting-IP`) and user agent. */
export function auditClient(c: Context<AppEnv>): AuditClient {
  return { ip: c.req.header("CF-Connecting-IP") ?? null, userAgent: c.req.header("User-Agent") ?? null };
}

/** A member or an API key; the bot acts for tenants on no audited route. */
export function auditActor(principal: Principal): AuditActor {
  if (principal.kind === "session") return { type: "user", id: principal.userId, label: principal.label };
  if (principal.kind === "api_key") return { type: "api_key", id: principal.keyId, label: principal.name };
  throw new Error("the bot reached an audited action");
}

/** The audit entry of an action the authenticated caller takes in their tenant. */
export function auditEntry(c: Context<AppEnv>, action: AuditAction, target: AuditEntry["target"], details?: Record<string, unknown>): AuditEntry {
  const principal = c.get("principal");
  return { tenantId: principal.tenantId, action, actor: auditActor(principal), target, client: auditClient(c), ...(details ? { details } : {}) };
}
