import { z } from "@hono/zod-openapi";
import { BIDI_CONTROL, CONTROL_IN_PROSE, CONTROL_OR_LINE_BREAK, FILLER, VISIBLE } from "../lib/text";
import { codesOfStatus, ERROR_STATUS, type ErrorBody, type ErrorCode } from "../lib/errors";

const Message = z.string().openapi({ description: "Human-readable English: everything about the error but its code." });
const Fields = z
  .record(z.string(), z.string())
  .openapi({ description: "Only on `invalid_request`: each invalid input's dotted path and what is wrong with it.", example: { "steps.0.max": "Must be at least 1." } });

/** Any error body (what an unknown path or method answers, too). */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).openapi({ example: "invalid_request" }),
      message: Message,
      fields: Fields.optional(),
    }),
  })
  .openapi("Error");

/**
 * The error body a status can carry, named per status (`Error409`, …): `code` is one of that
 * status's codes (lib/errors.ts), and only `invalid_request` has `fields`.
 */
function statusErrorSchema(status: number): z.ZodType<ErrorBody> {
  const codes = codesOfStatus(status);
  const plain = codes.filter((code) => code !== "invalid_request");
  const body = (code: z.ZodType, withFields: boolean) => z.object({ error: z.object({ code, message: Message, ...(withFields ? { fields: Fields.optional() } : {}) }) });
  const plainBody = plain.length > 0 ? body(z.enum(plain as [ErrorCode, ...ErrorCode[]]), false) : null;
  const schema = codes.includes("invalid_request")
    ? plainBody
      ? z.union([body(z.literal("invalid_request"), true), plainBody])
      : body(z.literal("invalid_request"), true)
    : plainBody!;
  return (schema as z.ZodType<ErrorBody>).openapi(`Error${status}`, { description: `Codes: ${codes.map((c) => `\`${c}\``).join(", ")}.` });
}

const errorResponse = (status: number, description: string) => ({
  description: `${description}. Codes: ${codesOfStatus(status).map((c) => `\`${c}\``).join(", ")}.`,
  content: { "application/json": { schema: statusErrorSchema(status) } },
});

/** Standard error responses, spread into each route's `responses`. */
export const errorResponses = {
  400: errorResponse(400, "Invalid request (`fields` only on `invalid_request`)"),
  401: errorResponse(401, "Missing, malformed, revoked or wrong-environment credential"),
  403: errorResponse(403, "Authenticated but not allowed"),
  404: errorResponse(404, "Unknown resource, or one owned by another tenant"),
  409: errorResponse(409, "Conflict with the current state"),
  410: errorResponse(410, "Gone: the link this route serves expired (the route's description says which), or the verification was redacted"),
  413: errorResponse(413, "Payload too large"),
  415: errorResponse(415, "Unsupported media type"),
  429: {
    ...errorResponse(429, "Rate limited"),
    headers: z.object({ "Retry-After": z.string().openapi({ description: "Seconds until a new request may succeed", example: "3600" }) }),
  },
  500: errorResponse(500, "Unexpected error; nothing internal is in the body"),
  503: {
    ...errorResponse(503, "A backing service (D1, R2, a Durable Object, the webhook URL guard's DNS resolver) could not answer; nothing to fix in the request: retry"),
    headers: z.object({ "Retry-After": z.string().openapi({ description: "Seconds to wait before retrying", example: "1" }) }),
  },
} as const;

/**
 * The given error responses. Anything that can fail unexpectedly (500) can also find its storage
 * unavailable, so 500 brings 503 with it.
 */
type ErrorStatus = keyof typeof errorResponses;
export function pickErrors<K extends ErrorStatus>(...codes: K[]): Pick<typeof errorResponses, K | (500 extends K ? 503 : never)> {
  const out: Partial<Record<ErrorStatus, unknown>> = {};
  for (const code of codes) out[code] = errorResponses[code];
  if ((codes as ErrorStatus[]).includes(500)) out[503] = errorResponses[503];
  return out as Pick<typeof errorResponses, K | (500 extends K ? 503 : never)>;
}

/** An HTML page, for a browser (sign-in and invitation pages). */
export const htmlContent = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

/**
 * A dead sign-in or invitation link: the standard 401 error body to a client that asks for JSON
 * (and not HTML), a page to a browser (lib/http.ts `prefersJson`).
 */
export const deadLinkResponse = (description: string) => ({
  description: `${description}: a page for a browser, the standard error body (\`unauthorized\`) for \`Accept: application/json\`.`,
  content: { "text/html": { schema: z.string() }, ...errorResponses[401].content },
});

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** A required JSON request body with its example (typed by the schema, linted against it). */
export const jsonBody = <T extends z.ZodType>(schema: T, example: z.input<T>) => ({
  content: { "application/json": { schema, example } },
  required: true as const,
});

/**
 * A map the tenant supplies (metadata, context attributes). A `__proto__` key is refused by name:
 * zod, like any JavaScript object, cannot hold it as data and would drop it in silence.
 */
export const tenantMap = <T extends z.ZodType>(record: T) =>
  z.preprocess((input, ctx) => {
    if (typeof input === "object" && input !== null && Object.hasOwn(input, "__proto__")) {
      ctx.issues.push({ code: "custom", message: "`__proto__` cannot be a key here: use another name.", path: ["__proto__"], input });
    }
    return input;
  }, record);

export const DateTime = z.iso.datetime({ offset: true }).openapi({ example: "2026-11-22T10:00:00.000Z" });
/**
 * A date-time a client sends: RFC 3339, which allows `t` and `z` in lower case (§5.6) where zod's
 * ISO check wants them upper; read as their upper-case form (the other characters are digits and
 * punctuation).
 */
export const DateTimeInput = z.preprocess((value) => (typeof value === "string" ? value.toUpperCase() : value), z.iso.datetime({ offset: true }));
export const VerificationId = z.string().openapi({ example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", pattern: "^vfy_[0-9A-HJKMNP-TV-Z]{26}$" });

/** `Idempotency-Key` (1..255 chars): the same key and body replay the first response for 24 h. */
export const IdempotencyHeaders = z.object({
  "idempotency-key": z.string().min(1).max(255).optional().openapi({ description: "Replays the first response for 24 h." }),
});

/**
 * A page size in the query string, 1..100: digits only, as the document's `integer` says (" 5",
 * "1e2" and "5.0" would read as numbers through `Number()`, and are refused instead).
 */
export const pageLimit = () =>
  z.preprocess((value) => (typeof value === "string" && /^[0-9]{1,4}$/.test(value) ? Number(value) : value), z.int({ error: "Must be a whole number written in digits, 1..100." }).min(1).max(100));

/** A keyset page: `limit` and the `next_cursor` of the previous page passed back as `cursor`. */
export const PageQuery = z.object({
  limit: pageLimit().default(100).openapi({ description: "1..100, default 100" }),
  cursor: z.string().max(500).optional(),
});

export const NO_CONTROL_MESSAGE = "Must be one line of text: control characters and line breaks (CR, LF, U+2028, U+2029) are not allowed.";

/**
 * A string refusing CONTROL_OR_LINE_BREAK (lib/text.ts) (400 `invalid_request` naming the field),
 * checked before any trim. Half a surrogate pair is refused in every JSON body (lib/http.ts, jsonBodies).
 */
export function singleLine(schema: z.ZodString = z.string()): z.ZodString {
  return schema.refine((value) => !CONTROL_OR_LINE_BREAK.test(value), { message: NO_CONTROL_MESSAGE });
}

export const BIDI_CONTROL_MESSAGE = "Must not hold bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): they reorder what a reader sees.";
/** A string refusing bidirectional controls (400 `invalid_request` naming the field): for names, not prose (right-to-left text needs them). */
export function noBidi(schema: z.ZodString): z.ZodString {
  return schema.refine((value) => !BIDI_CONTROL.test(value), { message: BIDI_CONTROL_MESSAGE });
}

export const NOT_VISIBLE_MESSAGE = "Must show something: a name of only invisible, combining or space characters is not one.";

/**
 * A name people read to tell things apart (an organisation, an API key, a link template, a phone):
 * one line (singleLine), trimmed, 1..`max` characters, no bidirectional controls, and something that
 * shows. Each refusal is 400 `invalid_request` naming the field.
 */
export function shownName(max = 100): z.ZodString {
  return singleLine()
    .max(max)
    .trim()
    .min(1)
    .refine((name) => !BIDI_CONTROL.test(name), { message: BIDI_CONTROL_MESSAGE })
    .refine((name) => VISIBLE.test(name), { message: NOT_VISIBLE_MESSAGE })
    .refine((name) => !FILLER.test(name), { message: FILLER_MESSAGE });
}

export const FILLER_MESSAGE = "Must not hold Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) or the blank Braille pattern (U+2800): they print as nothing, so two names would look the same.";

export const NO_CONTROL_IN_PROSE_MESSAGE =
  "Must be text: control characters other than tab and line breaks (NUL, escape sequences, U+2028, U+2029) are not allowed.";

/**
 * Free text a person typed (an answer, a narrative): lines and tabs are kept, other control
 * characters are refused (400 `invalid_request` naming the field), since they would be printed in
 * the report and the console as something other than what was typed.
 */
export function prose(schema: z.ZodString = z.string()): z.ZodString {
  return schema.refine((value) => !CONTROL_IN_PROSE.test(value), { message: NO_CONTROL_IN_PROSE_MESSAGE });
}

/**
 * A path segment that names a stored thing (an id, a token, a slug). Longer than `max` it names
 * nothing: like any unknown id it answers 404 `not_found` (lib/validation.ts), before any lookup.
 */
export function pathId(name: string, options: { example?: string; description?: string; max?: number } = {}) {
  const { max = 64, example, description } = options;
  return z
    .string()
    .max(max)
    .openapi({ param: { name, in: "path", ...(description ? { description } : {}) }, ...(example ? { example } : {}) });
}
