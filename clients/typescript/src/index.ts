import createFetchClient from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export { verifyWebhook, WebhookVerificationError, type ReceivedWebhook } from "./webhooks.js";
export {
  captureWithDigest,
  CertificateError,
  requesterOf,
  sha256Hex,
  verifyCertificate,
  type CertificatePayload,
  type CertificatePayloadV1,
  type CertificatePayloadV2,
  type CertifiedCapture,
  type CertifiedSignal,
  type KeySource,
} from "./certificate.js";
export type { components, operations, paths };

type Schemas = components["schemas"];
export type Verification = Schemas["Verification"];
export type VerificationStatus = Verification["status"];
export type Verdict = Schemas["Verdict"];
export type CreateVerificationRequest = Schemas["CreateVerificationRequest"];
export type VerificationList = Schemas["VerificationList"];
export type ListVerificationsQuery = NonNullable<operations["listVerifications"]["parameters"]["query"]>;
export type WebhookEvent = Schemas["WebhookEvent"];
export type WebhookTestEvent = Schemas["WebhookTestEvent"];
export type Certificate = Schemas["Certificate"];
export type CertificateLink = Schemas["CertificateLink"];
export type ErrorBody = Schemas["Error"];

/** An error answer of the API: `code` is stable (see the document's `Error`), `message` is for people. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> | undefined,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  /** Where the service runs, e.g. `https://verify.example.com` (`http://localhost:8787` with `npm start`). */
  baseUrl: string;
  /** A tenant API key: `pk_test_…` (local, staging) or `pk_live_…` (production). */
  apiKey: string;
  /** Another fetch (a proxy, retries, tests); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface WaitOptions {
  /** When to stop polling (default: the status is settled: completed, failed or expired). */
  until?: (verification: Verification) => boolean;
  intervalMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Statuses that no longer change on their own: completed (verdict written), failed, expired. */
export const SETTLED_STATUSES: readonly VerificationStatus[] = ["completed", "failed", "expired"];
export const isSettled = (v: Verification): boolean => SETTLED_STATUSES.includes(v.status);

/**
 * A client for a tenant back-end. `api` is the typed openapi-fetch client for every operation of the
 * document; the methods below cover the common flow and turn error answers into `ApiError`.
 */
export function createClient(options: ClientOptions) {
  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  /** Creates a verification; hand its `capture_url` to the person taking the photos. */
  async function createVerification(body: CreateVerificationRequest, opts: { idempotencyKey?: string } = {}): Promise<Verification> {
    const header = opts.idempotencyKey ? { "idempotency-key": opts.idempotencyKey } : {};
    const { data, error, response } = await api.POST("/v1/verifications", { body, params: { header } });
    return data ?? fail(response, error);
  }

  async function getVerification(id: string): Promise<Verification> {
    const { data, error, response } = await api.GET("/v1/verifications/{id}", { params: { path: { id } } });
    return data ?? fail(response, error);
  }

  /** Polls until `until` holds (by default: the verification is settled). Prefer webhooks in production. */
  async function waitForVerification(id: string, opts: WaitOptions = {}): Promise<Verification> {
    const { until = isSettled, intervalMs = 2_000, timeoutMs = 15 * 60_000, signal } = opts;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      signal?.throwIfAborted();
      const verification = await getVerification(id);
      if (until(verification)) return verification;
      if (Date.now() + intervalMs > deadline) throw new Error(`verification ${id} is still ${verification.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  /** One page, newest first; pass `next_cursor` back as `cursor` (same filters) for the next. */
  async function listVerificationsPage(query: ListVerificationsQuery = {}): Promise<VerificationList> {
    const { data, error, response } = await api.GET("/v1/verifications", { params: { query } });
    return data ?? fail(response, error);
  }

  /** Every verification matching the filters, newest first, fetching pages as it goes. */
  async function* listVerifications(query: Omit<ListVerificationsQuery, "cursor"> = {}): AsyncGenerator<Verification> {
    let cursor: string | undefined;
    do {
      const page = await listVerificationsPage({ ...query, ...(cursor ? { cursor } : {}) });
      yield* page.items;
      cursor = page.next_cursor;
    } while (cursor);
  }

  /**
   * The evidence report (PDF bytes). `certificateLink`: the URL (or its `cert_…` token) of a
   * certificate link you created, to print with its QR code.
   */
  async function downloadReport(id: string, opts: { certificateLink?: string } = {}): Promise<Uint8Array> {
    const link = opts.certificateLink?.slice(opts.certificateLink.lastIndexOf("/") + 1);
    const { data, error, response } = await api.GET("/v1/verifications/{id}/report.pdf", {
      params: { path: { id }, query: link ? { certificate_link: link } : {} },
      parseAs: "arrayBuffer",
    });
    return data ? new Uint8Array(data) : fail(response, error);
  }

  return { api, createVerification, getVerification, waitForVerification, listVerificationsPage, listVerifications, downloadReport };
}

export type VerificationClient = ReturnType<typeof createClient>;

function fail(response: Response, error: unknown): never {
  const body = (error as Partial<ErrorBody> | undefined)?.error;
  const requestId = response.headers.get("X-Request-Id");
  if (body && typeof body === "object") throw new ApiError(response.status, body.code, body.message, body.fields, requestId);
  throw new ApiError(response.status, "unexpected_response", `HTTP ${response.status}`, undefined, requestId);
}
