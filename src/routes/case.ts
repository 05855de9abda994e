import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { createDb } from "../db/client";
import { finalizeCase } from "../domain/case/finalize";
import { presentVerification } from "../model/verification/present";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pathId, pickErrors } from "../schemas/common";
import { FinalizeRequestSchema } from "../schemas/finalize";
import { VerificationSchema } from "../schemas/verification";

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const IdParam = z.object({ id: pathId("id", { example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }) });

const finalize = createRoute({
  method: "post",
  path: "/v1/verifications/{id}/finalize",
  operationId: "finalizeVerification",
  tags: ["Verifications"],
  summary: "Close a case with its narrative and run the case analysis",
  description:
    "Once per verification (then 409 `already_finalized`); needs at least one capture and a status other than expired or failed (else 409 `invalid_state`); a redacted verification is 410 `redacted`. " +
    "The status is unchanged, and a verification still taking evidence goes on taking it: each capture analysed after finalize runs the case analysis again over every capture. `case_analysis` is inline when the analysis finished within its time budget; otherwise it is queued and appears on the verification later, sent as the `verification.case.analyzed` webhook (as is every later run that replaces it).",
  ...access({ apiKey: "full", session: "reviewer" }),
  request: {
    params: IdParam,
    body: jsonBody(FinalizeRequestSchema, { narrative: "Hail on 12 November cracked three tiles on the south side of the roof; water came in above the kitchen." }),
  },
  responses: { 200: jsonContent(VerificationSchema, "The verification with its narrative"), ...pickErrors(400, 401, 403, 404, 409, 410, 413, 500) },
});

app.openapi(finalize, async (c) => {
  const principal = c.get("principal");
  const { id } = c.req.valid("param");
  const { record } = await finalizeCase(c.env, createDb(c.env.DB), {
    tenantId: principal.tenantId,
    id,
    narrative: c.req.valid("json").narrative,
    waitUntil: (work) => c.executionCtx.waitUntil(work),
    audit: auditEntry(c, "verification.finalized", { type: "verification", id }),
  });
  const body = presentVerification(record, { baseUrl: settings(c.env).baseUrl, audience: principal.kind === "session" ? "operator" : "tenant" });
  return c.json(body as z.infer<typeof VerificationSchema>, 200);
});

export default app;
