import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { createDb } from "../db/client";
import { startTrial } from "../domain/trial/trial";
import type { AppEnv } from "../env";
import { validationHook } from "../lib/validation";
import { jsonBody, jsonContent, pickErrors } from "../schemas/common";
import { TrialStartedSchema, TrialStartSchema } from "../schemas/trial";

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

const start = createRoute({
  method: "post",
  path: "/v1/public/trial/start",
  operationId: "startTrial",
  tags: ["Trial"],
  security: [],
  summary: "Start a trial verification (no authentication; 1000 per hour per client IP)",
  description:
    "Mints a one-photo verification under the operator's trial tenant; its verdict is delivered to the trial number over messaging. Over the limit: 429 `too_many_requests` with `Retry-After` (seconds).",
  request: { body: { ...jsonBody(TrialStartSchema, { source: "landing-page" }), required: false } },
  responses: { 201: jsonContent(TrialStartedSchema, "The trial verification"), ...pickErrors(400, 404, 413, 429, 500) },
});

app.openapi(start, async (c) => {
  const body = c.req.valid("json") as { source?: string } | undefined;
  const started = await startTrial(c.env, createDb(c.env.DB), {
    // Cloudflare sets CF-Connecting-IP on every request it proxies; local requests share one bucket.
    clientIp: c.req.header("CF-Connecting-IP"),
    ...(body?.source ? { source: body.source } : {}),
  });
  return c.json({ verification_id: started.verificationId, capture_url: started.captureUrl }, 201);
});

export default app;
