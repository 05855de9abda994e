import { Hono } from "hono";
import { CATALOGS, negotiateLocale } from "../capture-page/locale";
import { capturePageHtml, notFoundHtml, PAGE_HEADERS } from "../capture-page/shell";
import type { AppEnv } from "../env";
import { isId } from "../lib/ids";

/**
 * `GET /c/{verification_id}`: the end user's capture page (the `capture_url`). The Worker answers
 * the HTML shell with the strings of the reader's language; the client bundle (static assets,
 * client/capture-page) drives the capture-flow API. No D1 read here: the page asks /v1/verify.
 */
const app = new Hono<AppEnv>();

app.get("/c/:id", (c) => {
  const locale = negotiateLocale(c.req.header("Accept-Language"));
  const strings = CATALOGS[locale]!;
  for (const [name, value] of Object.entries(PAGE_HEADERS)) c.header(name, value);
  c.header("Content-Language", locale);
  const id = c.req.param("id");
  if (!isId("verification", id)) return c.html(notFoundHtml(locale, strings), 404);
  return c.html(capturePageHtml({ verification_id: id, locale, strings }), 200);
});

export default app;
