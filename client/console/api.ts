/*
 * The console's only way to the service: the public API through openapi-fetch, typed by the types
 * generated from the served OpenAPI document (clients/typescript/src/schema.d.ts, `npm run
 * gen:client`). Nothing here restates a shape; every operation the console performs is one any API
 * client can perform. The session cookie rides along (same origin); the browser marks every write
 * `Sec-Fetch-Site: same-origin`, which is what the service's same-origin rule reads.
 */
import createClient, { type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "../../clients/typescript/src/schema";
import { leaveForSignIn, signInUrl } from "./router";

export type Schemas = components["schemas"];
export type Verification = Schemas["Verification"];
export type VerificationStatus = Verification["status"];
export type Verdict = Schemas["Verdict"];
export type LinkTemplate = Schemas["LinkTemplate"];
export type ApiKey = Schemas["ApiKey"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type AuditEvent = Schemas["AuditEvent"];
export type Phone = Schemas["Phone"];
export type Me = Schemas["Me"];
export type Step = Schemas["Step"];
export type Capture = Schemas["Capture"];
export type CreateVerificationRequest = Schemas["CreateVerificationRequest"];
export type StepInput = NonNullable<CreateVerificationRequest["steps"]>[number];
export type ListQuery = NonNullable<operations["listVerifications"]["parameters"]["query"]>;

/** An error answer (`{error: {code, message, fields?}}`); `fields` are keyed by dotted input path. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Not a sign-in form's own refusal (a wrong code): the session ended. */
const sessionEnded = (status: number, url: string): boolean => status === 401 && !new URL(url).pathname.startsWith("/v1/auth/");

/**
 * A session that ended (expired, signed out elsewhere) sends the operator to sign in and back when
 * a screen reads. A write stays where it is: leaving would throw away what was typed (a review
 * note, a narrative), so `ok` says how to go on instead.
 */
const signedOut: Middleware = {
  onResponse({ request, response }) {
    if (sessionEnded(response.status, request.url) && request.method === "GET") {
      leaveForSignIn(signInUrl(`${location.pathname}${location.search}`));
    }
    return undefined;
  },
};

const SIGNED_OUT_WRITE = "You were signed out (the session ended, or someone signed everyone out). Sign in again in another tab, then press again here: what you typed is kept.";

export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: "same-origin" });
api.use(signedOut);

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The data of a successful answer, else an ApiError carrying the service's code and message. */
export async function ok<T>(pending: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await pending;
  } catch {
    throw new ApiError(0, "network_error", "The service could not be reached. Check the connection and try again.");
  }
  if (answer.response.ok && answer.data !== undefined) return answer.data;
  if (sessionEnded(answer.response.status, answer.response.url)) throw new ApiError(401, "unauthorized", SIGNED_OUT_WRITE);
  const body = answer.error as { error?: { code?: string; message?: string; fields?: Record<string, string> } | string } | undefined;
  const error = body?.error;
  if (error && typeof error === "object") {
    throw new ApiError(answer.response.status, error.code ?? "error", error.message ?? "The request failed.", error.fields ?? {});
  }
  throw new ApiError(answer.response.status, typeof error === "string" ? error : "error", `The service answered ${answer.response.status}.`);
}

/** The statuses a verification can still leave on its own (what live refresh watches). */
export const OPEN_STATUSES: readonly VerificationStatus[] = ["pending", "partially_captured", "abandoned"];
/** Erased evidence never changes again, whatever its status reads (retention erases open verifications too). */
export const isOpen = (v: Verification): boolean => !v.redacted_at && (OPEN_STATUSES.includes(v.status) || (v.status === "completed" && !v.verdict));
