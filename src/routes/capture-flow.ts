import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { cors } from "hono/cors";
import { eq } from "drizzle-orm";
import { createDb } from "../db/client";
import { tenants } from "../db/schema";
import { loadRecord } from "../db/verifications";
import { captureInline, captureUpload, findByToken, findUploadFor } from "../domain/capture/service";
import { acceptedContentType, mintUpload } from "../domain/capture/uploads";
import { UPLOAD_TTL_MS } from "../model/verification/upload-slots";
import { INLINE_MAX_BYTES } from "../domain/capture/media";
import { presentVerification, type CaptureFlowRecord } from "../model/verification/present";
import { presentCaptureFlow } from "../model/verification/capture-view";
import { unwrap, verificationObject } from "../durable-objects/verification-client";
import { CAPTURE_FLOW_LIMITS, clientKey, enforceLimit } from "../domain/public-limits";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { ApiError, toApiError } from "../lib/errors";
import { handleError } from "../lib/http";
import { checkUploadMint, guardLive, guardNotRedacted } from "../model/verification/transitions";
import { validationHook } from "../lib/validation";
import { attestationVerifier } from "../providers/attestation";
import {
  AnswerRequestSchema,
  CaptureRequestSchema,
  CaptureVerificationSchema,
  ProgressRequestSchema,
  UploadUrlRequestSchema,
  UploadUrlResponseSchema,
  VerifyViewSchema,
} from "../schemas/capture-flow";
import { jsonBody, jsonContent, pathId, pickErrors } from "../schemas/common";
import { BurstNonceSchema } from "../schemas/capture-integrity";
import { issueNonce } from "../domain/capture/burst-nonce";
import { signingKey } from "../lib/signing-keys";

/*
 * The end user's capture flow. The verification id in the path is the only credential, so these
 * routes answer any origin (no cookies are involved), never show tenant-private fields, and are
 * rate-limited per client and per verification (domain/public-limits.ts).
 */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const TokenParam = z.object({ token: pathId("token", { description: "The verification id" }) });
const tags = ["Capture flow"];
/** No credential header: the verification id in the path is the capability. */
const security: Array<Record<string, string[]>> = [];

app.use("/v1/verify/*", cors());
app.use("/v1/verifications/:token/captures", cors());
app.use("/v1/verifications/:token/captures/*", cors());
app.use("/v1/verifications/:token/answers", cors());
app.use("/v1/verifications/:token/submit", cors());
app.use("/v1/verifications/:token/progress", cors());

/**
 * The verification a capture-flow write names, after the client's rate limit (taken for every
 * request, so random ids cost a guesser its budget). The limit per verification is counted by the
 * verification's Durable Object, which every write calls (model/verification/write-window.ts).
 */
function writable(c: Context<AppEnv>, token: string) {
  return limited(c, findByToken(createDb(c.env.DB), token));
}

/** `lookup`, run at once with the client's rate limit; the limit answers first, then the lookup (404). */
async function limited<T>(c: Context<AppEnv>, lookup: Promise<T>): Promise<T> {
  c.set("linkLookedUp", true);
  const [client, found] = await Promise.allSettled([enforceLimit(c.env, CAPTURE_FLOW_LIMITS.captureWrite, clientKey(c.req.header("CF-Connecting-IP"))), lookup]);
  if (client.status === "rejected") throw client.reason;
  if (found.status === "rejected") throw found.reason;
  return found.value;
}

/** The capture-flow writes that carry a body, and the verification id in their path. */
const BODY_WRITE = /^\/v1\/verifications\/([^/]+)\/(?:captures|captures\/upload-url|answers|progress)$/;
const BODY_REFUSALS = new Set([400, 413, 415]);

/**
 * A dead link answers 410 whatever its body (docs/api.md): a write refused for its body
 * before its handler looked the verification up (malformed JSON, validation, size, content type) is
 * answered with the link's own refusal when it has one. Registered before the body limit and the
 * JSON check (app.ts), so it sees their refusals too; costs a lookup only on those refusals.
 */
export const deadLinkFirst = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const token = c.req.method === "POST" ? BODY_WRITE.exec(c.req.path)?.[1] : undefined;
  if (token === undefined || !BODY_REFUSALS.has(c.res.status) || c.get("linkLookedUp")) return;
  // Only a link known dead overrides the body's refusal: an unknown id (404) or the client's rate
  // limit (429) leaves it as it was, so a guess at an id learns nothing more from a bad body.
  const row = await writable(c, token).catch(() => null);
  const dead = row && guardLive(row, Date.now());
  if (dead) c.res = handleError(toApiError(dead), c);
});

function captureView(c: { env: Env }, record: CaptureFlowRecord) {
  return presentVerification(record, { baseUrl: settings(c.env).baseUrl, audience: "capture" }) as z.infer<typeof CaptureVerificationSchema>;
}

const verify = createRoute({
  method: "get",
  path: "/v1/verify/{token}",
  operationId: "getCaptureFlow",
  tags,
  security,
  summary: "What the capture page needs",
  description:
    "An expired link still answers, with `status: expired`. A redacted verification answers 410 `redacted`: its request was withdrawn and its evidence erased, so the page shows no steps.",
  request: { params: TokenParam },
  responses: { 200: jsonContent(VerifyViewSchema, "Steps, progress counts and limits"), ...pickErrors(404, 410, 429, 500) },
});

app.openapi(verify, async (c) => {
  await enforceLimit(c.env, CAPTURE_FLOW_LIMITS.captureRead, clientKey(c.req.header("CF-Connecting-IP")));
  const db = createDb(c.env.DB);
  const row = await findByToken(db, c.req.valid("param").token);
  const [record, tenant] = await Promise.all([
    loadRecord(db, row.id),
    db.select({ name: tenants.displayName }).from(tenants).where(eq(tenants.id, row.tenantId)).get(),
  ]);
  if (!record) throw ApiError.notFound("verification");
  const withdrawn = guardNotRedacted(record.row);
  if (withdrawn) throw toApiError(withdrawn);
  c.header("Cache-Control", "no-store");
  const view = presentCaptureFlow(record, {
    tenantName: tenant?.name ?? "",
    siteKey: c.env.ATTESTATION_SITE_KEY,
    limits: { inline_max_bytes: INLINE_MAX_BYTES, upload_url_ttl_seconds: UPLOAD_TTL_MS / 1000 },
  });
  return c.json(view as z.infer<typeof VerifyViewSchema>, 200);
});

const uploadUrl = createRoute({
  method: "post",
  path: "/v1/verifications/{token}/captures/upload-url",
  operationId: "createUploadUrl",
  tags,
  security,
  summary: "Mint a single-use upload URL (5 minutes, one media type)",
  description:
    "A verification holds at most twice as many open upload URLs per kind as the captures it can still take (URLs not yet expired, and uploads not yet captured): beyond that 429 `too_many_requests` with `Retry-After`; with every slot used 409 `step_full`. Uploaded bytes must be captured within an hour of the URL's expiry (later, a capture naming them is 409 `upload_expired`: upload again). " +
    "A URL expires after 5 minutes or at the verification's `expires_at`, whichever comes first. " +
    "A `content_type` the kind cannot carry is refused as a malformed body is (415 before the link is looked up), except that a dead link answers 410.",
  request: { params: TokenParam, body: jsonBody(UploadUrlRequestSchema, { content_type: "image/jpeg" }) },
  responses: { 200: jsonContent(UploadUrlResponseSchema, "PUT the bytes to upload_url"), ...pickErrors(400, 404, 409, 410, 413, 415, 429, 500) },
});

app.openapi(uploadUrl, async (c) => {
  const now = Date.now();
  const body = c.req.valid("json");
  const kind = body.kind ?? "image";
  // A type the upload cannot carry is its body's refusal, as a malformed body is: before the link is
  // looked up, and a dead link still answers 410 (deadLinkFirst).
  const contentType = acceptedContentType(kind, body.content_type);
  // The client's limit before anything is minted; the verification's object then looks the link up.
  await enforceLimit(c.env, CAPTURE_FLOW_LIMITS.captureWrite, clientKey(c.req.header("CF-Connecting-IP")));
  c.set("linkLookedUp", true);
  const minted = await mintUpload(c.env, {
    verificationId: c.req.valid("param").token,
    kind,
    contentType,
    baseUrl: settings(c.env).baseUrl,
    secret: await signingKey(c.env, "upload_urls"),
    now,
  });
  return c.json(minted, 200);
});

const burstNonce = createRoute({
  method: "post",
  path: "/v1/verifications/{token}/captures/burst-nonce",
  operationId: "createBurstNonce",
  tags,
  security,
  summary: "A burst nonce for the next live capture",
  description:
    "The hosted capture page asks for one before it sends each live capture, and sends it back in `capture_integrity.nonce` with the burst. The analysis checks it was issued for this verification, at most 30 minutes before the capture arrived, and carried by no other capture (`burst_nonce_invalid`, `burst_nonce_expired`, `burst_nonce_reused`). " +
    "410 once the link is dead; 409 when the verification can take no more captures, as for an upload URL (`step_full` with every slot used, `invalid_state` once it is finished or submitted).",
  request: { params: TokenParam },
  responses: { 200: jsonContent(BurstNonceSchema, "The nonce and when it lapses"), ...pickErrors(404, 409, 410, 429, 500) },
});

app.openapi(burstNonce, async (c) => {
  const now = Date.now();
  const row = await writable(c, c.req.valid("param").token);
  // No nonce for a capture that would be refused (probe of 2026-12-05: nonces were issued for completed verifications).
  const refused = checkUploadMint(row, now);
  if (refused) throw toApiError(refused);
  const issued = await issueNonce(await signingKey(c.env, "burst_nonces"), row.id, now);
  c.header("Cache-Control", "no-store");
  return c.json({ nonce: issued.nonce, expires_at: new Date(issued.expiresAt).toISOString() }, 200);
});

const capture = createRoute({
  method: "post",
  path: "/v1/verifications/{token}/captures",
  operationId: "createCapture",
  tags,
  security,
  summary: "Submit a capture (inline base64 or an uploaded image_key)",
  description:
    "In this order: 410 `redacted`; 410 `expired` from `expires_at` on, whatever the evidence state, before the body's size, type or checksum is looked at; " +
    "400 `unknown_step` when `step_key` names a text step or no step, whatever the capacity; 409 `step_full` when the step (or, without `step_key`, " +
    "every image step) holds its `max`, also once the verdict made the verification `completed`; 409 `invalid_state` when completed, failed or submitted. " +
    "An `image_key` whose upload URL expired more than an hour ago is 409 `upload_expired` (upload the image again; 410 is for a dead link only). " +
    "A retry of an `image_key` a capture already holds answers 201 with the current Verification, whenever it comes (also after that hour, and after submit or the verdict), as long as the link is live.",
  request: {
    params: TokenParam,
    body: jsonBody(CaptureRequestSchema, {
      image_key: "verifications/vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z/cap_01JD2Y5B7C9D1E3F5G7H9J1K3M",
      image_sha256: "9f2c1b7e4d0a8f6e3c5b2a1d9e8f7c6b5a4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f",
      step_key: "front",
      client_captured_at: "2026-11-22T10:00:00.000Z",
      location: { lat: 52.52, lng: 13.405, accuracy_m: 12 },
    }),
  },
  responses: {
    201: jsonContent(CaptureVerificationSchema, "The verification after the write, as the end user may see it"),
    ...pickErrors(400, 404, 409, 410, 413, 415, 429, 500),
  },
});

app.openapi(capture, async (c) => {
  const body = c.req.valid("json");
  const token = c.req.valid("param").token;
  const ctx = { env: c.env, db: createDb(c.env.DB), verifier: attestationVerifier(c.env), remoteIp: c.req.header("CF-Connecting-IP"), now: Date.now() };
  const { record } =
    body.image_key !== undefined
      ? await captureUpload(ctx, token, body, await limited(c, findUploadFor(c.env, token, body.image_key)))
      : await captureInline(ctx, await writable(c, token), body);
  return c.json(captureView(c, record), 201);
});

const answer = createRoute({
  method: "post",
  path: "/v1/verifications/{token}/answers",
  operationId: "answerStep",
  tags,
  security,
  summary: "Answer a text step (overwrites until completed)",
  request: { params: TokenParam, body: jsonBody(AnswerRequestSchema, { step_key: "plate", value: "AB-123" }) },
  responses: { 200: jsonContent(CaptureVerificationSchema, "The verification after the write, as the end user may see it"), ...pickErrors(400, 404, 409, 410, 413, 429, 500) },
});

app.openapi(answer, async (c) => {
  const row = await writable(c, c.req.valid("param").token);
  const { step_key, value } = c.req.valid("json");
  const { record } = unwrap(await verificationObject(c.env, row.id).answer(row.id, step_key, value));
  return c.json(captureView(c, record), 200);
});

const submit = createRoute({
  method: "post",
  path: "/v1/verifications/{token}/submit",
  operationId: "submitVerification",
  tags,
  security,
  summary: "Declare the evidence complete",
  description:
    "Taken once every evidence step holds its `min` and every required text step is answered (`ready_for_submit` of `GET /v1/verify/{token}`), else 409 `invalid_state`. A repeated submit answers the current state and writes nothing, also after the verdict or a failure it led to; " +
    "a verification the verdict closed without a submit answers 409 `invalid_state`. " +
    "With no capture at all (every evidence step optional) nothing can be evaluated: the verification ends `failed` with `failure_reason: no_evidence` (webhook `verification.failed`), never with a verdict.",
  request: { params: TokenParam },
  responses: { 200: jsonContent(CaptureVerificationSchema, "The verification after the write, as the end user may see it"), ...pickErrors(404, 409, 410, 429, 500) },
});

app.openapi(submit, async (c) => {
  const row = await writable(c, c.req.valid("param").token);
  const { record } = unwrap(await verificationObject(c.env, row.id).submit(row.id));
  return c.json(captureView(c, record), 200);
});

const progress = createRoute({
  method: "post",
  path: "/v1/verifications/{token}/progress",
  operationId: "reportProgress",
  tags,
  security,
  summary: "Report a funnel snapshot (overwrites the previous one)",
  description:
    "Taken in any status until `expires_at` (410 `expired` after it), a finished verification included: the snapshot is overwritten and the status stays. " +
    "`kind: abandoned` parks a pending or partially captured verification whose evidence is not complete yet; the end user's next capture, answer, submit or any other progress report (the page on screen again, as after a reload) brings it back.",
  request: { params: TokenParam, body: jsonBody(ProgressRequestSchema, { schema_version: 1, kind: "step_reached", step: "capturing", elapsed_ms: 5400, step_index: 0 }) },
  responses: { 204: { description: "Recorded" }, ...pickErrors(400, 404, 409, 410, 413, 429, 500) },
});

app.openapi(progress, async (c) => {
  const row = await writable(c, c.req.valid("param").token);
  const snapshot = c.req.valid("json");
  unwrap(await verificationObject(c.env, row.id).progress(row.id, snapshot.kind, snapshot));
  return c.body(null, 204);
});

export default app;
