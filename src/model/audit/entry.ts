import type { auditLog } from "../../db/schema";
import { newId } from "../../lib/ids";
import type { AuditAction } from "../../schemas/audit-log";

/*
 * One entry of the operator audit log as plain data (it travels to the verification's Durable
 * Object with the command it records) and the row it becomes. Where and when it is written:
 * domain/audit/log.ts.
 */

export type { AuditAction };

/** Who acted: a dashboard user (their email, else phone), an API key (its name), or the service itself (a cron). */
export interface AuditActor {
  type: "user" | "api_key" | "service";
  id: string;
  label: string | null;
}

/** Where the request came from, as received. */
export interface AuditClient {
  ip: string | null;
  userAgent: string | null;
}

/** One action to record; plain data, so it can also travel to the verification's Durable Object. */
export interface AuditEntry {
  tenantId: string;
  action: AuditAction;
  actor: AuditActor;
  target: { type: string; id: string; label?: string | null };
  details?: Record<string, unknown>;
  client: AuditClient;
}

export type AuditRow = typeof auditLog.$inferSelect;

/** A user agent is kept to this many characters (a header can be long; the start says what it is). */
const USER_AGENT_MAX = 512;

export function auditRow(entry: AuditEntry, now: number): AuditRow {
  return {
    id: newId("audit", now),
    tenantId: entry.tenantId,
    action: entry.action,
    actorType: entry.actor.type,
    actorId: entry.actor.id,
    actorLabel: entry.actor.label,
    targetType: entry.target.type,
    targetId: entry.target.id,
    targetLabel: entry.target.label ?? null,
    details: entry.details ?? null,
    ip: entry.client.ip,
    userAgent: entry.client.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    occurredAt: now,
  };
}

