/*
 * The capture page's controller: loads the verification, decides the screen, queues what the end
 * user captures, and lets Delivery send it. The server's state plus this device's queue are the only
 * state; the furthest step reached rides in the URL fragment, so a reload resumes where it was.
 * Each step the end user moves to is an entry of the browser's history, so Back and Forward move
 * between the screens they have seen; once the evidence is sent, Back leaves the page.
 */
import { ApiFailure, CaptureApi } from "./api";
import { type AttestationSource, loadAttestation, noAttestation } from "./attestation";
import { closeCamera } from "./camera";
import type { ScreenContext } from "./context";
import { Delivery, type SyncState } from "./delivery";
import { h } from "./dom";
import { applyReply, asPicked, countOf, firstUnmet, isTerminal, nextToSend, resumeIndex, throttleDelayMs, type VerifyView } from "./flow";
import type { I18n } from "./i18n";
import { JobQueue, type Job } from "./jobs";
import { currentFix } from "./location";
import { Progress } from "./progress";
import {
  busyScreen,
  completedScreen,
  errorScreen,
  expiredScreen,
  withdrawnScreen,
  finishingScreen,
  noEvidenceScreen,
  notFoundScreen,
  notSentScreen,
  stalledScreen,
  successScreen,
} from "./screens/outcome";
import { imageStep } from "./screens/image-step";
import { landingScreen } from "./screens/landing";
import { textStep } from "./screens/text-step";
import { uploadStep } from "./screens/upload-step";
import { sha256Hex } from "./sha256";
import { Peers } from "./peers";
import type { PendingIntegrity } from "../../src/schemas/capture-integrity";

type Phase = "loading" | "landing" | "step" | "finishing" | "done";
const FRAGMENT = "reached";
/** The landing screen's place in a history entry (steps are 0 … n-1). */
const LANDING = -1;

/** What this page keeps in each of its history entries: the screen, and how many entries it pushed before it. */
interface Entry {
  screen: number;
  depth: number;
}

function isEntry(state: unknown): state is Entry {
  return typeof state === "object" && state !== null && Number.isInteger((state as Entry).screen) && Number.isInteger((state as Entry).depth);
}
/** How long before the link expires nothing is held back any more (a slow phone still uploads a photo in time). */
const RELEASE_BEFORE_EXPIRY_MS = 5 * 60_000;

export class App {
  private readonly api: CaptureApi;
  private readonly progress: Progress;
  private readonly screen: HTMLElement;
  private readonly sync: HTMLElement;
  private readonly widget: HTMLElement;
  private queue!: JobQueue;
  private delivery!: Delivery;
  private attestation: AttestationSource = noAttestation;
  private view!: VerifyView;
  private phase: Phase = "loading";
  private index = 0;
  private reached = 0;
  /** The current history entry's depth: entries this page pushed before it since the link was opened. */
  private depth = isEntry(history.state) ? history.state.depth : 0;
  private syncState: SyncState = { kind: "idle" };
  /** The last refusal, shown until the end user moves to another step. */
  private notice = "";
  /** Whether work that would complete the evidence is kept back for optional questions ahead (flow.ts `nextToSend`). */
  private holding = true;

  constructor(
    verificationId: string,
    private readonly i18n: I18n,
    root: HTMLElement,
  ) {
    this.api = new CaptureApi(verificationId);
    this.progress = new Progress(this.api.progressUrl());
    this.screen = h("div", { class: "content" });
    this.sync = h("p", { class: "sync", role: "status", "aria-live": "polite" });
    this.widget = h("div", { class: "attestation" });
    root.replaceChildren(this.screen, this.sync, this.widget);
  }

  /**
   * The view the page starts from, or null with the screen that says why not. A 429 is waited out
   * per its Retry-After, MAX_THROTTLED times, then the end user says when to ask again (probe of
   * 2026-12-06: the first 429 showed "Something went wrong" and ignored Retry-After).
   */
  private async firstView(): Promise<VerifyView | null> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.api.view();
      } catch (err) {
        if (err instanceof ApiFailure && err.status === 429) {
          const delay = throttleDelayMs(err.retryAfter, attempt);
          if (delay !== null) {
            busyScreen(this.screen, this.i18n);
            await new Promise((resolve) => setTimeout(resolve, delay));
          } else {
            await new Promise<void>((resolve) => stalledScreen(this.screen, this.i18n, resolve));
            attempt = 0;
          }
          continue;
        }
        this.phase = "done";
        if (err instanceof ApiFailure && err.status === 404) notFoundScreen(this.screen, this.i18n);
        else if (err instanceof ApiFailure && err.code === "redacted") withdrawnScreen(this.screen, this.i18n);
        else errorScreen(this.screen, this.i18n);
        return null;
      }
    }
  }

  async start(): Promise<void> {
    this.queue = await JobQueue.open(this.api.id);
    this.queue.onChange(() => this.renderSync());
    const view = await this.firstView();
    if (!view) return;
    this.view = view;
    if (this.endedScreen()) return;
    this.delivery = new Delivery(this.api, this.queue, {
      accepted: (job, reply) => this.accepted(job, reply),
      refused: (job, failure) => this.refused(job, failure),
      state: (state) => this.syncChanged(state),
      viewed: (view) => {
        this.view = view;
      },
      // Steps from here on are still ahead of the end user; once finishing, none are.
      pick: (jobs) => this.nextToSend(jobs),
      attestationToken: (binding) => this.attestation.token(binding),
    });
    if (this.view.attestation?.site_key) this.attestation = loadAttestation(this.view.attestation.site_key, this.widget);
    const peers = new Peers(this.view.id);
    addEventListener("pagehide", () => {
      // Closing one of two tabs on this link is not leaving: the end user is in the other.
      if ((this.phase === "landing" || this.phase === "step") && !peers.othersOpen) this.progress.abandoned();
      peers.leave();
    });
    addEventListener("pageshow", (event) => {
      if (event.persisted) peers.back();
    });
    addEventListener("popstate", (event) => this.navigated(event.state));
    this.watchExpiry();

    this.reached = this.reachedFromUrl();
    if (this.queue.list().length > 0) this.delivery.kick();
    const position = resumeIndex(this.view, this.queue.pending(), this.reached);
    if (this.view.submitted || this.queue.pending().submit) return this.finish();
    if (location.hash.includes(`${FRAGMENT}=`)) return this.goTo(position);
    this.progress.stepReached("landing");
    this.landing();
    this.writeEntry(LANDING, false);
  }

  private landing(): void {
    this.phase = "landing";
    closeCamera();
    const start = () => this.goTo(resumeIndex(this.view, this.queue.pending(), this.reached), true);
    landingScreen(this.screen, this.i18n, this.view, this.view.captures_count > 0 || this.queue.list().length > 0, start);
  }

  /**
   * Back or Forward to one of this page's entries: its screen again. Once the evidence is sent (or
   * the link ended) there is no step to go back to: Back leaves, past every entry this page made.
   */
  private navigated(state: unknown): void {
    if (!isEntry(state) || this.phase === "loading") return;
    this.depth = state.depth;
    if (this.phase === "finishing" || this.phase === "done") return history.go(-(state.depth + 1));
    if (state.screen === LANDING) return this.landing();
    this.goTo(Math.min(state.screen, this.view.steps.length - 1));
  }

  /** Expired, completed or failed before anything started: the only screen there is. */
  private endedScreen(): boolean {
    const { status } = this.view;
    if (!isTerminal(status)) return false;
    this.phase = "done";
    void this.queue.clear();
    if (status === "expired") expiredScreen(this.screen, this.i18n);
    else completedScreen(this.screen, this.i18n);
    return true;
  }

  /** Shows step `index`; `push`: the end user moved on, a new history entry (otherwise the current one is rewritten). */
  private goTo(index: number, push = false): void {
    if (index >= this.view.steps.length) return this.finish();
    const moved = this.phase !== "step" || index !== this.index;
    this.phase = "step";
    if (index !== this.index) this.notice = "";
    this.index = index;
    this.writeEntry(index, push && moved);
    // Moving on may release work held for the questions ahead (flow.ts `nextToSend`).
    this.delivery.kick();
    const step = this.view.steps[index]!;
    const picked = step.type === "text" ? null : asPicked(step, this.view);
    if (step.type !== "image" || picked) closeCamera();
    const ctx = this.context();
    if (step.type === "text") textStep(ctx, step);
    else if (picked) uploadStep(ctx, picked);
    else if (step.type === "image") imageStep(ctx, step);
  }

  private context(): ScreenContext {
    return {
      root: this.screen,
      i18n: this.i18n,
      progress: this.progress,
      view: () => this.view,
      pending: () => this.queue.pending(),
      count: (stepKey) => {
        const step = this.view.steps.find((s) => s.key === stepKey);
        return step && step.type !== "text" ? countOf(step, this.queue.pending()) : 0;
      },
      index: this.index,
      addCapture: (stepKey, blob, contentType, capturedAt, integrity) => this.addCapture(stepKey, blob, contentType, capturedAt, integrity),
      addAnswer: async (stepKey, value) => {
        await this.queue.add({ kind: "answer", step_key: stepKey, value });
        this.delivery.kick();
      },
      next: () => this.goTo(resumeIndex(this.view, this.queue.pending(), this.index + 1), true),
      refresh: () => this.goTo(this.index),
      isLast: () => this.index === this.view.steps.length - 1,
    };
  }

  private async addCapture(stepKey: string, blob: Blob, contentType: string, capturedAt: number, integrity?: PendingIntegrity): Promise<void> {
    const bytes = await blob.arrayBuffer();
    const location = currentFix();
    await this.queue.add({
      kind: "capture",
      step_key: stepKey,
      content_type: contentType,
      bytes,
      sha256: await sha256Hex(bytes),
      client_captured_at: capturedAt,
      ...(location ? { location } : {}),
      ...(integrity ? { capture_integrity: integrity } : {}),
    });
    this.delivery.kick();
  }

  /** After the last step: make sure submit is queued, then wait for everything to be accepted. */
  private finish(): void {
    closeCamera();
    const unmet = firstUnmet(this.view, this.queue.pending());
    if (unmet !== -1 && !this.view.submitted) return this.goTo(unmet);
    this.phase = "finishing";
    this.writeEntry(this.view.steps.length, false);
    this.progress.stepReached("uploading");
    if (!this.view.submitted && !this.queue.pending().submit) void this.queue.add({ kind: "submit" }).then(() => this.delivery.kick());
    else this.delivery.kick();
    this.finishedIfDone();
  }

  private finishedIfDone(): void {
    if (this.phase !== "finishing") return;
    if (this.queue.list().length > 0 || !this.view.submitted) {
      // Sending stopped until the end user acts (too many 429s): say so, with the action, not "Sending…".
      if (this.syncState.kind === "stalled") return stalledScreen(this.screen, this.i18n, () => this.retrySending());
      return finishingScreen(this.screen, this.i18n);
    }
    this.end("success");
  }

  /** The end user asks to try again after sending stopped. */
  private retrySending(): void {
    this.syncChanged({ kind: "sending" });
    this.delivery.kick();
  }

  private syncChanged(state: SyncState): void {
    const was = this.syncState.kind;
    this.renderSync(state);
    if (this.phase === "finishing" && (state.kind === "stalled" || was === "stalled")) this.finishedIfDone();
  }

  private accepted(_job: Job, reply: Parameters<typeof applyReply>[1]): void {
    this.view = applyReply(this.view, reply);
    this.finishedIfDone();
  }

  private async refused(job: Job, failure: ApiFailure): Promise<void> {
    // Over for the end user: out of time, or withdrawn by the sender (redacted), each said as it is.
    if (failure.code === "expired") return this.end("expired");
    if (failure.code === "redacted") return this.end("withdrawn");
    if (failure.status === 404) return this.end("not_found");
    // The photo waited on this device past its upload's hour: the link is fine, the photo goes again.
    if (job.kind === "capture" && failure.code === "upload_expired") return this.retake(job.step_key);
    // A photo, file or answer refused while the page finishes: nothing is submitted before the end
    // user has seen why and chosen (another file, or finish without it). Taken out of the queue before
    // the first await, or delivery would send the submit behind it meanwhile.
    const heard = this.phase === "finishing" && job.kind !== "submit" && failure.code !== "step_full";
    if (heard) for (const j of this.queue.list()) if (j.kind === "submit") void this.queue.remove(j.id);
    // The server's state moved (another tab, a full step, a completed verification): reload it.
    try {
      this.view = await this.api.view();
    } catch {
      // Keep the view we have; the next accepted job refreshes it.
    }
    const status = this.view.status;
    if (status === "completed" || status === "expired" || status === "failed") {
      // Ended by this page's own submit (its reply lost, then refused on a retry): their success.
      // Jobs are sent in order and the submit goes last, so a photo, file or answer refused here
      // was never followed by this page's submit: another tab or device ended it, and this job
      // was not kept.
      const own = this.phase === "finishing" && job.kind === "submit" && (status === "completed" || this.view.submitted);
      return this.end(own ? "success" : status);
    }
    // Submit refused (the server would not take it, or did not): never queued again on its own.
    if (job.kind === "submit") return this.submitRefused();
    const notice =
      job.kind === "answer" && failure.code === "answer_limit"
        ? this.i18n.t("answer_limit")
        : failure.code === "step_full"
          ? this.i18n.t("step_full_notice")
          : this.i18n.t(this.isUpload(job) ? "file_refused" : "capture_refused", { reason: failure.message });
    if (heard) {
      this.goTo(Math.max(0, this.view.steps.findIndex((s) => s.key === job.step_key)));
    } else if (this.phase === "step") {
      const unmet = firstUnmet(this.view, this.queue.pending());
      this.goTo(unmet !== -1 && unmet < this.index ? unmet : this.index);
    }
    // Said once the page is on the step it shows (moving to another step clears a notice).
    if (notice) {
      this.notice = notice;
      this.renderSync();
    }
    if (this.phase === "finishing") return this.finish();
  }

  /**
   * The server would not take submit: back to the first step it still needs, with a word of what
   * to do; or, when every step looks done here (this page and the server disagree), a screen that
   * says so with the one action left. Either way nothing is sent until the end user acts.
   */
  private submitRefused(): void {
    const unmet = firstUnmet(this.view, this.queue.pending());
    if (unmet !== -1) {
      this.goTo(unmet);
      this.notice = this.i18n.t("submit_needs_step");
      this.renderSync();
      return;
    }
    this.phase = "step";
    this.renderSync({ kind: "idle" });
    notSentScreen(this.screen, this.i18n, () => this.goTo(0));
  }

  /**
   * A photo the server no longer takes by its upload (`upload_expired`): back to its step to take or
   * choose it again. A queued submit goes too, so nothing is sent without it behind the end user's back.
   */
  private async retake(stepKey: string): Promise<void> {
    for (const j of this.queue.list()) if (j.kind === "submit") await this.queue.remove(j.id);
    const index = this.view.steps.findIndex((s) => s.key === stepKey);
    this.goTo(Math.max(0, index));
    this.notice = this.i18n.t("upload_expired");
    this.renderSync();
  }

  /** A job carrying a file chosen on an upload step (not a photo taken live). */
  private isUpload(job: Job): boolean {
    const step = job.kind === "capture" ? this.view.steps.find((s) => s.key === job.step_key) : undefined;
    return step !== undefined && step.type !== "text" && asPicked(step, this.view) !== null;
  }

  private end(how: "expired" | "withdrawn" | "not_found" | "success" | "completed" | "failed"): void {
    if (this.phase === "done") return;
    this.phase = "done";
    closeCamera();
    void this.queue.clear();
    this.notice = "";
    this.renderSync({ kind: "idle" });
    if (how === "expired") expiredScreen(this.screen, this.i18n);
    else if (how === "withdrawn") withdrawnScreen(this.screen, this.i18n);
    else if (how === "not_found") notFoundScreen(this.screen, this.i18n);
    else if (how === "success") {
      this.progress.stepReached("success");
      // Submitted with nothing to evaluate (every step optional, all skipped): said as it is.
      if (this.view.captures_count === 0) noEvidenceScreen(this.screen, this.i18n);
      else successScreen(this.screen, this.i18n);
    } else completedScreen(this.screen, this.i18n);
  }

  private watchExpiry(): void {
    const ms = Date.parse(this.view.expires_at) - Date.now();
    if (ms > 2 ** 31 - 1) return;
    // Work held back for an optional question goes while the link still takes it: evidence that
    // reaches the server before expires_at completes the verification; kept here, it would expire.
    setTimeout(() => {
      this.holding = false;
      this.delivery.kick();
    }, Math.max(0, ms - RELEASE_BEFORE_EXPIRY_MS));
    setTimeout(() => {
      if (!this.view.submitted && this.phase !== "done") this.end("expired");
    }, Math.max(0, ms));
  }

  /** Steps from the one on screen on are still ahead of the end user; once finishing (or close to expiry), none are. */
  private nextToSend(jobs: readonly Job[]): Job | undefined {
    const ahead = this.phase === "finishing" || this.phase === "done" || !this.holding ? this.view.steps.length : this.index;
    return nextToSend(jobs, this.view, ahead);
  }

  /** The status line under the screen: uploads waiting (or kept until the end), offline/retrying, or the last refusal. */
  private renderSync(state?: SyncState): void {
    if (state) this.syncState = state;
    const jobs = this.queue.list();
    const waiting = jobs.filter((j) => j.kind !== "submit").length;
    const held = waiting > 0 && this.view !== undefined && this.nextToSend(jobs) === undefined;
    const parts: string[] = [];
    // No countdown: this line is a live region, and a number written once went stale at once (a
    // wait of 7 s read "Retrying in 7 s." throughout).
    if (this.syncState.kind === "waiting") parts.push(this.syncState.offline ? this.i18n.t("offline") : this.i18n.t("retrying"));
    if (this.syncState.kind === "stalled" && waiting > 0) parts.push(this.i18n.t("stalled_notice"));
    if (held) parts.push(this.i18n.plural("held", waiting));
    else if (waiting > 0) parts.push(`${this.i18n.plural("pending", waiting)}${this.syncState.kind === "sending" ? ` · ${this.i18n.t("uploading")}` : ""}`);
    if (this.notice) parts.push(this.notice);
    this.sync.textContent = parts.join(" ");
    this.sync.classList.toggle("visible", parts.length > 0);
  }

  private reachedFromUrl(): number {
    const match = new RegExp(`${FRAGMENT}=([^&]*)`).exec(location.hash);
    if (!match) return 0;
    const key = decodeURIComponent(match[1]!);
    if (key === "done") return this.view.steps.length;
    return Math.max(0, this.view.steps.findIndex((s) => s.key === key));
  }

  /**
   * The history entry of `screen`: a new one (`push`) or the current one rewritten. Its URL keeps the
   * furthest step reached in the fragment (never sent to the server, survives a reload).
   */
  private writeEntry(screen: number, push: boolean): void {
    this.reached = Math.max(this.reached, screen);
    const key = this.reached >= this.view.steps.length ? "done" : this.view.steps[this.reached]!.key;
    // The landing keeps its URL: a fragment there would make a reload skip it, and with it the words
    // said before any permission is asked.
    const url = screen === LANDING ? location.href : `${location.pathname}${location.search}#${FRAGMENT}=${encodeURIComponent(key)}`;
    if (push) this.depth += 1;
    const entry: Entry = { screen, depth: this.depth };
    if (push) history.pushState(entry, "", url);
    else history.replaceState(entry, "", url);
  }
}
