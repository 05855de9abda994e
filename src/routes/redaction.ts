import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import type { Principal } from "../auth/principal";
import { createDb } from "../db/client";
import { presentVerification } from "../model/verification/present";
import { redactVerification } from "../domain/verification/redaction";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { validationHook } from "../lib/validation";
import { jsonContent, pathId, pickErrors } from "../schemas/common";
import { VerificationSchema } from "../schemas/verification";

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const IdParam = z.object({ id: pathId("id", { example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }) });

const redact = createRoute({
  method: "post",
  path: "/v1/verifications/{id}/redact",
  operationId: "redactVerification",
  tags: ["Verifications"],
  summary: "Erase a verification's evidence (irreversible, idempotent)",
  description:
    "Deletes every stored object of the verification (captures, depth maps, thumbnails) and clears answers, metadata, context, " +
    "locations, notify_email, the narrative, case analysis and independent checks. Ids, statuses, timestamps, SHA-256 digests and " +
    "the verdict remain, with `redacted_at`. Webhook bodies kept for retries and idempotent replays are redacted too. Recorded as `verification.redacted` (timeline and webhook). A second call answers the " +
    "same state. Later capture-flow writes are 410 `redacted`.",
  ...access({ apiKey: "full", session: "admin" }),
  request: { params: IdParam },
  responses: { 200: jsonContent(VerificationSchema, "The redacted verification"), ...pickErrors(401, 403, 404, 500) },
});

/** Who asked, as the timeline records it. */
function actor(principal: Principal): string {
  if (principal.kind === "session") return principal.userId;
  if (principal.kind === "api_key") return principal.keyId;
  return principal.kind;
}

app.openapi(redact, async (c) => {
  const principal = c.get("principal");
  const { id } = c.req.valid("param");
  const record = await redactVerification(c.env, createDb(c.env.DB), {
    tenantId: principal.tenantId,
    id,
    by: actor(principal),
    audit: auditEntry(c, "verification.redacted", { type: "verification", id }),
  });
  const audience = principal.kind === "session" ? "operator" : "tenant";
  return c.json(presentVerification(record, { baseUrl: settings(c.env).baseUrl, audience }) as z.infer<typeof VerificationSchema>, 200);
});

export default app;
