import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ErrorBodySchema, errorResponses } from "../schemas/common";

/**
 * `/docs`: Swagger UI, bundled from swagger-ui-dist by scripts/build-page.mjs and served as this
 * Worker's static assets (dist/public/docs). The page shares the dashboard session cookie's origin,
 * so nothing else may run on it: scripts, styles, fonts and requests from 'self' only (images may
 * also be the stylesheet's inline data: icons).
 */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verification Service API</title>
<link rel="stylesheet" href="/docs/reference.css">
<link rel="icon" href="data:,">
</head>
<body>
<div id="reference"></div>
<script src="/docs/reference.js"></script>
</body>
</html>
`;

export const DOCS_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-cache",
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "Referrer-Policy": "no-referrer",
} as const;

/** `GET /v1/openapi.json` (OpenAPI 3.1 from the same zod schemas that validate) and `/docs`. */
export function mountDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "`pk_test_…` (staging and local) or `pk_live_…` (production)",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "session", { type: "apiKey", in: "cookie", name: "svc_session" });
  app.openAPIRegistry.registerComponent("securitySchemes", "botHmac", {
    type: "apiKey",
    in: "header",
    name: "X-Bot-Auth",
    description:
      '`t=<unix seconds>,v1=<hex HMAC-SHA256(BOT_SECRET, "<t>.<raw body>")>,v2=<hex HMAC-SHA256(BOT_SECRET, "<t>.<METHOD>.<path>.<raw body>")>`: ' +
      "`v1` alone is accepted (the contract's scheme); `v2` also binds the method and the path (with its query string, as sent), so send both; every signature sent must verify. " +
      "±300 s, each signature once; the tenant is the body's `tenant_id`. " +
      "Two requests with the same body to the same endpoint in the same second therefore carry the same signatures, and the second is refused as a replay (401); " +
      'to tell them apart, send a fresh nonce per request: `t=<unix seconds>,n=<nonce>,v2=<hex HMAC-SHA256(BOT_SECRET, "<t>.<n>.<METHOD>.<path>.<raw body>")>`, ' +
      "the nonce 16–64 characters of `A-Z a-z 0-9 _ -` (e.g. 18 random bytes, base64url), after `t` and before `v2`. " +
      "A header with `n` carries `v2` only: `v1` beside it is refused as malformed (v1 does not cover the nonce).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "webhookSignature", {
    type: "apiKey",
    in: "header",
    name: "webhook-signature",
    description: "Outbound webhooks (Standard Webhooks): `v1,<base64 HMAC-SHA256(secret, \"<webhook-id>.<webhook-timestamp>.<body>\")>` per active secret, space-separated.",
  });
  // Any error body: what a path or method no operation has answers (404/405); each status has its own Error<status>.
  app.openAPIRegistry.register("Error", ErrorBodySchema);
  documentBodyRefusals(app);
  documentSessionRoles(app);
  app.doc31("/v1/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: { title: "Verification Service API", version: "0.1.0", description: DESCRIPTION },
    servers: [{ url: new URL(c.req.url).origin }],
    tags: TAGS,
  }));
  app.get("/docs", (c) => c.body(DOCS_PAGE, 200, DOCS_HEADERS));
}

/**
 * Every `/v1` write refuses a body over its limit (413, app.ts) and, in `jsonBodies`, a body that is not
 * JSON (415) or does not parse (400), whatever the route, also one that takes no body: the document
 * says so on each of them (the raw-bytes upload route documents its own).
 */
function documentBodyRefusals(app: OpenAPIHono<AppEnv>): void {
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== "route") continue;
    const { route } = def;
    if (!route.path.startsWith("/v1/") || route.path.startsWith("/v1/uploads/")) continue;
    if (!["post", "put", "patch", "delete"].includes(route.method)) continue;
    route.responses[400] ??= errorResponses[400];
    route.responses[413] ??= errorResponses[413];
    route.responses[415] ??= errorResponses[415];
  }
}

/**
 * Each session route names the least role a member needs (`x-required-role`, set by `access`): the
 * document says so in words and lists the 401 and 403 every such route can answer.
 */
function documentSessionRoles(app: OpenAPIHono<AppEnv>): void {
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== "route") continue;
    const route = def.route as typeof def.route & { "x-required-role"?: string };
    const role = route["x-required-role"];
    if (!role) continue;
    const sentence = role === "owner" ? "A dashboard session needs the `owner` role." : `A dashboard session needs the \`${role}\` role or higher.`;
    if (!route.description?.includes(sentence)) route.description = route.description ? `${route.description} ${sentence}` : sentence;
    route.responses[401] ??= errorResponses[401];
    route.responses[403] ??= errorResponses[403];
  }
}

const DESCRIPTION = [
  "Photo-evidence verification: capture links, fraud signals, signed webhooks, case analysis.",
  "",
  "**Credentials.** A tenant back-end sends `Authorization: Bearer pk_test_…` (`pk_live_…` in production); a publishable key may only create verifications. " +
    "The dashboard uses the `svc_session` cookie of a member of one tenant: each operation names the least role it needs (`x-required-role`: `viewer` < `reviewer` < `admin` < `owner`), " +
    "and its unsafe requests follow the same-origin rule (a browser's `Sec-Fetch-Site` must be `same-origin`). An API key on a session-only operation is 403. The messaging bot signs each request (`X-Bot-Auth`). " +
    "The capture flow needs no header: the verification id in its path is the credential.",
  "",
  "**Errors.** Every error is `{\"error\": {\"code\", \"message\", \"fields\"?}}` (schema `Error`; per status `Error400`, `Error409`, … list the codes that status carries). " +
    "`fields` appears only on `invalid_request`, keyed by the dotted path of each invalid input; every other error says everything in `message`. " +
    "A backing service that does not answer is 503 `storage_unavailable` (retry). " +
    "A path no operation has answers 404 `not_found`; a known path asked with another method answers 405 `method_not_allowed` with `Allow`. " +
    "The one exception is the link-template list, whose storage failure is `{\"error\": \"storage_unavailable\"}` (schema `LinkTemplateListError`).",
].join("\n");

/** Every tag an operation may use (the lint refuses undeclared ones). */
const TAGS = [
  { name: "Verifications", description: "Create, read, list and close verifications (API key or dashboard session)." },
  { name: "Capture flow", description: "What the capture page calls: the verification id in the path is the only credential." },
  { name: "Webhooks", description: "Signed event delivery (Standard Webhooks), the delivery log, retries and the signing secret." },
  { name: "Certificates", description: "Signed, share-safe certificates of completed verifications, their public keys and their revocable share links." },
  { name: "Evidence", description: "The captured photos and their per-capture analysis, with short-lived signed image URLs (full API key or dashboard session)." },
  { name: "Tenant", description: "The tenant's own settings, such as evidence retention (dashboard session)." },
  { name: "Link templates", description: "Reusable public links that start a verification when opened." },
  { name: "API keys", description: "Mint, list and revoke the tenant's API keys (dashboard session)." },
  { name: "Team", description: "Members and their roles, invitations by email, and the operator audit log (dashboard session)." },
  { name: "Dashboard sign-in", description: "OpenID Connect, magic links and messaging codes for the operator dashboard." },
  { name: "Bot phones", description: "The phones whose messaging sign-in codes may join the tenant (dashboard session)." },
  { name: "Messaging bot", description: "Endpoints for the messaging bot, signed with `X-Bot-Auth`." },
  { name: "Trial", description: "Unauthenticated trial verifications, limited per client IP." },
];
