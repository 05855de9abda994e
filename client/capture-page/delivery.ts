/*
 * Sends queued work to the server, one job at a time in the order the page picks (the order it was
 * captured, but the job that completes the evidence last: flow.ts `nextToSend`), and keeps
 * retrying with backoff through bad connections. Every step is safe to repeat after a reload:
 * a minted upload is reused until it expires, a PUT that already landed is detected, and a capture
 * whose image_key is already persisted is an idempotent retry on the server. Submit goes only once the
 * server says it would take it (`ready_for_submit`), and a 429 is waited out per its Retry-After a
 * few times, then sending stops until the end user acts (flow.ts `throttleDelayMs`).
 */
import { ApiFailure, type CaptureApi, isRetryable, NetworkFailure, NotReadyForSubmit } from "./api";
import { backoffMs, throttleDelayMs, type VerificationReply, type VerifyView } from "./flow";
import type { CaptureJob, Job, JobQueue } from "./jobs";

export type SyncState =
  | { kind: "idle" }
  | { kind: "sending" }
  | { kind: "waiting"; retryAt: number; offline: boolean }
  /** Refused with 429 too many times in a row: nothing is sent until `kick()` (the end user's action). */
  | { kind: "stalled" };

export interface DeliveryHooks {
  /** The server accepted a job; its reply is the verification after the write. */
  accepted(job: Job, reply: VerificationReply): void;
  /** The server refused a job for good (the job is dropped): expired, full, invalid. */
  refused(job: Job, failure: ApiFailure): void;
  state(state: SyncState): void;
  /** The view the server answered just before a submit (whether it would take it). */
  viewed(view: VerifyView): void;
  /** The queued job to send next (flow.ts `nextToSend`), or none for now. */
  pick(jobs: readonly Job[]): Job | undefined;
  /** A fresh attestation token for a capture, bound to its burst nonce, when the widget is on the page. */
  attestationToken(binding?: string): Promise<string | undefined>;
}

/** Leave this much of an upload URL's lifetime for the PUT itself. */
const URL_MARGIN_MS = 30_000;

export class Delivery {
  private running = false;
  private failures = 0;
  /** 429s in a row. */
  private throttled = 0;
  private wake: (() => void) | null = null;

  constructor(
    private readonly api: CaptureApi,
    private readonly queue: JobQueue,
    private readonly hooks: DeliveryHooks,
  ) {
    addEventListener("online", () => this.wake?.());
  }

  /** Starts sending if it is not already (call after queueing work). */
  kick(): void {
    if (this.running) {
      this.wake?.();
      return;
    }
    this.running = true;
    void this.run().finally(() => {
      this.running = false;
    });
  }

  private async run(): Promise<void> {
    for (let job = this.hooks.pick(this.queue.list()); job; job = this.hooks.pick(this.queue.list())) {
      this.hooks.state({ kind: "sending" });
      try {
        const reply = await this.deliver(job);
        this.failures = 0;
        this.throttled = 0;
        // Out of the queue and into the view with no await between: a step chosen in between (the
        // job gone, its capture not yet counted) sent the end user back to a photo step they had
        // filled (seen in CI). The list drops the job at once; the store follows.
        const removed = this.queue.remove(job.id);
        this.hooks.accepted(job, reply);
        await removed;
      } catch (err) {
        if (err instanceof ApiFailure && err.status === 429) {
          this.throttled += 1;
          const delay = throttleDelayMs(err.retryAfter, this.throttled);
          if (delay === null) {
            // The job stays queued; the end user's next action sends it again.
            this.throttled = 0;
            this.hooks.state({ kind: "stalled" });
            return;
          }
          await this.pause(delay);
          continue;
        }
        if (isRetryable(err)) {
          await this.pause();
          continue;
        }
        const failure = err instanceof ApiFailure ? err : new ApiFailure(0, "client_error", err instanceof Error ? err.message : String(err));
        await this.queue.remove(job.id);
        this.hooks.refused(job, failure);
      }
    }
    this.hooks.state({ kind: "idle" });
  }

  /** Waits `delay` (a Retry-After), or the backoff of one more failure; `online` or `kick()` cut it short. */
  private async pause(delay?: number): Promise<void> {
    if (delay === undefined) {
      this.failures += 1;
      delay = backoffMs(this.failures);
    }
    this.hooks.state({ kind: "waiting", retryAt: Date.now() + delay, offline: navigator.onLine === false });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delay);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = null;
  }

  private async deliver(job: Job): Promise<VerificationReply> {
    if (job.kind === "answer") return this.api.answer(job.step_key, job.value);
    if (job.kind === "submit") {
      // "Ready to send" is the server's word alone: asked just before, so nothing is sent it would refuse.
      const view = await this.api.view();
      this.hooks.viewed(view);
      if (!view.ready_for_submit) throw new NotReadyForSubmit();
      return this.api.submit();
    }
    return this.deliverCapture(job);
  }

  private async deliverCapture(job: CaptureJob): Promise<VerificationReply> {
    // Each pass either finishes or discards a stale upload and mints a fresh one; three are plenty.
    for (let pass = 0; pass < 3; pass += 1) {
      if (!job.image_key || (!job.uploaded && (job.upload_expires_at ?? 0) - Date.now() < URL_MARGIN_MS)) {
        if (job.image_key) {
          // The URL ran out, but an earlier PUT may have landed before a reload: try the capture first.
          const reply = await this.tryCapture(job);
          if (reply) return reply;
        }
        const minted = await this.api.mintUpload(job.content_type);
        job.image_key = minted.image_key;
        job.upload_url = minted.upload_url;
        job.upload_expires_at = Date.parse(minted.expires_at);
        job.uploaded = false;
        await this.queue.update(job);
      }
      if (!job.uploaded) {
        try {
          await this.api.upload(job.upload_url!, job.content_type, job.bytes);
        } catch (err) {
          // 409 (used) / 412 (exists): an earlier attempt stored the bytes. 410: the URL expired.
          if (!(err instanceof ApiFailure) || ![409, 410, 412].includes(err.status)) throw err;
          if (err.status === 410) {
            job.upload_expires_at = 0;
            continue;
          }
        }
        job.uploaded = true;
        await this.queue.update(job);
      }
      const reply = await this.tryCapture(job);
      if (reply) return reply;
    }
    throw new NetworkFailure("The upload did not arrive; retrying.");
  }

  /**
   * The capture by key; null when the server has no bytes under that key (upload again). A burst
   * goes with a nonce asked for now (single use: a retry asks again), and the attestation token is
   * bound to it.
   */
  private async tryCapture(job: CaptureJob): Promise<VerificationReply | null> {
    const integrity = job.capture_integrity;
    const nonce = integrity?.schema_version === 2 ? await this.api.burstNonce() : undefined;
    const token = await this.hooks.attestationToken(nonce);
    try {
      return await this.api.capture({
        image_key: job.image_key!,
        image_sha256: job.sha256,
        step_key: job.step_key,
        client_captured_at: job.client_captured_at,
        ...(job.location ? { location: job.location } : {}),
        ...(integrity ? { capture_integrity: integrity.schema_version === 2 ? { ...integrity, nonce: nonce! } : integrity } : {}),
        ...(token ? { attestation_token: token } : {}),
      });
    } catch (err) {
      if (err instanceof ApiFailure && err.code === "invalid_request" && err.fields.image_key) {
        job.image_key = undefined;
        job.uploaded = false;
        await this.queue.update(job);
        return null;
      }
      // A burst the server refuses must not cost the end user the photo: it goes without (its depth is then not assessed).
      if (integrity && err instanceof ApiFailure && err.code === "invalid_request" && Object.keys(err.fields).some((f) => f.startsWith("capture_integrity"))) {
        job.capture_integrity = undefined;
        await this.queue.update(job);
        return this.tryCapture(job);
      }
      throw err;
    }
  }
}
