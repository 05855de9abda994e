import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { receiveUpload } from "../domain/capture/uploads";
import { CAPTURE_FLOW_LIMITS, clientKey, enforceLimit } from "../domain/public-limits";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { unsupportedEncoding } from "../lib/http";
import { validationHook } from "../lib/validation";
import { jsonContent, pickErrors } from "../schemas/common";
import { UploadReceiptSchema } from "../schemas/capture-flow";
import { MEDIA_TYPES } from "../schemas/steps";
import { signingKey } from "../lib/signing-keys";
import { uploadDesks } from "../durable-objects/verification-client";

const Bytes = z.string().openapi({ format: "binary", description: "The image bytes" });

/** The signed upload URL's target: streams raw bytes, so it is mounted before the JSON body handling. */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

app.use("/v1/uploads/*", cors({ origin: "*", allowMethods: ["PUT", "OPTIONS"], allowHeaders: ["Content-Type"] }));

const put = createRoute({
  method: "put",
  path: "/v1/uploads/{token}",
  operationId: "uploadBytes",
  tags: ["Capture flow"],
  summary: "Upload the bytes for an upload URL (single use, bound Content-Type, size-limited)",
  description:
    "The raw bytes, uncompressed (a `Content-Encoding` other than identity is 415), with the Content-Type the URL was minted for (else 415) and a Content-Length within the step's limit (else 413). A second PUT to a used URL is 409, and so is a PUT once a verdict, a failure or a submit closed the verification (`invalid_state`: no capture could take the bytes; nothing is stored). " +
    "Once the URL or its verification expired (or the verification was redacted) it is 410 before anything is read or stored. Counted with the capture flow's writes: 300 per minute per client network (429).",
  security: [],
  request: {
    params: z.object({ token: z.string().openapi({ param: { name: "token", in: "path" }, description: "Signed, single use, valid 5 minutes" }) }),
    body: { content: Object.fromEntries(MEDIA_TYPES.map((type) => [type, { schema: Bytes }])), required: true },
  },
  responses: { 200: jsonContent(UploadReceiptSchema, "Stored"), ...pickErrors(400, 404, 409, 410, 413, 415, 429, 500) },
});

app.openapi(put, async (c) => {
  // Counted with the capture flow's other writes, before the token is checked or a byte is read.
  await enforceLimit(c.env, CAPTURE_FLOW_LIMITS.captureWrite, clientKey(c.req.header("CF-Connecting-IP")));
  const compressed = unsupportedEncoding(c.req.header("Content-Encoding"));
  if (compressed) throw new ApiError("unsupported_media_type", compressed);
  const receipt = await receiveUpload(c.env.EVIDENCE, uploadDesks(c.env), {
    token: c.req.valid("param").token,
    secret: await signingKey(c.env, "upload_urls"),
    contentType: c.req.header("Content-Type"),
    contentLength: c.req.header("Content-Length"),
    body: c.req.raw.body,
    now: Date.now(),
  });
  return c.json(receipt, 200);
});

export default app;
