import { errorResult, invalidResult, type ErrorResult } from "../../lib/errors";
import type { MediaType } from "../../schemas/steps";
import { evidenceSteps, findStep, IMAGE_STEP_MAX_BYTES, textSteps, type EvidenceStep, type Step } from "./config";
import { validateAnswer } from "./answers";
import {
  answerTo,
  capturesInStep,
  effectiveStatus,
  isTerminal,
  type VerificationState,
  type VerificationStatus,
} from "./state";

/*
 * The verification state machine: pure functions from (state, command, now) to a Transition or an
 * error. They never touch storage; the Durable Object applies a Transition as one D1 batch.
 */

export interface EventDraft {
  name: string;
  payload?: Record<string, unknown>;
}

/** The columns a decision changes, plus the audit/outbox events it emits. */
export interface Transition {
  status: VerificationStatus;
  patch: {
    submittedAt?: number;
    readyAt?: number;
    completedAt?: number;
    finalizedAt?: number;
    abandonments?: number;
  };
  events: EventDraft[];
}

export type Decision<T = object> = ({ ok: true; transition: Transition } & T) | ErrorResult;

function transition(state: VerificationState, status: VerificationStatus, events: EventDraft[], patch: Transition["patch"] = {}): Transition {
  return { status, patch, events };
}

/** Refuses any write that would add to a redacted verification (410 `redacted`). */
export function guardNotRedacted(state: Pick<VerificationState, "redactedAt">): ErrorResult | null {
  return state.redactedAt !== null ? errorResult("redacted", "This verification was redacted: its evidence is erased and it accepts no changes.") : null;
}

/**
 * Refuses any capture-flow write once the link is dead: 410 `redacted`, or 410 `expired` from
 * `expires_at` on, whatever the evidence state (CONTRACT: a verification whose evidence was complete
 * before `expires_at` still completes when its analysis lands, but takes nothing more).
 */
export function guardLive(state: Pick<VerificationState, "status" | "expiresAt" | "redactedAt">, now: number): ErrorResult | null {
  const redacted = guardNotRedacted(state);
  if (redacted) return redacted;
  if (now >= state.expiresAt || state.status === "expired") return errorResult("expired", "This verification has expired.");
  return null;
}

/** A verdict or a failure closed it: 409 `invalid_state` for anything that would add to it. */
function guardUnfinished(state: Pick<VerificationState, "status">): ErrorResult | null {
  if (state.status === "completed" || state.status === "failed") {
    return errorResult("invalid_state", `This verification is ${state.status} and accepts no more changes.`);
  }
  return null;
}

/** Refuses any end-user mutation of a verification that is over (410 expired or redacted, 409 once finished). */
export function guardOpen(state: Pick<VerificationState, "status" | "expiresAt" | "redactedAt">, now: number): ErrorResult | null {
  return guardLive(state, now) ?? guardUnfinished(state);
}

/** The status an end user's return gives back to an abandoned verification (the spec's `abandoned → partially_captured`). */
function resumed(state: Pick<VerificationState, "status" | "captures">): VerificationStatus {
  if (state.status !== "abandoned") return state.status;
  return state.captures.length > 0 ? "partially_captured" : "pending";
}

/**
 * Whether an upload URL may be minted (spec rule 4 before the status: a verification whose captures
 * fill `max_captures` answers 409 `step_full`, also once its verdict made it `completed`).
 */
export function checkUploadMint(state: Pick<VerificationState, "status" | "expiresAt" | "redactedAt" | "submittedAt" | "config"> & { capturesCount: number }, now: number): ErrorResult | null {
  const dead = guardLive(state, now);
  if (dead) return dead;
  if (state.capturesCount >= state.config.max_captures) return errorResult("step_full", "Every capture slot of this verification is used.");
  return guardTakesCaptures(state);
}

/**
 * Whether an upload URL's PUT may store its bytes: the link is live and no verdict, failure or submit
 * closed the verification since the URL was minted (no capture could take them: security probe of
 * 2026-12-07, such a PUT stored its bytes and answered 200).
 */
export function checkUploadPut(state: Pick<VerificationState, "status" | "expiresAt" | "redactedAt" | "submittedAt">, now: number): ErrorResult | null {
  return guardLive(state, now) ?? guardTakesCaptures(state);
}

function guardTakesCaptures(state: Pick<VerificationState, "status" | "submittedAt">): ErrorResult | null {
  return guardUnfinished(state) ?? (state.submittedAt !== null ? errorResult("invalid_state", "The end user already submitted this verification.") : null);
}

/** Evidence is complete: every evidence step at its max and every required text step answered, or submitted. */
export function isReady(state: VerificationState): boolean {
  if (state.submittedAt !== null) return true;
  const full = evidenceSteps(state.config).every((s) => capturesInStep(state, s.key) >= s.max);
  const answered = textSteps(state.config).every((s) => !s.required || answerTo(state.answers, s.key) !== undefined);
  return full && answered;
}

/** Readiness reached by this change: stamps `ready_at` and emits the event the analysis waits for. */
function withReadiness(before: VerificationState, after: VerificationState, t: Transition, now: number): Transition {
  if (before.readyAt === null && isReady(after)) {
    t.patch.readyAt = now;
    t.events.push({ name: "verification.ready" });
  }
  return t;
}

export interface CaptureCommand {
  captureId: string;
  stepKey?: string;
  imageKey: string;
  mediaType: MediaType;
  sizeBytes: number;
}

/**
 * The evidence step a capture's `step_key` names, or 400 `unknown_step` (spec rule 3) when it names
 * a text step or none: decided from the config alone, so before capacity (a full verification still
 * answers 400 for a key that could never take a capture, not 409).
 */
export function evidenceStepNamed(config: VerificationState["config"], stepKey: string): { step: EvidenceStep } | ErrorResult {
  const step: Step | undefined = findStep(config, stepKey);
  if (!step || step.type === "text") {
    const why = step ? "it names a text step: answer it through /answers" : "the verification has no step with that key";
    return errorResult("unknown_step", `step_key ${JSON.stringify(stepKey)} names no image or upload step: ${why}.`);
  }
  return { step };
}

/**
 * A capture of an `image_key` already persisted in step `capturedIn` is a retry (CONTRACT: the current
 * Verification again, no capacity used) only when it asks for nothing else: a `step_key` naming no
 * evidence step is 400 `unknown_step` as on any capture, one naming another step 409
 * `idempotency_conflict` (the retry would otherwise answer 201 without filling the step it named).
 */
export function checkRetry(config: VerificationState["config"], capturedIn: string, stepKey: string | undefined): ErrorResult | null {
  if (stepKey === undefined || stepKey === capturedIn) return null;
  const named = evidenceStepNamed(config, stepKey);
  if ("ok" in named) return named;
  return errorResult("idempotency_conflict", `This image_key was already captured into step ${JSON.stringify(capturedIn)}; a retry names the same step_key or none.`);
}

/** Chooses the step a capture lands in (spec rules 1-4), or the error that refuses it. */
export function chooseStep(state: VerificationState, stepKey: string | undefined): { step: EvidenceStep } | ErrorResult {
  if (stepKey === undefined) {
    const images = state.config.steps.filter((s) => s.type === "image");
    if (images.length === 0) {
      return errorResult("unknown_step", "This verification has no image step: step_key is required and must name one of its upload steps.");
    }
    const open = images.find((s) => capturesInStep(state, s.key) < s.max);
    if (!open) return errorResult("step_full", "Every image step already holds its maximum number of captures.");
    return { step: open };
  }
  const named = evidenceStepNamed(state.config, stepKey);
  if ("ok" in named) return named;
  const { step } = named;
  if (capturesInStep(state, step.key) >= step.max) {
    return errorResult("step_full", `Step ${JSON.stringify(step.key)} already holds its maximum of ${step.max} captures.`);
  }
  return { step };
}

export function acceptCapture(
  state: VerificationState,
  cmd: CaptureCommand,
  now: number,
): Decision<{ step: EvidenceStep; seq: number }> {
  const dead = guardLive(state, now);
  if (dead) return dead;
  // The step first (spec rule 4): a full step is `step_full` whatever closed the verification.
  const chosen = chooseStep(state, cmd.stepKey);
  if ("ok" in chosen) return chosen;
  const finished = guardUnfinished(state);
  if (finished) return finished;
  if (state.submittedAt !== null) {
    return errorResult("invalid_state", "The end user already submitted this verification.");
  }
  const { step } = chosen;
  const accept: readonly MediaType[] | null = step.type === "upload" ? step.accept : null;
  if (accept && !accept.includes(cmd.mediaType)) {
    return errorResult("unsupported_media_type", `Step ${JSON.stringify(step.key)} accepts ${accept.join(", ")}; got ${cmd.mediaType}.`);
  }
  const limit = step.type === "upload" ? step.max_size_bytes : IMAGE_STEP_MAX_BYTES;
  if (cmd.sizeBytes > limit) {
    return errorResult("payload_too_large", `Step ${JSON.stringify(step.key)} accepts at most ${limit} bytes; got ${cmd.sizeBytes}.`);
  }
  const seq = state.captures.length + 1;
  const after: VerificationState = {
    ...state,
    captures: [...state.captures, { id: cmd.captureId, stepKey: step.key, imageKey: cmd.imageKey }],
  };
  const t = transition(state, "partially_captured", [
    {
      name: "verification.capture.persisted",
      payload: { capture_id: cmd.captureId, step_key: step.key, step_type: step.type, seq },
    },
  ]);
  return { ok: true, step, seq, transition: withReadiness(state, after, t, now) };
}

/**
 * How many different values one text step may be given. Each is an event on the timeline, so this
 * bounds what one end user can append to it (with the step count, MAX_TEXT_STEPS × this).
 */
export const ANSWER_REVISIONS_PER_STEP = 10;

/**
 * An answer. The same value again changes nothing (`unchanged`: no event, unless it brings an
 * abandoned verification back); a step takes at most ANSWER_REVISIONS_PER_STEP different values in
 * all, the first answer included (409 `answer_limit` after).
 */
export function recordAnswer(state: VerificationState, stepKey: string, value: string, now: number): Decision<{ revisions: number; unchanged: boolean }> {
  const closed = guardOpen(state, now);
  if (closed) return closed;
  const step = findStep(state.config, stepKey);
  if (!step || step.type !== "text") {
    const why = step ? "it names an evidence step: send a capture instead" : "the verification has no step with that key";
    return errorResult("unknown_step", `step_key ${JSON.stringify(stepKey)} names no text step: ${why}.`);
  }
  const problem = validateAnswer(step, value);
  if (problem) return invalidResult({ value: problem }, problem);
  const previous = answerTo(state.answers, stepKey);
  if (previous?.value === value && resumed(state) === state.status) {
    return { ok: true, transition: transition(state, state.status, []), revisions: previous.revisions, unchanged: true };
  }
  const revisions = previous === undefined ? 1 : previous.value === value ? previous.revisions : previous.revisions + 1;
  if (revisions > ANSWER_REVISIONS_PER_STEP) {
    return errorResult("answer_limit", `The answer to step ${JSON.stringify(stepKey)} was changed ${ANSWER_REVISIONS_PER_STEP - 1} times already and cannot be changed again.`);
  }
  const after: VerificationState = { ...state, answers: { ...state.answers, [stepKey]: { value, answeredAt: now, revisions } } };
  const t = transition(state, resumed(state), [{ name: "verification.answer.recorded", payload: { step_key: stepKey, revision: revisions } }]);
  return { ok: true, transition: withReadiness(state, after, t, now), revisions, unchanged: false };
}

/**
 * What still keeps the end user from submitting (CONTRACT: every evidence step holds its `min`,
 * every required text step is answered), one sentence each; empty when submit would be taken. The
 * one rule of "ready to send": `submit` applies it, and `GET /v1/verify` answers it as
 * `ready_for_submit` for the capture page, which has none of its own.
 */
export function submitBlockers(state: Pick<VerificationState, "config" | "captures" | "answers">): string[] {
  const missing: string[] = [];
  for (const s of evidenceSteps(state.config)) {
    if (capturesInStep(state, s.key) < s.min) missing.push(`${s.key} needs at least ${s.min} capture(s)`);
  }
  for (const s of textSteps(state.config)) {
    if (s.required && answerTo(state.answers, s.key) === undefined) missing.push(`${s.key} needs an answer`);
  }
  return missing;
}

/** Why a verification submitted with no capture ends `failed`: nothing was evaluated, so there is no verdict. */
export const NO_EVIDENCE = "no_evidence";

/**
 * The end user is done. Taken once the rule above holds, also with no capture at all (every
 * evidence step optional): then nothing can be evaluated and the verification ends `failed` with
 * `failure_reason: "no_evidence"` in the same write (CONTRACT, fifth release), never with a verdict.
 */
export function submit(state: VerificationState, now: number): Decision<{ alreadySubmitted: boolean; failureReason?: string }> {
  const dead = guardLive(state, now);
  if (dead) return dead;
  // A repeated submit (a retry whose answer was lost) answers the current state, also once the
  // verdict or the failure it led to closed the verification: retries duplicate nothing and fail nothing.
  if (state.submittedAt !== null) {
    return { ok: true, alreadySubmitted: true, transition: transition(state, state.status, []) };
  }
  const finished = guardUnfinished(state);
  if (finished) return finished;
  const missing = submitBlockers(state);
  if (missing.length > 0) {
    return errorResult("invalid_state", `The verification cannot be submitted yet: ${missing.join("; ")}.`);
  }
  if (state.captures.length === 0) {
    const events = [{ name: "verification.submitted" }, { name: "verification.failed", payload: { reason: NO_EVIDENCE } }];
    return { ok: true, alreadySubmitted: false, failureReason: NO_EVIDENCE, transition: transition(state, "failed", events, { submittedAt: now }) };
  }
  const after = { ...state, submittedAt: now };
  const t = transition(state, resumed(state), [{ name: "verification.submitted" }], { submittedAt: now });
  return { ok: true, alreadySubmitted: false, transition: withReadiness(state, after, t, now) };
}

export type ProgressKind = "step_reached" | "camera_permission" | "abandoned";

/**
 * Leaving and coming back is a cycle an end user (or a script) can repeat for the life of the link:
 * the status follows every time, the timeline records the first this many and the count goes on in
 * the `abandonments` column, so one verification's events stay bounded (issue 42, item 3).
 */
export const ABANDONMENTS_ON_TIMELINE = 10;

/**
 * A funnel snapshot, accepted in any status until the link dies (the page reports `success` after
 * the verdict too: it overwrites the snapshot); `abandoned` parks an unfinished verification (no
 * webhook fires for it). Any other report is a page on screen, so it brings an abandoned verification
 * back: a reload sends `abandoned` as the old page goes and `step_reached` as the new one opens.
 */
export function reportProgress(state: VerificationState, kind: ProgressKind, now: number): Decision {
  const dead = guardLive(state, now);
  if (dead) return dead;
  if (kind !== "abandoned") return { ok: true, transition: transition(state, resumed(state), []) };
  const abandons = state.readyAt === null && (state.status === "pending" || state.status === "partially_captured");
  if (!abandons) return { ok: true, transition: transition(state, state.status, []) };
  const abandonment = state.abandonments + 1;
  const events = abandonment <= ABANDONMENTS_ON_TIMELINE ? [{ name: "verification.abandoned", payload: { abandonment } }] : [];
  return { ok: true, transition: transition(state, "abandoned", events, { abandonments: abandonment }) };
}

/** The alarm at `expires_at`: only a verification still waiting for evidence expires. */
export function expire(state: VerificationState, now: number): Decision {
  if (effectiveStatus(state, now) !== "expired" || state.status === "expired") {
    return errorResult("invalid_state", "Nothing to expire.");
  }
  return { ok: true, transition: transition(state, "expired", [{ name: "verification.expired" }]) };
}

/** The analysis worker writes the verdict: once, and only when the evidence is complete. */
export function complete(state: VerificationState, now: number, payload: Record<string, unknown>): Decision {
  if (state.redactedAt !== null) return errorResult("invalid_state", "A redacted verification gets no verdict.");
  if (state.status === "completed") return errorResult("invalid_state", "The verdict was already written.");
  if (state.status === "expired" || state.status === "failed") {
    return errorResult("invalid_state", `This verification is ${state.status}.`);
  }
  // `abandoned` never completes directly: an answer or a submit brings it back first (and only they make it ready).
  if (state.readyAt === null || state.status === "abandoned") return errorResult("invalid_state", "The evidence is not complete yet.");
  return {
    ok: true,
    transition: transition(state, "completed", [{ name: "verification.completed", payload }], { completedAt: now }),
  };
}

export function fail(state: VerificationState, reason: string): Decision {
  if (state.redactedAt !== null) return errorResult("invalid_state", "A redacted verification keeps its status.");
  if (state.status === "completed" || state.status === "expired" || state.status === "failed") {
    return errorResult("invalid_state", `This verification is already ${state.status}.`);
  }
  return { ok: true, transition: transition(state, "failed", [{ name: "verification.failed", payload: { reason } }]) };
}

/** Operator finalizes the case with a narrative; the status does not change (evidence may still come). */
export function finalize(state: VerificationState, narrative: string, now: number): Decision {
  const redacted = guardNotRedacted(state);
  if (redacted) return redacted;
  if (state.finalizedAt !== null) return errorResult("already_finalized", "This case was already finalized.");
  const status = effectiveStatus(state, now);
  if (status === "expired" || status === "failed") {
    return errorResult("invalid_state", `${/^[aeiou]/.test(status) ? "An" : "A"} ${status} verification cannot be finalized.`);
  }
  if (state.captures.length === 0) return errorResult("invalid_state", "A case needs at least one capture to be finalized.");
  return {
    ok: true,
    transition: transition(state, state.status, [{ name: "verification.case.completed", payload: { narrative } }], {
      finalizedAt: now,
    }),
  };
}

export type ReviewDecision = "approved" | "rejected" | "needs_more";

export interface ReviewCommand {
  decision: ReviewDecision;
  /** Why: required, so every override on the audit timeline carries its reason. */
  note: string;
  /** The reviewing dashboard user (`usr_…`). */
  by: string;
  /**
   * When the latest review the reviewer decided beside was recorded (ms; null: they saw none): a
   * review recorded since makes this one a conflict. Undefined when the caller does not say (no check).
   */
  replaces?: number | null;
}

/**
 * How many reviews one verification takes. Each is an event on its timeline, so this bounds what the
 * tenant's staff can append to it, as ANSWER_REVISIONS_PER_STEP bounds the end user's answers.
 */
export const REVIEWS_PER_VERIFICATION = 20;

/** The stored review as the machine reads it: `count` is how many were recorded, this one included. */
export interface StoredReview {
  decision: ReviewDecision;
  note?: string;
  by: string;
  at: number;
  count: number;
}

/** How many reviews `latest` (the stored review) says were recorded; one for a review stored before the count was kept. */
export function reviewCount(latest: unknown): number {
  if (!latest || typeof latest !== "object") return 0;
  const { count } = latest as { count?: unknown };
  return typeof count === "number" ? count : 1;
}

/** When `latest` (the stored review) was recorded, in ms; null when there is none. */
export function reviewedAt(latest: unknown): number | null {
  if (!latest || typeof latest !== "object") return null;
  const { at } = latest as { at?: unknown };
  return typeof at === "number" ? at : null;
}

/** What a review is decided beside: the reviews recorded so far and whether the evidence was judged. */
export interface ReviewContext {
  /** how many reviews were recorded (`reviewCount`) */
  count: number;
  /** when the latest was recorded (`reviewedAt`) */
  latestAt: number | null;
  /** whether the verification has a verdict */
  judged: boolean;
}

/**
 * An operator's decision, recorded beside the machine verdict (which never changes). Several may
 * follow each other, up to REVIEWS_PER_VERIFICATION (409 `invalid_state` after: the latest stands);
 * `needs_more` reopens nothing (a new verification is how more evidence is asked for), it is only
 * recorded. `approved` needs a verdict: approving evidence nobody judged yet (a link not yet
 * opened) would tell the tenant's systems the claim holds (console probe of 2026-12-07). A review
 * decided beside an older latest review than the stored one (`replaces`) is refused: it would
 * silently replace a colleague's decision its reviewer never saw.
 */
export function review(state: VerificationState, cmd: ReviewCommand, now: number, context: ReviewContext): Decision<{ review: StoredReview }> {
  const redacted = guardNotRedacted(state);
  if (redacted) return redacted;
  if (context.count >= REVIEWS_PER_VERIFICATION) {
    return errorResult("invalid_state", `This verification was reviewed ${REVIEWS_PER_VERIFICATION} times already: its latest review stands.`);
  }
  if (cmd.replaces !== undefined && cmd.replaces !== context.latestAt) {
    return errorResult("invalid_state", "Another review was recorded after the one this decision was made beside: read the latest review, then decide again.");
  }
  if (cmd.decision === "approved" && !context.judged) {
    return errorResult("invalid_state", "There is no verdict to approve yet: approve once the evidence is judged (a rejection or needs_more may be recorded at any time).");
  }
  const payload = { decision: cmd.decision, note: cmd.note, by: cmd.by };
  return { ok: true, review: { ...payload, at: now, count: context.count + 1 }, transition: transition(state, state.status, [{ name: "verification.reviewed", payload }]) };
}

/** How long the same review by the same reviewer counts as the one already recorded (a retry, a double click). */
export const REVIEW_REPEAT_MS = 60_000;

/**
 * Whether `cmd` is the latest review sent again: same reviewer, decision and note within
 * REVIEW_REPEAT_MS. It is answered as recorded, with no second event, webhook or audit entry; the
 * same decision later, or another note, is a review of its own.
 */
export function repeatsLatestReview(latest: unknown, cmd: ReviewCommand, now: number): boolean {
  if (!latest || typeof latest !== "object") return false;
  const { decision, note, by, at } = latest as { decision?: unknown; note?: unknown; by?: unknown; at?: unknown };
  return decision === cmd.decision && note === cmd.note && by === cmd.by && typeof at === "number" && now - at < REVIEW_REPEAT_MS;
}

/** Why a verification whose complete evidence was erased before its analysis landed failed. */
export const REDACTED_BEFORE_VERDICT = "redacted";

/**
 * Redaction: once, irreversibly. The status is kept (a redacted verification still says how it
 * ended), except that evidence complete but not yet judged can never be judged now: that one ends
 * `failed` (`redacted`); incomplete evidence still expires as its link does. The caller clears the
 * evidence in the same write. A second request is a no-op.
 */
export function redact(state: VerificationState, by: string): Decision<{ alreadyRedacted: boolean; failureReason?: string }> {
  if (state.redactedAt !== null) return { ok: true, alreadyRedacted: true, transition: transition(state, state.status, []) };
  const redacted = { name: "verification.redacted", payload: { by } };
  if (state.readyAt !== null && !isTerminal(state.status)) {
    const failed = { name: "verification.failed", payload: { reason: REDACTED_BEFORE_VERDICT } };
    return { ok: true, alreadyRedacted: false, failureReason: REDACTED_BEFORE_VERDICT, transition: transition(state, "failed", [redacted, failed]) };
  }
  return { ok: true, alreadyRedacted: false, transition: transition(state, state.status, [redacted]) };
}
