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
  /** A text step's answer was changed as often as it may be (model/verification/transitions.ts). */
  answer_limit: 409,
  idempotency_conflict: 409,
  /**
   * A key-reference capture names an upload whose capture window (an hour after its URL expired)
   * has passed: upload the image again. The link itself is still valid (a dead link is 410).
   */
  upload_expired: 409,
  expired: 410,
  /** The verification's evidence was erased (POST /redact or tenant retention): nothing can be added. */
  redacted: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  internal_error: 500,
  /**
   * A backing service could not answer: D1, R2 or a Durable Object failed, or the DNS resolver the
   * webhook URL guard needs. Nothing was written; retry (after `Retry-After` when it is sent).
   */
  storage_unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;
/** Every code but `invalid_request`: they say everything in `message` (no `fields`). */
export type PlainErrorCode = Exclude<ErrorCode, "invalid_request">;
export type FieldErrors = Record<string, string>;

/** The codes each status can carry, in ERROR_STATUS order (the OpenAPI document lists them per status). */
export function codesOfStatus(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; fields?: FieldErrors };
}

/**
 * The one error type domain code throws or returns; `onError` turns it into the standard body.
 * `fields` exists only on `invalid_request` (the spec): the constructor's overloads refuse it on any
 * other code, so every other error says everything in its `message`.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly fields?: FieldErrors;
  readonly headers?: Record<string, string>;

  constructor(code: "invalid_request", message: string, options?: { fields?: FieldErrors; headers?: Record<string, string> });
  constructor(code: PlainErrorCode, message: string, options?: { headers?: Record<string, string> });
  constructor(code: ErrorCode, message: string, options: { fields?: FieldErrors; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    if (options.fields && code === "invalid_request") this.fields = options.fields;
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

export function errorResult(code: PlainErrorCode, message: string): ErrorResult {
  return { ok: false, error: { code, message } };
}

/** A 400 `invalid_request` as a value, with the inputs it names. */
export function invalidResult(fields: FieldErrors, message = "The request is invalid."): ErrorResult {
  return { ok: false, error: { code: "invalid_request", message, fields } };
}

export function toApiError(result: ErrorResult): ApiError {
  const headers = result.retryAfter !== undefined ? { headers: { "Retry-After": String(result.retryAfter) } } : {};
  const { code, message, fields } = result.error;
  if (code === "invalid_request") return new ApiError(code, message, { ...(fields ? { fields } : {}), ...headers });
  return new ApiError(code, message, headers);
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

/**
 * Whether an error came out of a storage binding rather than out of our code: D1 (`D1_ERROR…`, a
 * lost connection, an overloaded or reset database), R2 (`get: … (10001)`: an operation's name and
 * R2's numeric code) or a Durable Object (`retryable`/`overloaded`, set by the runtime). Such a
 * failure answers 503 `storage_unavailable`: the client may retry. A constraint violation nobody
 * handled is our bug (500), whatever layer raised it.
 */
export function isStorageFailure(err: unknown): boolean {
  for (let current: unknown = err, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    const flags = current as { retryable?: unknown; overloaded?: unknown };
    if (flags.retryable === true || flags.overloaded === true) return true;
    const message = current.message;
    if (/constraint failed/i.test(message)) return false;
    if (/\bD1_(ERROR|EXEC_ERROR)\b|D1 DB (is overloaded|storage)|Network connection lost|storage caused object to be reset/.test(message)) return true;
    if (/^(get|put|head|list|delete|createMultipartUpload|uploadPart|completeMultipartUpload|abortMultipartUpload): .*\(\d{5}\)$/.test(message)) return true;
  }
  return false;
}
