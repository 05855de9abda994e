import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { cors } from "hono/cors";
import { access } from "../auth/access";
import { auditEntry } from "../auth/audit-context";
import { certificatePageHtml, CERTIFICATE_PAGE_HEADERS } from "../certificate-page/shell";
import { createDb } from "../db/client";
import { loadTenantRecord } from "../db/verifications";
import { uncertifiable, UNCERTIFIABLE_MESSAGES } from "../domain/certificates/content";
import { currentCertificate } from "../domain/certificates/issue";
import { JWKS_ISOLATE_TTL_MS, JWKS_MAX_AGE_SECONDS, publishedKeys } from "../domain/certificates/keys";
import { certificateForLink, createCertificateLink, listCertificateLinks, revokeCertificateLink } from "../domain/certificates/links";
import { certificateLinkUrl, presentCertificate, presentLink } from "../domain/certificates/present";
import { CERTIFICATE_LIMITS, clientKey, enforceLimit } from "../domain/public-limits";
import type { AppEnv } from "../env";
import { settings } from "../env";
import { ApiError } from "../lib/errors";
import { HTML_HEADERS, htmlPage } from "../lib/html";
import { isId } from "../lib/ids";
import { validationHook } from "../lib/validation";
import {
  CertificateLinkIdParam,
  CertificateLinkListSchema,
  CertificateLinkSchema,
  CertificatePayloadV1Schema,
  CertificateSchema,
  CertificateTokenParam,
  CreatedCertificateLinkSchema,
  JwksSchema,
} from "../schemas/certificates";
import { errorResponses, jsonContent, pathId, pickErrors } from "../schemas/common";

/*
 * Certificates (domain/certificates): the published keys, a verification's current certificate, its
 * share links, and the links' public door (JSON for programs, a page for people).
 */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const IdParam = z.object({ id: pathId("id", { example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }) });

// Payloads of schema_version 1 are no longer served but still verified: the document keeps their shape for verifiers (the client's types).
app.openAPIRegistry.register("CertificatePayloadV1", CertificatePayloadV1Schema);

// A verifier may run in any web page: the keys and a shared certificate are readable cross-origin (no cookies involved).
app.use("/.well-known/jwks.json", cors({ origin: "*", allowMethods: ["GET", "HEAD"] }));
app.use("/v1/certificates/*", cors({ origin: "*", allowMethods: ["GET", "HEAD"] }));

const jwks = createRoute({
  method: "get",
  path: "/.well-known/jwks.json",
  operationId: "getCertificateKeys",
  tags: ["Certificates"],
  summary: "The keys that sign certificates (JWKS); no authentication",
  description:
    "The current key and every earlier key that signed a certificate, so a certificate issued before a key rotation still verifies. " +
    `Cacheable for ${JWKS_MAX_AGE_SECONDS / 60} minutes (\`Cache-Control\`); a verifier that meets an unknown \`kid\` fetches it again. ` +
    `The service reads its key records at most once a minute per instance: a withdrawn key leaves the set within ${JWKS_ISOLATE_TTL_MS / 1000} s.`,
  security: [],
  responses: { 200: { description: "The key set", content: { "application/jwk-set+json": { schema: JwksSchema } } }, ...pickErrors(500) },
});

app.openapi(jwks, async (c) => {
  // No credential, no storage read but one a minute per isolate, cacheable by any cache in between.
  const keys = await publishedKeys(c.env, createDb(c.env.DB));
  return c.json({ keys }, 200, { "Content-Type": "application/jwk-set+json", "Cache-Control": `public, max-age=${JWKS_MAX_AGE_SECONDS}` });
});

const current = createRoute({
  method: "get",
  path: "/v1/verifications/{id}/certificate",
  operationId: "getVerificationCertificate",
  tags: ["Certificates"],
  summary: "The verification's current certificate",
  description:
    "Signed when the verification completes, and again when it is reviewed, finalized or redacted. 409 `invalid_state` before it completes, " +
    "and for a verdict that evaluated nothing (`assessment: none`): nothing evaluated is never certified.",
  ...access({ apiKey: "full", session: "viewer" }),
  request: { params: IdParam },
  responses: { 200: jsonContent(CertificateSchema, "The certificate"), ...pickErrors(401, 403, 404, 409, 500) },
});

app.openapi(current, async (c) => {
  const { id } = c.req.valid("param");
  const db = createDb(c.env.DB);
  const record = isId("verification", id) ? await loadTenantRecord(db, c.get("principal").tenantId, id) : null;
  if (!record) throw ApiError.notFound("verification");
  const refused = uncertifiable(record.row);
  if (refused) throw new ApiError("invalid_state", UNCERTIFIABLE_MESSAGES[refused]);
  const certified = await currentCertificate(c.env, db, id);
  if (!certified) throw new ApiError("invalid_state", "This verification has no certificate.");
  c.header("Cache-Control", "no-store");
  return c.json(presentCertificate(certified.certificate, settings(c.env).baseUrl) as z.infer<typeof CertificateSchema>, 200);
});

const createLink = createRoute({
  method: "post",
  path: "/v1/verifications/{id}/certificate-link",
  operationId: "createCertificateLink",
  tags: ["Certificates"],
  summary: "Share the certificate: a new link with its own token",
  description:
    "The `url` is shown only in this answer (the token is stored hashed) and works until revoked; it is not the capture link and opens nothing else. " +
    "409 `invalid_state` before the verification completes (no certificate yet), for a verdict that evaluated nothing (`assessment: none`: never certified), and beyond 50 active links. " +
    "Recorded in the audit log as `certificate_link.created` (the verification and the link's `id`, never its URL).",
  ...access({ apiKey: "full", session: "reviewer" }),
  request: { params: IdParam },
  responses: { 201: jsonContent(CreatedCertificateLinkSchema, "The new link, its URL included once"), ...pickErrors(401, 403, 404, 409, 500) },
});

app.openapi(createLink, async (c) => {
  const { id } = c.req.valid("param");
  const created = await createCertificateLink(c.env, createDb(c.env.DB), c.get("principal"), id, (row) =>
    auditEntry(c, "certificate_link.created", { type: "verification", id: row.verificationId }, { link_id: row.id }),
  );
  const { baseUrl } = settings(c.env);
  c.header("Cache-Control", "no-store");
  const body = { ...presentLink(created.row), url: certificateLinkUrl(baseUrl, created.token), certificate: presentCertificate(created.certificate, baseUrl) };
  return c.json(body as z.infer<typeof CreatedCertificateLinkSchema>, 201);
});

const listLinks = createRoute({
  method: "get",
  path: "/v1/verifications/{id}/certificate-links",
  operationId: "listCertificateLinks",
  tags: ["Certificates"],
  summary: "The verification's certificate links, newest first (revoked ones included; never their URL)",
  ...access({ apiKey: "full", session: "viewer" }),
  request: { params: IdParam },
  responses: { 200: jsonContent(CertificateLinkListSchema, "The links"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(listLinks, async (c) => {
  const { id } = c.req.valid("param");
  const rows = await listCertificateLinks(createDb(c.env.DB), c.get("principal").tenantId, id);
  return c.json({ items: rows.map(presentLink) }, 200);
});

const revokeLink = createRoute({
  method: "delete",
  path: "/v1/certificate-links/{id}",
  operationId: "revokeCertificateLink",
  tags: ["Certificates"],
  summary: "Revoke a certificate link (it answers 404 from now on; repeating the call is harmless)",
  description: "Recorded in the audit log as `certificate_link.revoked` by the call that revokes it (a repeat records nothing).",
  ...access({ apiKey: "full", session: "reviewer" }),
  request: { params: CertificateLinkIdParam },
  responses: { 200: jsonContent(CertificateLinkSchema, "The revoked link"), ...pickErrors(401, 403, 404, 500) },
});

app.openapi(revokeLink, async (c) => {
  const { id } = c.req.valid("param");
  const row = await revokeCertificateLink(createDb(c.env.DB), c.get("principal").tenantId, id, (link) =>
    auditEntry(c, "certificate_link.revoked", { type: "certificate_link", id: link.id }, { verification_id: link.verificationId }),
  );
  return c.json(presentLink(row), 200);
});

const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

const byLink = createRoute({
  method: "get",
  path: "/v1/certificates/{token}",
  operationId: "getCertificateByLink",
  tags: ["Certificates"],
  summary: "A shared certificate; no authentication (the token is the credential)",
  description:
    "`Accept: text/html` gets a page that shows the certificate, verifies its signature in the browser against the JWKS and checks dropped photos' SHA-256 locally; " +
    "anything else gets JSON. Unknown and revoked links are 404. Limited to 60 requests per minute per client.",
  security: [],
  request: { params: CertificateTokenParam },
  responses: {
    200: { description: "The certificate", content: { "application/json": { schema: CertificateSchema }, "text/html": { schema: z.string() } } },
    404: { description: "Unknown or revoked link (`not_found`)", content: { ...errorResponses[404].content, ...html("").content } },
    429: { ...errorResponses[429], content: { ...errorResponses[429].content, ...html("").content } },
    500: errorResponses[500],
  },
});

app.openapi(byLink, async (c) => {
  const wantsPage = /\btext\/html\b/i.test(c.req.header("Accept") ?? "");
  c.header("Vary", "Accept");
  c.header("Cache-Control", "no-store");
  c.header("Referrer-Policy", "no-referrer");
  try {
    await enforceLimit(c.env, CERTIFICATE_LIMITS.certificateRead, clientKey(c.req.header("CF-Connecting-IP")));
  } catch (err) {
    if (!wantsPage || !(err instanceof ApiError) || err.code !== "too_many_requests") throw err;
    return page(c, htmlPage("Too many requests", "This network opened many certificates in the last minute. Wait a minute and reload the page."), 429, { ...HTML_HEADERS, ...err.headers });
  }
  const { token } = c.req.valid("param");
  const certificate = await certificateForLink(c.env, createDb(c.env.DB), token);
  if (!certificate) {
    if (!wantsPage) throw ApiError.notFound("certificate link");
    return notFoundPage(c);
  }
  const body = presentCertificate(certificate, settings(c.env).baseUrl);
  if (wantsPage) return page(c, certificatePageHtml(body, c.req.url), 200, CERTIFICATE_PAGE_HEADERS);
  return c.json(body as z.infer<typeof CertificateSchema>, 200);
}, (result, c) => {
  // A token longer than any names no link: for a person, the same page as an unknown one.
  if (!result.success && /\btext\/html\b/i.test(c.req.header("Accept") ?? "")) {
    c.header("Vary", "Accept");
    c.header("Cache-Control", "no-store");
    c.header("Referrer-Policy", "no-referrer");
    return notFoundPage(c);
  }
  validationHook(result);
  return undefined;
});

function notFoundPage(c: Context<AppEnv>) {
  return c.body(htmlPage("Certificate not found", "This certificate link does not exist or was withdrawn by the organisation that shared it. Ask them for a new one."), 404, HTML_HEADERS);
}

/** An HTML answer with the headers set so far (Vary, CORS) and the page's own. */
function page(c: Context<AppEnv>, html: string, status: number, headers: Readonly<Record<string, string>>): Response {
  const merged = new Headers(c.res.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(html, { status, headers: merged });
}

export default app;
