import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { errorResponses } from "../schemas/common";

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
    description: '`t=<unix seconds>,v1=<hex HMAC-SHA256(BOT_SECRET, "<t>.<raw body>")>`; ±300 s, each signature once; the tenant is the body\'s `tenant_id`.',
  });
  documentJsonOnlyBodies(app);
  app.doc31("/v1/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Verification Service API",
      version: "0.1.0",
      description: "Photo-evidence verification: capture links, fraud signals, signed webhooks, case analysis.",
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }));
  app.get("/docs", (c) => c.body(DOCS_PAGE, 200, DOCS_HEADERS));
}

/**
 * `jsonBodies` (app.ts) answers 415 for a non-JSON body on every `/v1` write, whatever the route: the
 * document says so on each of them (the raw-bytes upload route documents its own 415).
 */
function documentJsonOnlyBodies(app: OpenAPIHono<AppEnv>): void {
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== "route") continue;
    const { route } = def;
    if (!route.path.startsWith("/v1/") || route.path.startsWith("/v1/uploads/")) continue;
    if (!["post", "put", "patch", "delete"].includes(route.method)) continue;
    route.responses[415] ??= errorResponses[415];
  }
}
