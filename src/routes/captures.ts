import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { createDb } from "../db/client";
import { getCapture, listCaptures } from "../domain/evidence/captures";
import type { AppEnv } from "../env";
import { validationHook } from "../lib/validation";
import { CaptureListSchema, CaptureSchema } from "../schemas/captures";
import { jsonContent, pathId, pickErrors } from "../schemas/common";

/** The evidence of a verification: its captures with their analysis and short-lived signed image URLs. */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const IdParam = (example: string) => z.object({ id: pathId("id", { example }) });
/**
 * The capture flow's POST shares this path as `/v1/verifications/{token}/captures` (the spec's name);
 * OpenAPI allows one name per templated path, so the listing names the verification id `token` too.
 */
const VerificationParam = z.object({
  token: pathId("token", { description: "The verification id (`vfy_…`).", example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }),
});
const urlsNote = "`image_url`, `thumbnail_url` and `depth_map_url` work for 5 minutes; read the capture again for fresh ones.";

const list = createRoute({
  method: "get",
  path: "/v1/verifications/{token}/captures",
  operationId: "listCaptures",
  tags: ["Evidence"],
  summary: "A verification's captures in capture order, with their analysis",
  description: urlsNote,
  ...access({ apiKey: "full", session: "viewer" }),
  request: { params: VerificationParam },
  responses: { 200: jsonContent(CaptureListSchema, "The captures"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(list, async (c) => {
  const items = await listCaptures(c.env, createDb(c.env.DB), c.get("principal").tenantId, c.req.valid("param").token, Date.now());
  // The body carries signed URLs: no cache may keep it past their life.
  c.header("Cache-Control", "no-store");
  return c.json({ items } as z.infer<typeof CaptureListSchema>, 200);
});

const one = createRoute({
  method: "get",
  path: "/v1/captures/{id}",
  operationId: "getCapture",
  tags: ["Evidence"],
  summary: "One capture with its analysis",
  description: urlsNote,
  ...access({ apiKey: "full", session: "viewer" }),
  request: { params: IdParam("cap_01JD2Y4N9M6Q8R0S2T4V6W8X0Z") },
  responses: { 200: jsonContent(CaptureSchema, "The capture"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(one, async (c) => {
  const capture = await getCapture(c.env, createDb(c.env.DB), c.get("principal").tenantId, c.req.valid("param").id, Date.now());
  c.header("Cache-Control", "no-store");
  return c.json(capture as z.infer<typeof CaptureSchema>, 200);
});

export default app;
