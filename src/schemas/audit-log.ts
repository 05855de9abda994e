import { z } from "@hono/zod-openapi";
import { DateTime, pageLimit } from "./common";

/** Every action the operator audit log records (domain/audit/log.ts writes them). */
export const AUDIT_ACTIONS = [
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "invitation.resent",
  "invitation.revoked",
  "api_key.created",
  "api_key.revoked",
  "webhook_secret.rotated",
  "webhook_secret.revealed",
  "settings.updated",
  "domain.claimed",
  "domain.verified",
  "domain.removed",
  "domain.dropped",
  "template.published",
  "template.revoked",
  "verification.reviewed",
  "verification.redacted",
  "verification.finalized",
  "webhook_delivery.retried",
  "certificate_link.created",
  "certificate_link.revoked",
  "phone.registered",
  "phone.removed",
  "session.signed_in",
  "session.signed_out_everywhere",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AuditActionSchema = z.enum(AUDIT_ACTIONS).openapi("AuditAction");

export const AuditEntrySchema = z
  .object({
    id: z.string().openapi({ example: "aud_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
    action: AuditActionSchema,
    actor: z.object({
      type: z.enum(["user", "api_key", "service"]).openapi({ description: "`service`: the service itself, e.g. its periodic re-check dropping a domain whose DNS record is gone." }),
      id: z.string().openapi({ description: "`usr_…`, `key_…`, or for the service the task (`domain_recheck`)", example: "usr_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
      label: z.string().optional().openapi({ description: "The user's email (else phone) or the key's name, as it was then." }),
    }),
    target: z.object({
      type: z.string().openapi({ description: "`user`, `invitation`, `api_key`, `tenant`, `template`, `verification`, `webhook_delivery`, `certificate_link`, `phone`" }),
      id: z.string(),
      label: z.string().optional(),
    }),
    details: z.record(z.string(), z.unknown()).optional().openapi({ description: "What changed, e.g. `{from, to}` of a role, `{method}` of a sign-in." }),
    occurred_at: DateTime,
    client: z.object({
      ip: z.string().optional().openapi({ description: "The client's address as received (`CF-Connecting-IP`)." }),
      user_agent: z.string().optional(),
    }),
  })
  .openapi("AuditEntry");

export const AuditLogSchema = z
  .object({
    items: z.array(AuditEntrySchema),
    next_cursor: z.string().optional().openapi({ description: "Pass as `cursor` for the next page; absent on the last one." }),
  })
  .openapi("AuditLog");

export const AuditLogQuery = z.object({
  limit: pageLimit().default(50).openapi({ description: "1..100, default 50" }),
  cursor: z.string().max(500).optional(),
  action: AuditActionSchema.optional(),
  actor_id: z.string().max(64).optional().openapi({ description: "Entries of one user (`usr_…`) or API key (`key_…`)." }),
});
