import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { createDb } from "../db/client";
import { tenantCapabilities } from "../domain/capabilities";
import type { AppEnv } from "../env";
import { validationHook } from "../lib/validation";
import { CapabilitiesSchema } from "../schemas/capabilities";
import { jsonContent, pickErrors } from "../schemas/common";

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

const read = createRoute({
  method: "get",
  path: "/v1/capabilities",
  operationId: "getCapabilities",
  tags: ["Verifications"],
  summary: "What this deployment can assess: each signal and check, why not, and what enables it",
  description:
    "Derived from the same configuration the analysis runs with. A creation requiring a signal or check marked unavailable (on its `capture_channel`) is " +
    "400 `invalid_request` naming the field; one naming no `signals_required` gets `defaults.signals_required`. A full API key or a dashboard session: " +
    "a publishable key is 403, like on every operation but creation. The answer is the calling tenant's: whether it opted in to the shared reuse index " +
    "(`signals.reverse.sources`), and which AI-detection provider its `ai_detection_provider` setting asks (`signals.ai.methods`, `signals.ai.reason`; " +
    "`signals.ai.detection_providers` lists every configured one).",
  ...access({ apiKey: "full", session: "viewer" }),
  responses: { 200: jsonContent(CapabilitiesSchema, "The capabilities"), ...pickErrors(401, 403, 500) },
});

app.openapi(read, async (c) => {
  const capabilities = await tenantCapabilities(c.env, createDb(c.env.DB), c.get("principal").tenantId);
  c.header("Cache-Control", "no-store");
  return c.json(capabilities as z.infer<typeof CapabilitiesSchema>, 200);
});

export default app;
