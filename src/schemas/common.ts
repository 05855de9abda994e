import { z } from "@hono/zod-openapi";

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      message: z.string(),
      fields: z.record(z.string(), z.string()).optional().openapi({ example: { "steps.0.max": "Too small: expected number to be >=1" } }),
    }),
  })
  .openapi("Error");

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorBodySchema } },
});

/** Standard error responses, spread into each route's `responses`. */
export const errorResponses = {
  400: errorResponse("Invalid request (`invalid_request`, `unknown_step`, `checksum_mismatch`)"),
  401: errorResponse("Missing, malformed, revoked or wrong-environment credential (`unauthorized`)"),
  403: errorResponse("Authenticated but not allowed (`forbidden`)"),
  404: errorResponse("Unknown resource, or one owned by another tenant (`not_found`)"),
  409: errorResponse("Conflict with the current state"),
  410: errorResponse("The verification expired (`expired`) or was redacted (`redacted`)"),
  413: errorResponse("Payload too large (`payload_too_large`)"),
  415: errorResponse("Unsupported media type (`unsupported_media_type`)"),
  429: {
    ...errorResponse("Rate limited (`too_many_requests`)"),
    headers: z.object({ "Retry-After": z.string().openapi({ description: "Seconds until a new request may succeed", example: "3600" }) }),
  },
  500: errorResponse("Unexpected error (`internal_error`)"),
  503: errorResponse("A dependency could not answer; retry after `Retry-After` seconds (`service_unavailable`)"),
} as const;

export function pickErrors<K extends keyof typeof errorResponses>(...codes: K[]): Pick<typeof errorResponses, K> {
  const out = {} as Pick<typeof errorResponses, K>;
  for (const code of codes) out[code] = errorResponses[code];
  return out;
}

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** A required JSON request body with its example (typed by the schema, linted against it). */
export const jsonBody = <T extends z.ZodType>(schema: T, example: z.input<T>) => ({
  content: { "application/json": { schema, example } },
  required: true as const,
});

export const DateTime = z.iso.datetime({ offset: true }).openapi({ example: "2026-11-22T10:00:00.000Z" });
export const VerificationId = z.string().openapi({ example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", pattern: "^vfy_[0-9A-HJKMNP-TV-Z]{26}$" });

/** `Idempotency-Key` (1..255 chars): the same key and body replay the first response for 24 h. */
export const IdempotencyHeaders = z.object({
  "idempotency-key": z.string().min(1).max(255).optional().openapi({ description: "Replays the first response for 24 h." }),
});
