import { signingKey } from "../lib/signing-keys";
import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { createDb } from "../db/client";
import { listAuditLog, type AuditRow } from "../domain/audit/log";
import type { AppEnv } from "../env";
import { iso } from "../lib/time";
import { validationHook } from "../lib/validation";
import { AuditEntrySchema, AuditLogQuery, AuditLogSchema } from "../schemas/audit-log";
import { jsonContent, pickErrors } from "../schemas/common";

/** The operator audit log (read only: no route writes, edits or deletes an entry). */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

function presentEntry(row: AuditRow): z.infer<typeof AuditEntrySchema> {
  return {
    id: row.id,
    action: row.action as z.infer<typeof AuditEntrySchema>["action"],
    actor: { type: row.actorType, id: row.actorId, ...(row.actorLabel ? { label: row.actorLabel } : {}) },
    target: { type: row.targetType, id: row.targetId, ...(row.targetLabel ? { label: row.targetLabel } : {}) },
    ...(row.details ? { details: row.details } : {}),
    occurred_at: iso(row.occurredAt),
    client: { ...(row.ip ? { ip: row.ip } : {}), ...(row.userAgent ? { user_agent: row.userAgent } : {}) },
  };
}

const list = createRoute({
  method: "get",
  path: "/v1/audit-log",
  operationId: "listAuditLog",
  tags: ["Team"],
  summary: "Who did what in this tenant, newest first",
  description:
    "Every administrative or evidence action of a member or an API key: who (user or key, with email or key name), what (`action`), to what (`target`), " +
    "when, and from where (client address and user agent). Keyset-paginated (`next_cursor`); filters `action` and `actor_id` combine. " +
    "Append-only: nothing edits or deletes an entry, and redacting a verification keeps the entries about it.",
  ...access({ session: "admin" }),
  request: { query: AuditLogQuery },
  responses: { 200: jsonContent(AuditLogSchema, "One page"), ...pickErrors(400, 401, 403, 500) },
});

app.openapi(list, async (c) => {
  const query = c.req.valid("query");
  const { rows, nextCursor } = await listAuditLog(createDb(c.env.DB), await signingKey(c.env, "cursors"), c.get("principal").tenantId, {
    limit: query.limit,
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
    ...(query.action !== undefined ? { action: query.action } : {}),
    ...(query.actor_id !== undefined ? { actorId: query.actor_id } : {}),
  });
  return c.json({ items: rows.map(presentEntry), ...(nextCursor ? { next_cursor: nextCursor } : {}) }, 200);
});

export default app;
