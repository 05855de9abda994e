/*
 * The capture flow's pure rules (no DOM, unit-tested): what the server said (`GET /v1/verify`), plus
 * the work still waiting on this device, decides which step the end user is on and when they are done.
 */
import type { VerificationStatus } from "../../src/model/verification/state";
import type { ImageStep, TextStep, UploadStep } from "../../src/model/verification/config";
import type { MediaType } from "../../src/schemas/steps";
import { IMAGE_MEDIA_TYPES } from "../../src/model/evidence/media-type";

export type { MediaType };
export type Status = VerificationStatus;

/** The server's step shapes (src/model/verification/config.ts) with the per-step progress `GET /v1/verify` adds. */
export type ImageStepView = ImageStep & { captured: number };
export type UploadStepView = UploadStep & { captured: number };
export type TextStepView = TextStep & { answered: boolean };
export type StepView = ImageStepView | UploadStepView | TextStepView;
export type EvidenceStepView = ImageStepView | UploadStepView;

/** `GET /v1/verify/{token}`. */
export interface VerifyView {
  id: string;
  status: Status;
  expires_at: string;
  tenant: { display_name: string };
  mode: "verification" | "audit";
  steps: StepView[];
  captures_count: number;
  max_captures: number;
  submitted: boolean;
  ready_for_submit: boolean;
  limits: { inline_max_bytes: number; upload_url_ttl_seconds: number; image_max_bytes: number };
  attestation?: { site_key: string };
}

/** The Verification (capture view) every capture-flow mutation answers with: the parts the page reads. */
export interface VerificationReply {
  status: Status;
  captures_count: number;
  captures: Array<{ step_key: string }>;
  answers?: Record<string, unknown>;
  submitted_at?: string;
}

/** Work queued on this device and not yet accepted by the server. */
export interface Pending {
  /** Per step key (a Map: a step may be keyed `toString` or `__proto__`). */
  captures: ReadonlyMap<string, number>;
  answers: ReadonlySet<string>;
  submit: boolean;
}

export const NOTHING_PENDING: Pending = { captures: new Map(), answers: new Set(), submit: false };

export function isTerminal(status: Status): boolean {
  return status === "completed" || status === "expired" || status === "failed";
}

/** The server's readiness rule: every evidence step at its max, every required text step answered. */
export function evidenceComplete(steps: readonly StepView[]): boolean {
  return steps.every((s) => (s.type === "text" ? !s.required || s.answered : s.captured >= s.max));
}

/** A queued job as the sending order sees it. */
export interface QueuedWork {
  kind: "capture" | "answer" | "submit";
  step_key?: string;
}

/** Whether the server would call the evidence complete once `job` is accepted, and not before. */
function completesEvidence(view: VerifyView, job: QueuedWork): boolean {
  if (job.kind === "submit" || evidenceComplete(view.steps)) return false;
  const after = view.steps.map((s): StepView => {
    if (s.key !== job.step_key) return s;
    return s.type === "text" ? { ...s, answered: true } : { ...s, captured: s.captured + 1 };
  });
  return evidenceComplete(after);
}

/**
 * The queued job to send next, in the order it was queued, except for the one that would complete
 * the evidence: the server's readiness rule does not wait for optional questions, so once it is
 * accepted the verdict may close the verification within seconds, and a later answer is refused. That
 * job goes after everything else, and is kept on this device while an optional question at `from` or
 * later (the step the end user is on, and the ones ahead) is still unanswered. Submit goes last.
 */
export function nextToSend<J extends QueuedWork>(jobs: readonly J[], view: VerifyView, from: number): J | undefined {
  const quiet = jobs.find((j) => j.kind !== "submit" && !completesEvidence(view, j));
  if (quiet) return quiet;
  const questionAhead = view.steps.some((s, i) => i >= from && s.type === "text" && !s.required && !s.answered);
  const completing = jobs.find((j) => j.kind !== "submit");
  if (completing) return questionAhead ? undefined : completing;
  return jobs[0];
}

/** Folds a mutation's reply into the view (counts, answers, status) without another round trip. */
export function applyReply(view: VerifyView, reply: VerificationReply): VerifyView {
  const counts = new Map<string, number>();
  for (const c of reply.captures) counts.set(c.step_key, (counts.get(c.step_key) ?? 0) + 1);
  const answered = new Set(Object.keys(reply.answers ?? {}));
  const steps = view.steps.map((s): StepView => (s.type === "text" ? { ...s, answered: answered.has(s.key) } : { ...s, captured: counts.get(s.key) ?? 0 }));
  return {
    ...view,
    status: reply.status,
    captures_count: reply.captures_count,
    steps,
    submitted: reply.submitted_at !== undefined || evidenceComplete(steps),
  };
}

/** Captures of a step: accepted by the server plus queued here. */
export function countOf(step: EvidenceStepView, pending: Pending): number {
  return step.captured + (pending.captures.get(step.key) ?? 0);
}

export function answeredOrQueued(step: TextStepView, pending: Pending): boolean {
  return step.answered || pending.answers.has(step.key);
}

/** The end user may leave this step: its minimum is met (captured or queued) or, for text, it is optional or answered. */
export function canLeave(step: StepView, pending: Pending): boolean {
  return step.type === "text" ? !step.required || answeredOrQueued(step, pending) : countOf(step, pending) >= step.min;
}

/** No more captures fit into this step. */
export function isFull(step: EvidenceStepView, pending: Pending): boolean {
  return countOf(step, pending) >= step.max;
}

/**
 * Where to resume: the first step that still needs the end user. A step before `reachedIndex` (the
 * furthest step they reached, kept in the URL) counts as done once it may be left, so going past an
 * optional step or a partly filled one sticks across reloads; later steps are done only when full.
 * Returns `steps.length` when nothing is left but finishing.
 */
export function resumeIndex(view: VerifyView, pending: Pending, reachedIndex: number): number {
  const index = view.steps.findIndex((step, i) => {
    if (step.type === "text" && answeredOrQueued(step, pending)) return false;
    if (step.type !== "text" && isFull(step, pending)) return false;
    return !(i < reachedIndex && canLeave(step, pending));
  });
  return index === -1 ? view.steps.length : index;
}

/** The first step whose minimum is not met (submit would be refused), or -1. */
export function firstUnmet(view: VerifyView, pending: Pending): number {
  return view.steps.findIndex((s) => !canLeave(s, pending));
}

/** Retry delay after `attempt` consecutive failures: 1 s doubling to 30 s, with ±20 % jitter. */
export function backoffMs(attempt: number, random: number = Math.random()): number {
  const base = Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random));
}

/** 429s in a row the page waits out on its own; after that the end user decides when to try again. */
export const MAX_THROTTLED = 3;

/**
 * How long to wait after the `attempt`-th 429 in a row: what its `Retry-After` says (at least 1 s,
 * at most a minute; 5 s without one), or null once MAX_THROTTLED were waited out: sending stops and
 * the page shows a state the end user can act on, never an endless "Sending…".
 */
export function throttleDelayMs(retryAfterSeconds: number | undefined, attempt: number): number | null {
  if (attempt > MAX_THROTTLED) return null;
  const seconds = retryAfterSeconds === undefined ? 5 : Math.min(60, Math.max(1, retryAfterSeconds));
  return Math.round(seconds * 1000);
}

/**
 * How the page takes a step's evidence: an image step is a live photo, except in audit mode, where
 * it is filled with an existing file (SPEC: "an audited file fills an ordinary `image` step"), so it
 * is offered as an upload of any image type the server takes, up to its size.
 */
export function asPicked(step: EvidenceStepView, view: Pick<VerifyView, "mode" | "limits">): UploadStepView | null {
  if (step.type === "upload") return step;
  if (view.mode !== "audit") return null;
  return { ...step, type: "upload", accept: [...IMAGE_MEDIA_TYPES], max_size_bytes: view.limits.image_max_bytes };
}
