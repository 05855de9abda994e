import type { VerificationReply, VerifyView } from "./flow";
import type { CaptureIntegrityRequest } from "../../src/schemas/capture-integrity";

/** The server refused (a 4xx/5xx with the standard error body). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
    /** `Retry-After` in seconds, when the answer carried one (a 429, a 503). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }

  /** Worth trying again later: the server or the network path hiccupped, not a refusal of the request. */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 408 || this.status === 429;
  }
}

/** The server says submit would not be taken now (`ready_for_submit: false`): nothing was sent. */
export class NotReadyForSubmit extends ApiFailure {
  constructor() {
    super(409, "not_ready_for_submit", "Something is still missing before this can be sent.");
  }
}

/** The request never got an answer (offline, dropped connection, timeout). Always retryable. */
export class NetworkFailure extends Error {}

export function isRetryable(err: unknown): boolean {
  return err instanceof NetworkFailure || (err instanceof ApiFailure && err.retryable);
}

const TIMEOUT_MS = 60_000;

async function send(url: string, init: RequestInit = {}): Promise<Response> {
  const controller = typeof AbortController === "function" ? new AbortController() : undefined;
  const timer = controller ? setTimeout(() => controller.abort(), TIMEOUT_MS) : undefined;
  try {
    return await fetch(url, { ...init, credentials: "omit", cache: "no-store", signal: controller?.signal ?? null });
  } catch (err) {
    throw new NetworkFailure(err instanceof Error ? err.message : String(err));
  } finally {
    clearTimeout(timer);
  }
}

async function parse<T>(res: Response): Promise<T> {
  const text = await res.text().catch(() => {
    throw new NetworkFailure("The connection dropped while reading the answer.");
  });
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (res.ok) return body as T;
  const error = (body as { error?: { code?: string; message?: string; fields?: Record<string, string> } } | undefined)?.error;
  const retryAfter = Number(res.headers.get("Retry-After") ?? NaN);
  throw new ApiFailure(res.status, error?.code ?? `http_${res.status}`, error?.message ?? res.statusText, error?.fields ?? {}, Number.isFinite(retryAfter) ? retryAfter : undefined);
}

const json = (body: unknown): RequestInit => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

export interface MintedUpload {
  upload_url: string;
  image_key: string;
  capture_id: string;
  expires_at: string;
}

export interface CaptureBody {
  image_key: string;
  image_sha256: string;
  step_key: string;
  client_captured_at?: number;
  location?: { lat: number; lng: number; accuracy_m?: number };
  attestation_token?: string;
  capture_integrity?: CaptureIntegrityRequest;
}

/** The capture-flow API for one verification (its id is the credential; no cookies are sent). */
export class CaptureApi {
  private readonly base: string;

  constructor(readonly id: string) {
    this.base = `/v1/verifications/${encodeURIComponent(id)}`;
  }

  async view(): Promise<VerifyView> {
    return parse(await send(`/v1/verify/${encodeURIComponent(this.id)}`));
  }

  async mintUpload(contentType: string): Promise<MintedUpload> {
    return parse(await send(`${this.base}/captures/upload-url`, json({ content_type: contentType })));
  }

  /**
   * PUT the bytes to a minted URL (this Worker's upload route, or R2 directly in direct mode, whose
   * signature covers `If-None-Match: *`, so a repeated PUT there is 412 rather than an overwrite).
   */
  async upload(url: string, contentType: string, bytes: ArrayBuffer): Promise<void> {
    await parse(await send(url, { method: "PUT", headers: { "Content-Type": contentType, "If-None-Match": "*" }, body: bytes }));
  }

  /** A burst nonce for the next live capture (single use). */
  async burstNonce(): Promise<string> {
    return (await parse<{ nonce: string }>(await send(`${this.base}/captures/burst-nonce`, { method: "POST" }))).nonce;
  }

  async capture(body: CaptureBody): Promise<VerificationReply> {
    return parse(await send(`${this.base}/captures`, json(body)));
  }

  async answer(stepKey: string, value: string): Promise<VerificationReply> {
    return parse(await send(`${this.base}/answers`, json({ step_key: stepKey, value })));
  }

  async submit(): Promise<VerificationReply> {
    return parse(await send(`${this.base}/submit`, { method: "POST" }));
  }

  progressUrl(): string {
    return `${this.base}/progress`;
  }
}
