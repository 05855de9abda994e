import { errorResult, type ErrorResult } from "../../lib/errors";
import type { MediaType } from "../../schemas/steps";
import { evidenceSteps, findStep, IMAGE_STEP_MAX_BYTES, textSteps, type EvidenceStep, type Step } from "./config";
import { validateAnswer } from "./answers";
import {
  capturesInStep,
  effectiveStatus,
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
  };
  events: EventDraft[];
}

export type Decision<T = object> = ({ ok: true; transition: Transition } & T) | ErrorResult;

function transition(state: VerificationState, status: VerificationStatus, events: EventDraft[], patch: Transition["patch"] = {}): Transition {
  return { status, patch, events };
}

/** Refuses any write that would add to a redacted verification (410 `redacted`). */
function guardNotRedacted(state: Pick<VerificationState, "redactedAt">): ErrorResult | null {
  return state.redactedAt !== null ? errorResult("redacted", "This verification was redacted: its evidence is erased and it accepts no changes.") : null;
}

/** Refuses any end-user mutation of a verification that is over (410 expired or redacted, 409 otherwise). */
export function guardOpen(state: Pick<VerificationState, "status" | "expiresAt" | "readyAt" | "redactedAt">, now: number): ErrorResult | null {
  const redacted = guardNotRedacted(state);
  if (redacted) return redacted;
  const status = effectiveStatus(state, now);
  if (status === "expired") return errorResult("expired", "This verification has expired.");
  if (status === "completed" || status === "failed") {
    return errorResult("invalid_state", `This verification is ${status} and accepts no more changes.`);
  }
  return null;
}

/** Evidence is complete: every evidence step at its max and every required text step answered, or submitted. */
export function isReady(state: VerificationState): boolean {
  if (state.submittedAt !== null) return true;
  const full = evidenceSteps(state.config).every((s) => capturesInStep(state, s.key) >= s.max);
  const answered = textSteps(state.config).every((s) => !s.required || state.answers[s.key] !== undefined);
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

/** Chooses the step a capture lands in (spec rules 1-4), or the error that refuses it. */
export function chooseStep(state: VerificationState, stepKey: string | undefined): { step: EvidenceStep } | ErrorResult {
  if (stepKey === undefined) {
    const images = state.config.steps.filter((s) => s.type === "image");
    if (images.length === 0) {
      return errorResult("unknown_step", "This verification has no image step; name an upload step with step_key.", {
        step_key: "Required: this verification has only upload steps.",
      });
    }
    const open = images.find((s) => capturesInStep(state, s.key) < s.max);
    if (!open) return errorResult("step_full", "Every image step already holds its maximum number of captures.");
    return { step: open };
  }
  const step: Step | undefined = findStep(state.config, stepKey);
  if (!step || step.type === "text") {
    return errorResult("unknown_step", `No image or upload step has the key ${JSON.stringify(stepKey)}.`, {
      step_key: step ? "Names a text step; answer it through /answers." : "Unknown step key.",
    });
  }
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
  const closed = guardOpen(state, now);
  if (closed) return closed;
  if (state.submittedAt !== null) {
    return errorResult("invalid_state", "The end user already submitted this verification.");
  }
  const chosen = chooseStep(state, cmd.stepKey);
  if ("ok" in chosen) return chosen;
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

export function recordAnswer(state: VerificationState, stepKey: string, value: string, now: number): Decision {
  const closed = guardOpen(state, now);
  if (closed) return closed;
  const step = findStep(state.config, stepKey);
  if (!step || step.type !== "text") {
    return errorResult("unknown_step", `No text step has the key ${JSON.stringify(stepKey)}.`, {
      step_key: step ? "Names an evidence step; send a capture instead." : "Unknown step key.",
    });
  }
  const problem = validateAnswer(step, value);
  if (problem) return errorResult("invalid_request", problem, { value: problem });
  const after: VerificationState = { ...state, answers: { ...state.answers, [stepKey]: { value, answeredAt: now } } };
  const t = transition(state, state.status, [{ name: "verification.answer.recorded", payload: { step_key: stepKey } }]);
  return { ok: true, transition: withReadiness(state, after, t, now) };
}

export function submit(state: VerificationState, now: number): Decision<{ alreadySubmitted: boolean }> {
  const closed = guardOpen(state, now);
  if (closed) return closed;
  if (state.submittedAt !== null) {
    return { ok: true, alreadySubmitted: true, transition: transition(state, state.status, []) };
  }
  const missing: string[] = [];
  for (const s of evidenceSteps(state.config)) {
    if (capturesInStep(state, s.key) < s.min) missing.push(`${s.key} needs at least ${s.min} capture(s)`);
  }
  for (const s of textSteps(state.config)) {
    if (s.required && state.answers[s.key] === undefined) missing.push(`${s.key} needs an answer`);
  }
  if (state.captures.length === 0) missing.push("at least one capture is required");
  if (missing.length > 0) {
    return errorResult("invalid_state", `The verification cannot be submitted yet: ${missing.join("; ")}.`);
  }
  const after = { ...state, submittedAt: now };
  const t = transition(state, state.status, [{ name: "verification.submitted" }], { submittedAt: now });
  return { ok: true, alreadySubmitted: false, transition: withReadiness(state, after, t, now) };
}

export type ProgressKind = "step_reached" | "camera_permission" | "abandoned";

/** A funnel snapshot; `abandoned` parks an unfinished verification (no webhook fires for it). */
export function reportProgress(state: VerificationState, kind: ProgressKind, now: number): Decision {
  const closed = guardOpen(state, now);
  if (closed) return closed;
  const abandons =
    kind === "abandoned" &&
    state.readyAt === null &&
    (state.status === "pending" || state.status === "partially_captured");
  if (!abandons) return { ok: true, transition: transition(state, state.status, []) };
  return { ok: true, transition: transition(state, "abandoned", [{ name: "verification.abandoned" }]) };
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
  if (state.readyAt === null) return errorResult("invalid_state", "The evidence is not complete yet.");
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

/** Operator closes the case with a narrative; the status does not change. */
export function finalize(state: VerificationState, narrative: string, now: number): Decision {
  const redacted = guardNotRedacted(state);
  if (redacted) return redacted;
  if (state.finalizedAt !== null) return errorResult("already_finalized", "This case was already finalized.");
  const status = effectiveStatus(state, now);
  if (status === "expired" || status === "failed") {
    return errorResult("invalid_state", `A ${status} verification cannot be finalized.`);
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
}

/**
 * An operator's decision, recorded beside the machine verdict (which never changes). Any status
 * takes one and several may follow each other; `needs_more` reopens nothing (a new verification is
 * how more evidence is asked for), it is only recorded.
 */
export function review(state: VerificationState, cmd: ReviewCommand, now: number): Decision<{ review: { decision: ReviewDecision; note?: string; by: string; at: number } }> {
  const redacted = guardNotRedacted(state);
  if (redacted) return redacted;
  const payload = { decision: cmd.decision, note: cmd.note, by: cmd.by };
  return { ok: true, review: { ...payload, at: now }, transition: transition(state, state.status, [{ name: "verification.reviewed", payload }]) };
}

/**
 * Redaction: once, irreversibly. The status is kept (a redacted verification still says how it
 * ended); the caller clears the evidence in the same write. A second request is a no-op.
 */
export function redact(state: VerificationState, by: string): Decision<{ alreadyRedacted: boolean }> {
  if (state.redactedAt !== null) return { ok: true, alreadyRedacted: true, transition: transition(state, state.status, []) };
  return { ok: true, alreadyRedacted: false, transition: transition(state, state.status, [{ name: "verification.redacted", payload: { by } }]) };
}
