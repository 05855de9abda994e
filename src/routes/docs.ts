import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppEnv } from "../env";

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
  app.doc31("/v1/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Verification Service API",
      version: "0.1.0",
      description: "Photo-evidence verification: capture links, fraud signals, signed webhooks, case analysis.",
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }));
  app.get("/docs", Scalar({ url: "/v1/openapi.json", pageTitle: "Verification Service API" }));
}
