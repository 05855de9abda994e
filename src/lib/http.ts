import type { Context, Hono, HonoRequest } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../env";
import { ConfigError } from "../env";
import { ApiError, fromHttpException, isStorageFailure } from "./errors";
import { log } from "./log";
import { UNPAIRED_SURROGATE_MESSAGE, unpairedSurrogatePath } from "./text";

/**
 * Whether the caller asked for JSON and not HTML (`Accept: application/json`): what the answers
 * meant for a browser's address bar (sign-in and invitation links) give such a client instead of a
 * page. A browser's navigation accepts text/html; a client that says nothing gets the page.
 */
export function prefersJson(c: Context): boolean {
  const accept = c.req.header("Accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}

/** Turns anything thrown while handling a request into the standard error body. */
export function handleError(err: Error, c: Context<AppEnv>): Response {
  let apiError: ApiError;
  if (err instanceof ApiError) apiError = err;
  else if (err instanceof HTTPException) apiError = fromHttpException(err);
  else if (isStorageFailure(err)) apiError = new ApiError("storage_unavailable", "Storage did not answer; retry the request (with the same Idempotency-Key where one applies).", { headers: { "Retry-After": "1" } });
  else apiError = new ApiError("internal_error", "Something went wrong on our side.");
  if (err instanceof ConfigError) {
    log.error({ msg: `configuration invalid: ${err.message}`, request_id: c.get("requestId") });
  } else if (apiError.status >= 500) {
    log.error({ msg: "request failed", request_id: c.get("requestId"), path: c.req.path, error: String(err), stack: err.stack });
  }
  for (const [name, value] of Object.entries(apiError.headers ?? {})) c.header(name, value);
  return c.json(apiError.toBody(), apiError.status);
}

/** 404 for unknown paths; 405 (with Allow) for known paths asked with the wrong method. */
export function notFoundOrWrongMethod(app: Hono<AppEnv>) {
  let table: Array<{ pattern: RegExp; method: string }> | null = null;
  return (c: Context<AppEnv>): Response => {
    table ??= app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({ method: r.method, pattern: pathPattern(r.path) }));
    const allowed = [...new Set(table.filter((r) => r.pattern.test(c.req.path)).map((r) => r.method))];
    // Every GET route answers HEAD too (hono serves it from the GET handler).
    if (allowed.includes("GET") && !allowed.includes("HEAD")) allowed.push("HEAD");
    if (allowed.length > 0) {
      c.header("Allow", allowed.join(", "));
      return handleError(new ApiError("method_not_allowed", `${c.req.method} is not allowed here; use ${allowed.join(" or ")}.`), c);
    }
    return handleError(new ApiError("not_found", "No such route."), c);
  };
}

function pathPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment === "*" ? ".*" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  // Exact, as the router matches (strict): `/v1/verifications/` is no route, so 404, not a 405 naming the methods it refused.
  return new RegExp(`^${source}$`);
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** What a body that is not JSON is told, whichever operation it was sent to (hono's validator's words). */
const MALFORMED_JSON = "Malformed JSON in request body";

const NOT_UTF8 = "The body is not valid UTF-8 (JSON is UTF-8, RFC 8259 §8.1).";

/**
 * The body as text, and whether its bytes were UTF-8: read leniently, bytes that are not would be
 * stored as U+FFFD (security probe of 2026-12-07), so a JSON body with any is refused.
 */
function decodeBody(bytes: Uint8Array): { text: string; utf8: boolean } {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes), utf8: true };
  } catch {
    return { text: new TextDecoder().decode(bytes), utf8: false };
  }
}

/** `application/json`, with or without parameters (charset). */
export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && /^application\/json\s*(;|$)/i.test(value.trim());
}

/**
 * Why a body cannot be read as sent, or null: a `Content-Encoding` other than identity. The runtime
 * hands the bytes over still compressed, so it is 415, not a "malformed JSON" 400 or a stored gzip.
 */
export function unsupportedEncoding(contentEncoding: string | undefined): string | null {
  const encoding = contentEncoding?.trim().toLowerCase();
  return encoding && encoding !== "identity" ? `Content-Encoding ${encoding.slice(0, 40)} is not supported: send the body uncompressed.` : null;
}

/** A JSON body labelled with a charset other than UTF-8 (JSON is UTF-8, RFC 8259 §8.1, and is read so whatever the label): why, or null. */
function unsupportedCharset(contentType: string | undefined): string | null {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? "")?.[1]?.toLowerCase();
  if (charset === undefined || charset === "utf-8" || charset === "utf8") return null;
  return `JSON is UTF-8: send charset=utf-8 or no charset (got ${charset.slice(0, 40) || "an empty one"}).`;
}

/**
 * JSON routes take only `Content-Type: application/json` bodies (415 `unsupported_media_type`
 * otherwise): a cross-site form or `text/plain` beacon can then never reach them without a CORS
 * preflight, which is what keeps login CSRF (`/v1/auth/otp/verify`) and friends out. A body must
 * be UTF-8 and parse (400 otherwise) on every operation, also one that takes none and ignores what it is sent: a
 * garbled request never redacts or submits anything. An empty body is treated as absent whatever it
 * is labelled. Routes that stream raw bytes are mounted outside this.
 */
export const jsonBodies = createMiddleware<AppEnv>(async (c, next) => {
  if (!BODY_METHODS.has(c.req.method)) return next();
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  const { text, utf8 } = decodeBody(bytes);
  if (text.trim() !== "") {
    if (!isJsonContentType(c.req.header("Content-Type"))) {
      throw new ApiError("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.");
    }
    const unreadable = unsupportedEncoding(c.req.header("Content-Encoding")) ?? unsupportedCharset(c.req.header("Content-Type"));
    if (unreadable) throw new ApiError("unsupported_media_type", unreadable);
    if (!utf8) throw ApiError.invalid({ body: NOT_UTF8 });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw ApiError.invalid({ body: MALFORMED_JSON });
    }
    const broken = unpairedSurrogatePath(text, body);
    if (broken !== null) throw ApiError.invalid({ [broken]: UNPAIRED_SURROGATE_MESSAGE });
    // The validators and handlers read this parse rather than parsing the text again (an inline
    // capture's body is megabytes).
    c.req.json = <T>() => Promise.resolve(body as T);
    // The router's own media-type gate (@hono/zod-openapi) refuses forms RFC 9110 allows, such as
    // whitespace before the `;`: once accepted here, the body is labelled as it reads.
    if (c.req.header("Content-Type") !== "application/json") relabel(c.req, "application/json");
    return next();
  }
  relabel(c.req, null);
  return next();
});

/**
 * The request with its Content-Type replaced (null: removed). Only the headers: the body was read
 * and parsed above, and everything after reads that parse (`c.req.json`), so no byte is copied.
 */
function relabel(req: HonoRequest, contentType: string | null): void {
  const headers = new Headers(req.raw.headers);
  if (contentType === null) headers.delete("content-type");
  else headers.set("content-type", contentType);
  req.raw = new Request(req.raw.url, { method: req.method, headers });
}

export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = c.req.header("CF-Ray") ?? crypto.randomUUID();
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
});

/**
 * Whether an `If-None-Match` header matches `etag` (a quoted strong tag): `*` matches any current
 * representation, and the comparison is weak (RFC 9110 §13.1.2), so `W/"…"` matches too.
 */
export function noneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}
