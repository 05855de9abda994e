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
import { negotiateLocale } from "../capture-page/locale";
import { LINK_PAGES, type LinkPageKey } from "../capture-page/strings/link-pages";

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

/** The locale the capture page would use for this browser. */
const localeOf = (c: Context<AppEnv>) => negotiateLocale(c.req.header("Accept-Language"), Object.keys(LINK_PAGES)) as keyof typeof LINK_PAGES;

/** A link's page in that locale. */
function linkPage(c: Context<AppEnv>, kind: "not_found" | "revoked" | "unavailable" | "busy" | "later", name = ""): string {
  const lang = localeOf(c);
  const words = (key: LinkPageKey) => LINK_PAGES[lang][key].replace("{name}", name);
  return htmlPage(words(`${kind}_heading`), words(`${kind}_body`), undefined, lang);
}

app.openapi(start, async (c) => {
  const { org, slug } = c.req.valid("param");
  const preview = isLinkPreview(c.req.method, c.req.header("User-Agent"));
  if (!preview) {
    try {
      await enforceLimit(c.env, PUBLIC_LIMITS.linkStart, clientKey(c.req.header("CF-Connecting-IP")));
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "too_many_requests") throw err;
      return c.body(linkPage(c, "busy"), 429, { ...HTML_HEADERS, ...err.headers });
    }
  }
  let outcome: Awaited<ReturnType<typeof startFromLink>>;
  try {
    outcome = await startFromLink(c.env, createDb(c.env.DB), org, slug, { preview, localRequest: isLocalRequest(c.env, c.req.url) });
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "too_many_requests") throw err;
    return c.body(linkPage(c, "later"), 429, { ...HTML_HEADERS, ...err.headers });
  }
  switch (outcome.kind) {
    case "started":
      c.header("Cache-Control", "no-store");
      return c.redirect(outcome.captureUrl, 303);
    case "preview":
      return c.body(htmlPage(outcome.name, LINK_PAGES[localeOf(c)].preview_body, undefined, localeOf(c)), 200, HTML_HEADERS);
    case "revoked":
      return c.body(linkPage(c, "revoked", outcome.name), 410, HTML_HEADERS);
    case "unavailable":
      return c.body(linkPage(c, "unavailable", outcome.name), 503, HTML_HEADERS);
    case "not_found":
      return notFoundPage(c);
  }
}, (result, c) => {
  // An org or slug longer than any can be names no link: the same page as an unknown one.
  if (!result.success) return notFoundPage(c);
});

const slashed = createRoute({
  method: "get",
  path: "/l/{org}/{slug}/",
  operationId: "startFromLinkWithSlash",
  tags: ["Link templates"],
  security: [],
  summary: "A template link with a trailing slash (a chat app or a person added it): to the link without it",
  request: { params: PublicLinkParams },
  responses: {
    308: { description: "To `/l/{org}/{slug}`, the query kept", headers: z.object({ Location: z.string() }) },
    404: html("Unknown link"),
  },
});

app.openapi(slashed, (c) => {
  const { org, slug } = c.req.valid("param");
  return c.redirect(`/l/${org}/${slug}${new URL(c.req.url).search}`, 308);
}, (result, c) => {
  if (!result.success) return notFoundPage(c);
});

function notFoundPage(c: Context<AppEnv>): Response {
  return c.body(linkPage(c, "not_found"), 404, HTML_HEADERS);
}

export default app;
