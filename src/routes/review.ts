import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { sessionPrincipal } from "../auth/principal";
import { createDb } from "../db/client";
import { presentVerification } from "../model/verification/present";
import { REVIEWS_PER_VERIFICATION } from "../model/verification/transitions";
import { reviewVerification } from "../domain/verification/review";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pathId, pickErrors } from "../schemas/common";
import { ReviewRequestSchema } from "../schemas/review";
import { VerificationSchema } from "../schemas/verification";

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const IdParam = z.object({ id: pathId("id", { example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }) });

const review = createRoute({
  method: "post",
  path: "/v1/verifications/{id}/review",
  operationId: "reviewVerification",
  tags: ["Verifications"],
  summary: "Record an operator's decision beside the verdict",
  description:
    "Dashboard session only (same-origin rules for cookie posts). The machine `verdict` never changes: `review` sits beside it with the reviewer. " +
    `Reviews may follow each other, up to ${REVIEWS_PER_VERIFICATION} per verification (then 409 \`invalid_state\`: the latest stands); each is on the timeline as \`verification.reviewed\` and sent as that webhook. ` +
    "The same review (reviewer, decision and note) sent again within 60 s is a retry: answered as recorded, with nothing recorded twice. " +
    "`approved` needs a verdict (409 `invalid_state` before the evidence is judged); `rejected` and `needs_more` may be recorded at any time. " +
    "`replaces` names the latest review the decision was made beside (its `at`, or null for none): when another was recorded since, 409 `invalid_state` and nothing is recorded. `needs_more` reopens nothing " +
    "(create a new verification to ask for more evidence). A redacted verification is 410 `redacted`.",
  ...access({ session: "reviewer" }),
  request: { params: IdParam, body: jsonBody(ReviewRequestSchema, { decision: "approved", note: "Photos match the claim; roof damage consistent with the reported hail." }) },
  responses: { 200: jsonContent(VerificationSchema, "The verification with its review"), ...pickErrors(400, 401, 403, 404, 409, 410, 413, 500) },
});

app.openapi(review, async (c) => {
  const principal = sessionPrincipal(c.get("principal"));
  const body = c.req.valid("json");
  const { id } = c.req.valid("param");
  const record = await reviewVerification(c.env, createDb(c.env.DB), {
    tenantId: principal.tenantId,
    id,
    decision: body.decision,
    note: body.note,
    by: principal.userId,
    ...(body.replaces !== undefined ? { replaces: body.replaces === null ? null : Date.parse(body.replaces) } : {}),
    // The decision, not the note: a note may quote the evidence, and redaction removes it.
    audit: auditEntry(c, "verification.reviewed", { type: "verification", id }, { decision: body.decision }),
  });
  return c.json(presentVerification(record, { baseUrl: settings(c.env).baseUrl, audience: "operator" }) as z.infer<typeof VerificationSchema>, 200);
});

export default app;
