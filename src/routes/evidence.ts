import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { createDb } from "../db/client";
import { serveSignedEvidence } from "../domain/evidence/serve";
import { CREDENTIALS_SIGNINGS } from "../domain/public-limits";
import type { AppEnv } from "../env";
import { validationHook } from "../lib/validation";
import { pickErrors } from "../schemas/common";

/** The target of the captures API's signed image URLs: the token in the path is the only credential. */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

// Capability URLs: any page holding one may read it (an <img> needs no CORS; fetch() does).
app.use("/v1/evidence/*", cors({ origin: "*", allowMethods: ["GET", "HEAD"], exposeHeaders: ["ETag", "Content-Disposition"] }));

const Binary = z.string().openapi({ format: "binary" });
const image = (types: string[]) => Object.fromEntries(types.map((t) => [t, { schema: Binary }]));

const get = createRoute({
  method: "get",
  path: "/v1/evidence/{token}",
  operationId: "downloadEvidence",
  tags: ["Evidence"],
  summary: "Download a capture's image, thumbnail, depth map or Content Credentials copy through a signed URL (5 minutes)",
  description:
    "Only reachable through `image_url`, `thumbnail_url`, `depth_map_url` or `credentials_url` of a Capture. `ETag` is the SHA-256 of the bytes " +
    "(`If-None-Match` naming it, weakly or not, or `*`, answers 304; `Range` and `If-Match` are not read: the whole body, 200), `Cache-Control: private`, `Content-Disposition: inline` (`attachment` for `credentials_url`: the received image with a C2PA manifest this deployment signs, " +
    "docs/evidence.md \"Content Credentials\"). An expired URL is 410 `expired` (read the capture again for a fresh one); an altered or malformed one is 401 `unauthorized`; " +
    "an object that is gone (the verification was redacted) is 404. A `credentials_url` whose copy is not signed yet waits its turn: one signing at a time per instance, " +
    `at most ${CREDENTIALS_SIGNINGS.queuedPerIsolate} waiting, beyond that 429 \`too_many_requests\` with \`Retry-After: 1\` (a copy already signed is served at once).`,
  security: [],
  request: { params: z.object({ token: z.string().openapi({ param: { name: "token", in: "path" } }) }) },
  responses: {
    200: { description: "The stored bytes", content: image(["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"]) },
    304: { description: "Not modified (the ETag matched)" },
    ...pickErrors(401, 404, 410, 429, 500),
  },
});

app.openapi(get, async (c) => {
  const served = await serveSignedEvidence(c.env, createDb(c.env.DB), c.req.valid("param").token, {
    // Cloudflare sets CF-Connecting-IP on every request it proxies; local requests share one bucket.
    clientIp: c.req.header("CF-Connecting-IP"),
    ifNoneMatch: c.req.header("If-None-Match"),
    now: Date.now(),
  });
  return new Response(served.body, { status: served.status, headers: served.headers });
});

export default app;
