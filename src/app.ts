import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "./env";
import { apiSettings } from "./env";
import { ApiError } from "./lib/errors";
import { crossOriginWritesFirst } from "./auth/middleware";
import { handleError, jsonBodies, notFoundOrWrongMethod, requestId } from "./lib/http";
import { validationHook } from "./lib/validation";
import apiKeys from "./routes/api-keys";
import auditLog from "./routes/audit-log";
import auth from "./routes/auth";
import bot from "./routes/bot";
import capabilities from "./routes/capabilities";
import caseRoutes from "./routes/case";
import captures from "./routes/captures";
import report from "./routes/report";
import certificates from "./routes/certificates";
import evidence from "./routes/evidence";
import invitations from "./routes/invitations";
import members from "./routes/members";
import captureFlow, { deadLinkFirst } from "./routes/capture-flow";
import capturePage from "./routes/capture-page";
import consoleRoutes from "./routes/console";
import devRoutes from "./routes/dev";
import linkTemplates from "./routes/link-templates";
import phones from "./routes/phones";
import publicLinks from "./routes/public-links";
import redaction from "./routes/redaction";
import review from "./routes/review";
import tenantDomain from "./routes/tenant-domain";
import tenantSettings from "./routes/tenant-settings";
import trial from "./routes/trial";
import { mountDocs } from "./routes/docs";
import uploads from "./routes/uploads";
import verifications from "./routes/verifications";
import webhookActivity from "./routes/webhook-activity";
import webhooks from "./routes/webhooks";

const MB = 1024 * 1024;
const tooLarge = (): never => {
  throw new ApiError("payload_too_large", "The request body is too large.");
};

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(handleError);
  app.notFound(notFoundOrWrongMethod(app));
  app.use("*", requestId);
  // The configuration (secrets above all) is checked before anything else runs: a misconfigured
  // deployment answers 500 and logs which setting is wrong, instead of failing halfway through a write.
  app.use("*", async (c, next) => {
    apiSettings(c.env);
    await next();
  });
  app.use("*", async (c, next) => {
    await next();
    c.header("X-Content-Type-Options", "nosniff");
  });

  // Raw byte uploads first: they stream their body and must not pass through the JSON handling.
  app.route("/", uploads);

  // A dead capture link answers 410 whatever its body: outside the body checks below, to see their refusals.
  app.use("/v1/verifications/:token/*", deadLinkFirst);
  // Inline captures carry up to 6 MB of image as base64; every other JSON body is small.
  app.use("/v1/verifications/:token/captures", bodyLimit({ maxSize: 9 * MB, onError: tooLarge }));
  app.use("/v1/*", async (c, next) => {
    if (/^\/v1\/verifications\/[^/]+\/captures$/.test(c.req.path)) return next();
    return bodyLimit({ maxSize: 1 * MB, onError: tooLarge })(c, next);
  });
  app.use("/v1/*", crossOriginWritesFirst);
  app.use("/v1/*", jsonBodies);

  app.route("/", verifications);
  app.route("/", capabilities);
  app.route("/", captureFlow);
  app.route("/", webhooks);
  app.route("/", webhookActivity);
  app.route("/", auth);
  app.route("/", apiKeys);
  app.route("/", members);
  app.route("/", invitations);
  app.route("/", auditLog);
  app.route("/", phones);
  app.route("/", bot);
  app.route("/", linkTemplates);
  app.route("/", publicLinks);
  app.route("/", trial);
  app.route("/", caseRoutes);
  app.route("/", captures);
  app.route("/", report);
  app.route("/", evidence);
  app.route("/", review);
  app.route("/", redaction);
  app.route("/", certificates);
  app.route("/", tenantSettings);
  app.route("/", tenantDomain);
  app.route("/", devRoutes);
  app.route("/", capturePage);
  app.route("/", consoleRoutes);
  mountDocs(app);
  app.get("/", (c) => c.json({ service: "verification-service", docs: "/docs", openapi: "/v1/openapi.json" }));
  return app;
}
