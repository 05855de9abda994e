import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Every error code the API can answer with, and the HTTP status it travels with. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unknown_step: 400,
  checksum_mismatch: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  step_full: 409,
  invalid_state: 409,
  already_finalized: 409,
  idempotency_conflict: 409,
  expired: 410,
  /** The verification's evidence was erased (POST /redact or tenant retention): nothing can be added. */
  redacted: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  internal_error: 500,
  storage_unavailable: 503,
  service_unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type FieldErrors = Record<string, string>;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; fields?: FieldErrors };
}

/** The one error type domain code throws or returns; `onError` turns it into the standard body. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly fields?: FieldErrors;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { fields?: FieldErrors; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    if (options.fields) this.fields = options.fields;
    if (options.headers) this.headers = options.headers;
  }

  get status(): ContentfulStatusCode {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.fields ? { fields: this.fields } : {}) } };
  }

  static invalid(fields: FieldErrors, message = "The request is invalid."): ApiError {
    return new ApiError("invalid_request", message, { fields });
  }

  static notFound(what = "resource"): ApiError {
    return new ApiError("not_found", `No such ${what}.`);
  }
}

/** A plain serialisable error, for results that cross a Durable Object RPC boundary. */
export interface ErrorResult {
  ok: false;
  error: { code: ErrorCode; message: string; fields?: FieldErrors };
  /** for a 429: the `Retry-After` header, in seconds */
  retryAfter?: number;
}

export function errorResult(code: ErrorCode, message: string, fields?: FieldErrors): ErrorResult {
  return { ok: false, error: { code, message, ...(fields ? { fields } : {}) } };
}

export function toApiError(result: ErrorResult): ApiError {
  return new ApiError(result.error.code, result.error.message, {
    ...(result.error.fields ? { fields: result.error.fields } : {}),
    ...(result.retryAfter !== undefined ? { headers: { "Retry-After": String(result.retryAfter) } } : {}),
  });
}

/** Maps hono's own HTTPExceptions (malformed JSON, body limits) into the error model. */
export function fromHttpException(err: HTTPException): ApiError {
  switch (err.status) {
    case 400:
      return new ApiError("invalid_request", err.message || "The request body could not be parsed.", {
        fields: { body: err.message || "Malformed request body." },
      });
    case 401:
      return new ApiError("unauthorized", "Authentication required.");
    case 403:
      return new ApiError("forbidden", "This request is not allowed.");
    case 404:
      return ApiError.notFound();
    case 413:
      return new ApiError("payload_too_large", "The request body is too large.");
    case 415:
      return new ApiError("unsupported_media_type", "Unsupported media type.");
    default:
      return new ApiError("internal_error", "Something went wrong on our side.");
  }
}
