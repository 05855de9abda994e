import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createDb } from "../db/client";
import { clientKey, enforceLimit, PUBLIC_LIMITS } from "../domain/public-limits";
import { isLinkPreview, startFromLink } from "../domain/templates/start";
import type { AppEnv } from "../env";
import { isLocalRequest } from "../env";
import { ApiError } from "../lib/errors";
import { HTML_HEADERS, htmlPage } from "../lib/html";
import { validationHook } from "../lib/validation";
import { PublicLinkParams } from "../schemas/link-templates";

/** The public template links people open in a browser: answers are redirects or small HTML pages. */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

const start = createRoute({
  method: "get",
  path: "/l/{org}/{slug}",
  operationId: "startFromLink",
  tags: ["Link templates"],
  security: [],
  summary: "Start a verification from a link template and go to its capture page",
  request: { params: PublicLinkParams },
  responses: {
    200: html("A link preview (HEAD, or a chat app unfurling the link): nothing is started or counted"),
    303: { description: "To the new verification's capture page", headers: z.object({ Location: z.string() }) },
    404: html("Unknown link"),
    410: html("Revoked link"),
    503: html("The link's template requires what this deployment cannot assess now (e.g. its vision provider was removed): nothing is started; the refusal is logged for the operator"),
    429: { ...html("The link cannot start a verification now (too many starts from this network, or a limit of its organisation); `Retry-After` says when to try again"), headers: z.object({ "Retry-After": z.string() }) },
  },
});

app.openapi(start, async (c) => {
  const { org, slug } = c.req.valid("param");
  const preview = isLinkPreview(c.req.method, c.req.header("User-Agent"));
  if (!preview) {
    try {
      await enforceLimit(c.env, PUBLIC_LIMITS.linkStart, clientKey(c.req.header("CF-Connecting-IP")));
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "too_many_requests") throw err;
      const page = htmlPage("Too many verifications started", "This network started many verifications in the last few minutes. Wait a little and open the link again.");
      return c.body(page, 429, { ...HTML_HEADERS, ...err.headers });
    }
  }
  let outcome: Awaited<ReturnType<typeof startFromLink>>;
  try {
    outcome = await startFromLink(c.env, createDb(c.env.DB), org, slug, { preview, localRequest: isLocalRequest(c.env, c.req.url) });
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "too_many_requests") throw err;
    const page = htmlPage("Please try again later", "This link cannot start a new verification right now. Try again later, or ask the organisation that shared it.");
    return c.body(page, 429, { ...HTML_HEADERS, ...err.headers });
  }
  switch (outcome.kind) {
    case "started":
      c.header("Cache-Control", "no-store");
      return c.redirect(outcome.captureUrl, 303);
    case "preview":
      return c.body(htmlPage(outcome.name, "Open this link on your phone to start the verification."), 200, HTML_HEADERS);
    case "revoked":
      return c.body(htmlPage("This link is no longer active", `“${outcome.name}” was withdrawn by the organisation that shared it. Ask them for a new link.`), 410, HTML_HEADERS);
    case "unavailable":
      return c.body(htmlPage("This link cannot be used right now", `“${outcome.name}” cannot start a verification at the moment. Try again later, or ask the organisation that shared it.`), 503, HTML_HEADERS);
    case "not_found":
      return notFoundPage(c);
  }
}, (result, c) => {
  // An org or slug longer than any can be names no link: the same page as an unknown one.
  if (!result.success) return notFoundPage(c);
});

function notFoundPage(c: Context<AppEnv>): Response {
  return c.body(htmlPage("Link not found", "This link does not exist. Check that it was copied completely, or ask for a new one."), 404, HTML_HEADERS);
}

export default app;
