import { DEFAULT_MAX_SIZE_BYTES, MAX_SIZE_BYTES_CAP, MEDIA_TYPES, type MediaType } from "../../schemas/steps";
import { DEFAULT_SIGNALS, type CaptureChannel, type SignalName } from "../../schemas/verification-create";

export interface ImageStep { key: string; type: "image"; description: string; min: number; max: number }
export interface TextStep {
  key: string;
  type: "text";
  description?: string;
  required: boolean;
  validation: { min_length?: number; max_length: number; format: "free_text" | "numeric_id" | "alphanumeric_id" };
}
export interface UploadStep {
  key: string;
  type: "upload";
  description?: string;
  min: number;
  max: number;
  accept: MediaType[];
  max_size_bytes: number;
}
export type Step = ImageStep | TextStep | UploadStep;
export type EvidenceStep = ImageStep | UploadStep;

/** A verification's config exactly as stored at creation and echoed on every read. */
export interface VerificationConfig {
  max_captures: number;
  steps: Step[];
  signals_required: SignalName[];
  /**
   * Present when the creation did not name `signals_required`: the service chose them, the
   * contract's default set limited to what the deployment assesses; `left_out` names each default
   * signal it could not, with why and what enables it.
   */
  signals_default?: { left_out: Array<{ signal: SignalName; reason: string; enable?: string }> };
  /** Echo of the creation's `capture_channel` (absent: the hosted capture page). */
  capture_channel?: CaptureChannel;
  mode?: "verification" | "audit";
  context?: { kind: string; summary: string; attributes?: Record<string, string | number | boolean> };
  webhook_url?: string;
  notify_email?: string;
  metadata?: Record<string, string>;
  expected_location?: string;
  expected_object?: string;
  condition_aspects?: string[];
}

/** The config fields of a validated creation request (or template spec). */
export type ConfigInput = Omit<VerificationConfig, "max_captures" | "steps" | "signals_required" | "signals_default"> & {
  max_captures?: number;
  steps?: Array<
    | ImageStep
    | TextStep
    | (Omit<UploadStep, "accept" | "max_size_bytes"> & { accept?: MediaType[]; max_size_bytes?: number })
  >;
  signals_required?: SignalName[];
};

export const SUGAR_STEP_KEY = "capture_1";

/** What a creation without `signals_required` gets: the default set this deployment assesses, and what it left out. */
export interface SignalDefaults {
  signals: readonly SignalName[];
  leftOut: Array<{ signal: SignalName; reason: string; enable?: string }>;
}

/** The contract's default set, where the deployment assesses all of it (what the offline analysis always can). */
export const CONTRACT_DEFAULTS: SignalDefaults = { signals: DEFAULT_SIGNALS, leftOut: [] };

/**
 * Applies the sugar and the defaults; the input has already passed the creation schema (and the
 * deployment's capabilities, which also give the default signals). A `context` is always
 * cross-checked (the spec's Config): without `signals_required` it adds the `context` signal to the
 * defaults (and the schema refuses it beside a `signals_required` without `context`).
 */
export function normalizeConfig(input: ConfigInput, defaults: SignalDefaults): VerificationConfig {
  const steps: Step[] = input.steps
    ? input.steps.map((s) =>
        s.type === "upload"
          ? { ...s, accept: s.accept ?? [...MEDIA_TYPES], max_size_bytes: s.max_size_bytes ?? DEFAULT_MAX_SIZE_BYTES }
          : s,
      )
    : [{ key: SUGAR_STEP_KEY, type: "image", description: "", min: input.max_captures ?? 1, max: input.max_captures ?? 1 }];
  const config: VerificationConfig = {
    max_captures: steps.reduce((sum, s) => (s.type === "text" ? sum : sum + s.max), 0),
    steps,
    signals_required: input.signals_required ?? [...defaults.signals, ...(input.context !== undefined ? (["context"] as const) : [])],
  };
  if (input.signals_required === undefined) config.signals_default = { left_out: defaults.leftOut };
  const optional = [
    "capture_channel",
    "mode",
    "context",
    "webhook_url",
    "notify_email",
    "metadata",
    "expected_location",
    "expected_object",
    "condition_aspects",
  ] as const;
  for (const field of optional) {
    if (input[field] !== undefined) Object.assign(config, { [field]: input[field] });
  }
  return config;
}

export function evidenceSteps(config: VerificationConfig): EvidenceStep[] {
  return config.steps.filter((s): s is EvidenceStep => s.type !== "text");
}

export function textSteps(config: VerificationConfig): TextStep[] {
  return config.steps.filter((s): s is TextStep => s.type === "text");
}

export function findStep(config: VerificationConfig, key: string): Step | undefined {
  return config.steps.find((s) => s.key === key);
}

/** Largest object an upload URL of this verification may receive (the biggest evidence slot). */
export function maxEvidenceBytes(config: VerificationConfig): number {
  return evidenceSteps(config).reduce((max, s) => Math.max(max, s.type === "upload" ? s.max_size_bytes : IMAGE_STEP_MAX_BYTES), 0);
}

/**
 * Image steps take any of the five media types up to the spec's 25 MB cap: a phone's 50 MP JPEG is
 * 15-25 MB, and the analysis decodes it within a Worker's memory (docs/signals.md, measured).
 */
export const IMAGE_STEP_MAX_BYTES = MAX_SIZE_BYTES_CAP;
