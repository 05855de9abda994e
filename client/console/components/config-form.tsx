/*
 * The creation fields of a verification (steps, signals, context, expectations, destinations,
 * metadata, expiry, seal), shared by "New verification" and the link-template form. The draft is
 * what the inputs hold; `toRequest` turns it into the API's CreateVerificationRequest. The service
 * validates; its `fields` errors (dotted paths such as `steps.1.max`) land next to their inputs.
 */
import { useState } from "preact/hooks";
import { ApiError, type CreateVerificationRequest, type StepInput } from "../api";
import { duration, SIGNAL_NAMES } from "../lib/format";
import { useDefaultSignals, useUnavailableSignals } from "../lib/default-signals";
import { Field } from "./ui";

type Signal = keyof typeof SIGNAL_NAMES;
type StepType = StepInput["type"];
type TextFormat = "free_text" | "numeric_id" | "alphanumeric_id";
const MEDIA = ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"] as const;
type Media = (typeof MEDIA)[number];

export interface StepDraft {
  uid: number;
  type: StepType;
  key: string;
  description: string;
  min: number;
  max: number;
  accept: Media[];
  maxSizeMb: number;
  required: boolean;
  minLength: string;
  maxLength: number;
  format: TextFormat;
}

export interface ConfigDraft {
  steps: StepDraft[];
  signals: Signal[];
  /**
   * The checks are left to the deployment's defaults: not sent, so the service applies them as they
   * stand when it creates (and records `signals_default`). True until the operator changes one.
   */
  signalsFollowDefaults: boolean;
  contextKind: string;
  contextSummary: string;
  expectedObject: string;
  expectedLocation: string;
  conditionAspects: string;
  webhookUrl: string;
  notifyEmail: string;
  metadata: Array<[string, string]>;
  expiresIn: number;
  seal: boolean;
}

let uid = 0;
export function newStep(type: StepType, index: number): StepDraft {
  uid += 1;
  return {
    uid,
    type,
    key: `${type === "text" ? "question" : type === "upload" ? "document" : "photo"}_${index + 1}`,
    description: "",
    min: 1,
    max: 1,
    accept: [...MEDIA],
    maxSizeMb: 10,
    required: true,
    minLength: "",
    maxLength: 200,
    format: "free_text",
  };
}

/** The hosted page's default checks, shown until GET /v1/capabilities says this deployment's (`useDefaultSignals`). */
const HOSTED_PAGE_DEFAULTS: Signal[] = ["screen", "ai", "reverse", "depth"];

export function emptyDraft(): ConfigDraft {
  return {
    steps: [{ ...newStep("image", 0), description: "A photo of the item" }],
    signals: [...HOSTED_PAGE_DEFAULTS],
    signalsFollowDefaults: true,
    contextKind: "",
    contextSummary: "",
    expectedObject: "",
    expectedLocation: "",
    conditionAspects: "",
    webhookUrl: "",
    notifyEmail: "",
    metadata: [["", ""]],
    expiresIn: 604_800,
    seal: true,
  };
}

/** A stored config (a template's) back into a draft, for editing. */
export function draftFrom(source: {
  steps: Array<Record<string, unknown> & { type: StepType; key: string }>;
  signals_required?: Signal[];
  /** Present when the stored config left its checks to the deployment's defaults. */
  signals_default?: unknown;
  context?: { kind: string; summary: string };
  expected_object?: string;
  expected_location?: string;
  condition_aspects?: string[];
  webhook_url?: string;
  notify_email?: string;
  metadata?: Record<string, string>;
  expires_in_seconds?: number;
  seal?: boolean;
}): ConfigDraft {
  return {
    steps: source.steps.map((s, i) => {
      const step = newStep(s.type, i);
      const validation = (s.validation ?? {}) as { min_length?: number; max_length?: number; format?: TextFormat };
      return {
        ...step,
        key: s.key,
        description: (s.description as string | undefined) ?? "",
        min: (s.min as number | undefined) ?? 1,
        max: (s.max as number | undefined) ?? 1,
        accept: (s.accept as Media[] | undefined) ?? [...MEDIA],
        maxSizeMb: s.max_size_bytes ? Number(s.max_size_bytes) / 1024 / 1024 : 10,
        required: (s.required as boolean | undefined) ?? true,
        minLength: validation.min_length !== undefined ? String(validation.min_length) : "",
        maxLength: validation.max_length ?? 200,
        format: validation.format ?? "free_text",
      };
    }),
    signals: source.signals_required ?? [...HOSTED_PAGE_DEFAULTS],
    signalsFollowDefaults: source.signals_required === undefined || source.signals_default !== undefined,
    contextKind: source.context?.kind ?? "",
    contextSummary: source.context?.summary ?? "",
    expectedObject: source.expected_object ?? "",
    expectedLocation: source.expected_location ?? "",
    conditionAspects: (source.condition_aspects ?? []).join(", "),
    webhookUrl: source.webhook_url ?? "",
    notifyEmail: source.notify_email ?? "",
    metadata: Object.entries(source.metadata ?? {}).concat([["", ""]]) as Array<[string, string]>,
    expiresIn: source.expires_in_seconds ?? 604_800,
    seal: source.seal ?? true,
  };
}

function stepRequest(s: StepDraft): StepInput {
  const key = s.key.trim();
  if (s.type === "image") return { type: "image", key, description: s.description, min: s.min, max: s.max };
  if (s.type === "upload") {
    return { type: "upload", key, ...(s.description ? { description: s.description } : {}), min: s.min, max: s.max, accept: s.accept, max_size_bytes: Math.round(s.maxSizeMb * 1024 * 1024) };
  }
  return {
    type: "text",
    key,
    ...(s.description ? { description: s.description } : {}),
    required: s.required,
    validation: { max_length: s.maxLength, format: s.format, ...(s.minLength !== "" ? { min_length: Number(s.minLength) } : {}) },
  };
}

/**
 * Refuses, before anything is sent, what the service would take but a person could not answer (a
 * question step with no question: the capture page would show an empty prompt), and bounds that do
 * not fit together, in this form's words rather than the API's field names. Thrown as a refused
 * request, so each message lands under its field as the service's own would.
 */
export function checkDraft(d: ConfigDraft): void {
  const fields: Record<string, string> = {};
  d.steps.forEach((s, i) => {
    if (s.type === "text" && !s.description.trim()) fields[`steps.${i}.description`] = "Write the question the person is asked.";
    if (s.type !== "text" && s.min > s.max) fields[`steps.${i}.min`] = "“At least” cannot be more than “At most”.";
    if (s.type === "text" && s.minLength !== "" && Number(s.minLength) > s.maxLength) {
      fields[`steps.${i}.validation.min_length`] = "“Shortest answer” cannot be longer than “Longest answer”.";
    }
  });
  if (Object.keys(fields).length > 0) throw new ApiError(400, "invalid_request", "The request is invalid.", fields);
}

/** The creation request of a draft: empty optional fields are left out (the service's defaults apply). */
export function toRequest(d: ConfigDraft): CreateVerificationRequest {
  const metadata = Object.fromEntries(d.metadata.filter(([k]) => k.trim() !== "").map(([k, v]) => [k.trim(), v]));
  const aspects = d.conditionAspects
    .split(/[,\n]/)
    .map((a) => a.trim())
    .filter(Boolean);
  return {
    steps: d.steps.map(stepRequest),
    ...(d.signalsFollowDefaults ? {} : { signals_required: d.signals }),
    ...(d.contextKind || d.contextSummary ? { context: { kind: d.contextKind.trim(), summary: d.contextSummary.trim() } } : {}),
    ...(d.expectedObject.trim() ? { expected_object: d.expectedObject.trim() } : {}),
    ...(d.expectedLocation.trim() ? { expected_location: d.expectedLocation.trim() } : {}),
    ...(aspects.length > 0 ? { condition_aspects: aspects } : {}),
    ...(d.webhookUrl.trim() ? { webhook_url: d.webhookUrl.trim() } : {}),
    ...(d.notifyEmail.trim() ? { notify_email: d.notifyEmail.trim() } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    expires_in_seconds: d.expiresIn,
    seal: d.seal,
  };
}

const EXPIRY_CHOICES = [3600, 86_400, 259_200, 604_800, 1_209_600, 2_592_000];

/**
 * `signalsNote`: the line under "Checks" while they follow the deployment's defaults (each form says
 * what that means for what it creates), and `pinnedNote` once the operator changed them.
 */
export function ConfigFields(props: {
  draft: ConfigDraft;
  onChange: (draft: ConfigDraft) => void;
  errors: Record<string, string>;
  idPrefix: string;
  signalsNote: string;
  pinnedNote?: string;
}) {
  const { draft, errors } = props;
  const set = (patch: Partial<ConfigDraft>) => props.onChange({ ...draft, ...patch });
  const defaults = useDefaultSignals();
  const unavailable = useUnavailableSignals();
  // Left to the defaults, the ticks are this deployment's; a change fixes the ticked ones.
  const ticked = draft.signalsFollowDefaults && defaults ? defaults : draft.signals;
  const toggle = (signal: Signal, on: boolean) => set({ signals: on ? [...ticked, signal] : ticked.filter((s) => s !== signal), signalsFollowDefaults: false });
  const setStep = (index: number, patch: Partial<StepDraft>) => set({ steps: draft.steps.map((s, i) => (i === index ? { ...s, ...patch } : s)) });
  const move = (index: number, by: number) => {
    const steps = [...draft.steps];
    const [step] = steps.splice(index, 1);
    steps.splice(index + by, 0, step!);
    set({ steps });
  };
  const [addType, setAddType] = useState<StepType>("image");
  const capacity = draft.steps.filter((s) => s.type !== "text").reduce((n, s) => n + s.max, 0);

  return (
    <>
      <fieldset class="card">
        <legend>Steps</legend>
        <p class="hint">
          What the person is asked for, in order: live photos, image files, or answers. At most 20 photos and files in total (now {capacity}).
        </p>
        {errors.steps ? <p class="field-error">{errors.steps}</p> : null}
        {errors.max_captures ? <p class="field-error">{errors.max_captures}</p> : null}
        <ol class="steps">
          {draft.steps.map((step, i) => (
            <li key={step.uid} class="step">
              <fieldset>
                <legend>
                  Step {i + 1}: {step.type === "image" ? "live photo" : step.type === "upload" ? "image file" : "question"}
                </legend>
                <div class="grid">
                  <Field label="Key" hint="Names the step in the API (step_key)." error={errors[`steps.${i}.key`]}>
                    {(c) => <input {...c} required maxLength={64} value={step.key} onInput={(e) => setStep(i, { key: e.currentTarget.value })} />}
                  </Field>
                  <Field label={step.type === "text" ? "Question" : "Instructions"} class="wide" error={errors[`steps.${i}.description`]}>
                    {(c) => <input {...c} maxLength={500} value={step.description} onInput={(e) => setStep(i, { description: e.currentTarget.value })} />}
                  </Field>
                  {step.type !== "text" ? (
                    <>
                      <Field label="At least" error={errors[`steps.${i}.min`]}>
                        {(c) => <input {...c} type="number" min={0} max={20} value={step.min} onInput={(e) => setStep(i, { min: Number(e.currentTarget.value) })} />}
                      </Field>
                      <Field label="At most" error={errors[`steps.${i}.max`]}>
                        {(c) => <input {...c} type="number" min={1} max={20} value={step.max} onInput={(e) => setStep(i, { max: Number(e.currentTarget.value) })} />}
                      </Field>
                    </>
                  ) : (
                    <>
                      <Field label="Format" error={errors[`steps.${i}.validation.format`]}>
                        {(c) => (
                          <select {...c} value={step.format} onChange={(e) => setStep(i, { format: e.currentTarget.value as TextFormat })}>
                            <option value="free_text">Free text</option>
                            <option value="numeric_id">Digits only</option>
                            <option value="alphanumeric_id">Letters, digits and hyphens</option>
                          </select>
                        )}
                      </Field>
                      <Field label="Longest answer" error={errors[`steps.${i}.validation.max_length`]}>
                        {(c) => <input {...c} type="number" min={1} max={2000} value={step.maxLength} onInput={(e) => setStep(i, { maxLength: Number(e.currentTarget.value) })} />}
                      </Field>
                      <Field label="Shortest answer" hint="Optional." error={errors[`steps.${i}.validation.min_length`]}>
                        {(c) => <input {...c} type="number" min={0} max={2000} value={step.minLength} onInput={(e) => setStep(i, { minLength: e.currentTarget.value })} />}
                      </Field>
                      <div class="field check">
                        <input id={`${props.idPrefix}-req-${step.uid}`} type="checkbox" checked={step.required} onChange={(e) => setStep(i, { required: e.currentTarget.checked })} />
                        <label for={`${props.idPrefix}-req-${step.uid}`}>Required</label>
                      </div>
                    </>
                  )}
                  {step.type === "upload" ? (
                    <>
                      <fieldset class="wide inline-checks">
                        <legend>Accepted types</legend>
                        {MEDIA.map((m) => (
                          <span key={m} class="check">
                            <input
                              id={`${props.idPrefix}-acc-${step.uid}-${m}`}
                              type="checkbox"
                              checked={step.accept.includes(m)}
                              onChange={(e) => setStep(i, { accept: e.currentTarget.checked ? [...step.accept, m] : step.accept.filter((a) => a !== m) })}
                            />
                            <label for={`${props.idPrefix}-acc-${step.uid}-${m}`}>{m.replace("image/", "").toUpperCase()}</label>
                          </span>
                        ))}
                        {errors[`steps.${i}.accept`] ? <p class="field-error">{errors[`steps.${i}.accept`]}</p> : null}
                      </fieldset>
                      <Field label="Largest file (MB)" hint="Up to 25 MB." error={errors[`steps.${i}.max_size_bytes`]}>
                        {(c) => <input {...c} type="number" min={0.1} max={25} step={0.1} value={step.maxSizeMb} onInput={(e) => setStep(i, { maxSizeMb: Number(e.currentTarget.value) })} />}
                      </Field>
                    </>
                  ) : null}
                </div>
                <div class="step-actions">
                  <button type="button" class="button secondary small" disabled={i === 0} onClick={() => move(i, -1)}>
                    Move up <span class="visually-hidden">step {i + 1}</span>
                  </button>
                  <button type="button" class="button secondary small" disabled={i === draft.steps.length - 1} onClick={() => move(i, 1)}>
                    Move down <span class="visually-hidden">step {i + 1}</span>
                  </button>
                  <button type="button" class="button danger-link small" disabled={draft.steps.length === 1} onClick={() => set({ steps: draft.steps.filter((_, j) => j !== i) })}>
                    Remove <span class="visually-hidden">step {i + 1}</span>
                  </button>
                </div>
              </fieldset>
            </li>
          ))}
        </ol>
        <div class="inline">
          <label class="visually-hidden" for={`${props.idPrefix}-add-type`}>
            Kind of step to add
          </label>
          <select id={`${props.idPrefix}-add-type`} value={addType} onChange={(e) => setAddType(e.currentTarget.value as StepType)}>
            <option value="image">Live photo</option>
            <option value="upload">Image file</option>
            <option value="text">Question</option>
          </select>
          <button type="button" class="button secondary" onClick={() => set({ steps: [...draft.steps, newStep(addType, draft.steps.length)] })}>
            Add step
          </button>
        </div>
      </fieldset>

      <fieldset class="card">
        <legend>Checks</legend>
        {draft.signalsFollowDefaults ? (
          <p class="hint">{props.signalsNote}</p>
        ) : (
          <p class="hint">
            {props.pinnedNote ?? "The ticked checks are required, whatever this deployment's defaults become."}{" "}
            <button type="button" class="button link" onClick={() => set({ signalsFollowDefaults: true })}>
              Use this deployment's default checks
            </button>
          </p>
        )}
        {/* `signals_required` itself, and `signals_required.<i>`: a signal this deployment cannot assess (what enables it). */}
        {Object.entries(errors)
          .filter(([path]) => path === "signals_required" || path.startsWith("signals_required."))
          .map(([path, message]) => (
            <p key={path} class="field-error">
              {message}
            </p>
          ))}
        <div class="inline-checks">
          {(Object.keys(SIGNAL_NAMES) as Signal[]).map((signal) => {
            // A check this deployment cannot assess is offered as such (the service would refuse it),
            // unless a stored config already requires it: then it stays ticked, for the service to name.
            const why = ticked.includes(signal) ? undefined : unavailable[signal];
            return (
              <span key={signal} class="check">
                <input
                  id={`${props.idPrefix}-sig-${signal}`}
                  type="checkbox"
                  checked={ticked.includes(signal)}
                  disabled={why !== undefined}
                  aria-describedby={why !== undefined ? `${props.idPrefix}-sig-${signal}-why` : undefined}
                  onChange={(e) => toggle(signal, e.currentTarget.checked)}
                />
                <label for={`${props.idPrefix}-sig-${signal}`}>{SIGNAL_NAMES[signal]}</label>
                {why !== undefined ? (
                  <span id={`${props.idPrefix}-sig-${signal}-why`} class="meta">
                    {" "}
                    Not available here. {why}
                  </span>
                ) : null}
              </span>
            );
          })}
        </div>
        <div class="grid">
          <Field label="Context kind" hint="What the photos should show, e.g. vehicle_damage. Cross-checked by the context signal: tick it above." error={errors["context.kind"] ?? errors.context}>
            {(c) => <input {...c} maxLength={64} value={draft.contextKind} onInput={(e) => set({ contextKind: e.currentTarget.value })} />}
          </Field>
          <Field label="Context summary" class="wide" error={errors["context.summary"]}>
            {(c) => <input {...c} maxLength={500} value={draft.contextSummary} onInput={(e) => set({ contextSummary: e.currentTarget.value })} />}
          </Field>
          <Field label="Expected object" hint="Checked in the photos, e.g. a red bicycle." error={errors.expected_object}>
            {(c) => <input {...c} maxLength={500} value={draft.expectedObject} onInput={(e) => set({ expectedObject: e.currentTarget.value })} />}
          </Field>
          <Field label="Expected location" hint="An address, or lat,lng: compared with where the photos were taken." error={errors.expected_location}>
            {(c) => <input {...c} maxLength={500} value={draft.expectedLocation} onInput={(e) => set({ expectedLocation: e.currentTarget.value })} />}
          </Field>
          <Field label="Condition aspects" hint="Up to 6, comma-separated, e.g. bodywork, tyres." error={errors.condition_aspects}>
            {(c) => <input {...c} value={draft.conditionAspects} onInput={(e) => set({ conditionAspects: e.currentTarget.value })} />}
          </Field>
        </div>
      </fieldset>

      <fieldset class="card">
        <legend>Results and records</legend>
        <div class="grid">
          <Field label="Webhook URL" hint="Signed events go here (https, a public host)." error={errors.webhook_url}>
            {(c) => <input {...c} type="url" inputMode="url" value={draft.webhookUrl} onInput={(e) => set({ webhookUrl: e.currentTarget.value })} />}
          </Field>
          <Field label="Email when done" hint="Your own inbox: completed, expired or failed." error={errors.notify_email}>
            {(c) => <input {...c} type="email" value={draft.notifyEmail} onInput={(e) => set({ notifyEmail: e.currentTarget.value })} />}
          </Field>
          <Field label="Link valid for" error={errors.expires_in_seconds}>
            {(c) => (
              <select {...c} value={draft.expiresIn} onChange={(e) => set({ expiresIn: Number(e.currentTarget.value) })}>
                {(EXPIRY_CHOICES.includes(draft.expiresIn) ? EXPIRY_CHOICES : [...EXPIRY_CHOICES, draft.expiresIn]).map((s) => (
                  <option key={s} value={s}>
                    {duration(s)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div class="field check">
            <input id={`${props.idPrefix}-seal`} type="checkbox" checked={draft.seal} onChange={(e) => set({ seal: e.currentTarget.checked })} />
            <label for={`${props.idPrefix}-seal`}>Seal the answers (a SHA-256 record seal anyone can recompute)</label>
          </div>
        </div>
        <fieldset class="metadata">
          <legend>Metadata</legend>
          <p class="hint">Your own references, searchable in the list (e.g. claim_id → CLM-20931).</p>
          {errors.metadata ? <p class="field-error">{errors.metadata}</p> : null}
          {draft.metadata.map(([k, v], i) => (
            <div class="pair" key={i}>
              <input aria-label={`Metadata key ${i + 1}`} placeholder="key" maxLength={40} value={k} onInput={(e) => set({ metadata: draft.metadata.map((p, j) => (j === i ? [e.currentTarget.value, p[1]] : p)) })} />
              <input aria-label={`Metadata value ${i + 1}`} placeholder="value" maxLength={500} value={v} onInput={(e) => set({ metadata: draft.metadata.map((p, j) => (j === i ? [p[0], e.currentTarget.value] : p)) })} />
              <button type="button" class="button danger-link small" onClick={() => set({ metadata: draft.metadata.filter((_, j) => j !== i) })}>
                Remove <span class="visually-hidden">metadata {i + 1}</span>
              </button>
            </div>
          ))}
          <button type="button" class="button secondary small" onClick={() => set({ metadata: [...draft.metadata, ["", ""]] })}>
            Add metadata
          </button>
        </fieldset>
      </fieldset>
    </>
  );
}
