import type { CaptureAnalysisRow } from "../../db/analyses";
import { aiMethodOf } from "../../analysis/evidence";
import { iso } from "../../lib/time";

/*
 * A capture's analysis as the captures API shows it, read generically from the stored result
 * (capture_analyses.result, written by analysis/analyze-image.ts): whatever shape a signal has there
 * shows through, so a signal the analysis could not run (`{status: "not_assessed", reason}`) reads
 * as such and never as a clean result.
 */

export interface EvidenceView {
  code: string;
  detail?: string;
  value?: number | string | boolean;
}

export type SignalView =
  | {
      status: "assessed";
      /** The signal's own conclusion (e.g. `{screen_detected: false}`), without the provenance fields. */
      value: Record<string, unknown>;
      confidence?: number;
      evidence: EvidenceView[];
      provider?: string;
      method_version?: string;
    }
  | { status: "not_applicable"; reason: string }
  | { status: "not_assessed"; reason: string; evidence?: EvidenceView[]; provider?: string; method_version?: string };

export interface NoteView {
  code: string;
  signal?: string;
  detail?: string;
}

export interface AnalysisView {
  status: "pending" | "completed" | "failed";
  signals: Record<string, SignalView>;
  notes: NoteView[];
  analyzed_at?: string;
}

/** Fields a signal result carries besides its conclusion. */
const PROVENANCE = new Set(["confidence", "evidence", "provider", "method_version"]);
/**
 * Stored fields that are not for the tenant: `matches` lists other verifications' captures, other
 * tenants' included (the evidence codes already name the same-tenant ones and only count the rest).
 */
const INTERNAL = new Set(["matches"]);

/** Evidence codes that mark a gap in what the analysis could see, repeated in `notes`. */
const GAP_CODES = new Set(["pixels_unavailable", "hash_unavailable", "image_too_small", "no_depth_map", "low_texture_not_matched"]);
const GAP_SUFFIXES = ["_unavailable", "_not_configured", "_not_assessed", "_unreadable", "_error", "_insufficient_valid_pixels"];

function isGap(code: string): boolean {
  return GAP_CODES.has(code) || GAP_SUFFIXES.some((suffix) => code.endsWith(suffix));
}

type Stored = Record<string, unknown>;

function asRecord(value: unknown): Stored | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Stored) : null;
}

function evidenceOf(value: unknown): EvidenceView[] {
  if (!Array.isArray(value)) return [];
  const out: EvidenceView[] = [];
  for (const item of value) {
    const e = asRecord(item);
    if (!e || typeof e.code !== "string") continue;
    const v = e.value;
    out.push({
      code: e.code,
      ...(typeof e.detail === "string" ? { detail: e.detail } : {}),
      ...(typeof v === "number" || typeof v === "string" || typeof v === "boolean" ? { value: v } : {}),
    });
  }
  return out;
}

function provenanceOf(signal: Stored): { provider?: string; method_version?: string } {
  return {
    ...(typeof signal.provider === "string" ? { provider: signal.provider } : {}),
    ...(typeof signal.method_version === "string" ? { method_version: signal.method_version } : {}),
  };
}

export function presentSignal(stored: unknown): SignalView | null {
  const signal = asRecord(stored);
  if (!signal) return null;
  const reason = typeof signal.reason === "string" ? signal.reason : "unspecified";
  if (signal.status === "not_applicable") return { status: "not_applicable", reason };
  if (signal.status === "not_assessed") {
    const evidence = evidenceOf(signal.evidence);
    return { status: "not_assessed", reason, ...(evidence.length > 0 ? { evidence } : {}), ...provenanceOf(signal) };
  }
  const value: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(signal)) if (!PROVENANCE.has(name) && !INTERNAL.has(name)) value[name] = v;
  return {
    status: "assessed",
    value,
    ...(typeof signal.confidence === "number" ? { confidence: signal.confidence } : {}),
    evidence: evidenceOf(signal.evidence),
    ...provenanceOf(signal),
  };
}

/**
 * The analysis of one capture: `pending` until its row exists. `signalKeys` are the signals the
 * verification requires (the ones its verdict is made of), in that order.
 */
export function presentAnalysis(row: CaptureAnalysisRow | undefined, signalKeys: readonly string[]): AnalysisView {
  if (!row) return { status: "pending", signals: {}, notes: [] };
  if (row.status === "failed") {
    return { status: "failed", signals: {}, notes: [{ code: "analysis_failed", ...(row.error ? { detail: row.error } : {}) }], analyzed_at: iso(row.analyzedAt) };
  }
  const result = asRecord(row.result) ?? {};
  const stored = asRecord(result.signals) ?? {};
  const signals: Record<string, SignalView> = {};
  for (const key of signalKeys) {
    const view = presentSignal(stored[key]);
    if (view) signals[key] = key === "ai_detection" ? withAiMethod(view, stored[key]) : view;
  }
  return { status: "completed", signals, notes: notesOf(result, signals, row.thumbnail !== null), analyzed_at: iso(row.analyzedAt) };
}

/** `ai_detection` says what decided it; results stored before `method` existed were decided from provenance. */
function withAiMethod(view: SignalView, stored: unknown): SignalView {
  if (view.status !== "assessed" || typeof view.value.method === "string") return view;
  return { ...view, value: { ...view.value, method: aiMethodOf(asRecord(stored) ?? {}) } };
}

/** Why something is missing: undecodable pixels first (it explains the absent thumbnail), then each gap code once. */
function notesOf(result: Stored, signals: Record<string, SignalView>, hasThumbnail: boolean): NoteView[] {
  const notes = new Map<string, NoteView>();
  const add = (code: string, detail?: string, signal?: string) => {
    if (!notes.has(code)) notes.set(code, { code, ...(signal ? { signal } : {}), ...(detail ? { detail } : {}) });
  };
  if (result.dimensions === null || result.dimensions === undefined) {
    const mediaType = typeof result.media_type === "string" ? result.media_type : "this media type";
    add("pixels_unavailable", typeof result.decode_error === "string" ? result.decode_error : `no decoder for ${mediaType}`);
  } else if (!hasThumbnail && result.redacted !== true) {
    add("thumbnail_unavailable", "the thumbnail could not be written");
  }
  // The analysis' own notes: why the decode failed, and why each required signal was not assessed.
  for (const item of Array.isArray(result.notes) ? result.notes : []) {
    const note = asRecord(item);
    if (!note || typeof note.code !== "string") continue;
    const signal = typeof note.signal === "string" ? note.signal : undefined;
    if (signal !== undefined && !(signal in signals)) continue;
    add(note.code, typeof note.detail === "string" ? note.detail : undefined, signal);
  }
  for (const [key, signal] of Object.entries(signals)) {
    if (signal.status === "not_applicable") continue;
    if (signal.status === "not_assessed") add(signal.reason, undefined, key);
    for (const e of signal.evidence ?? []) if (isGap(e.code)) add(e.code, e.detail);
  }
  return [...notes.values()];
}

/**
 * What redaction keeps of a stored result: the signals with their codes and numbers (a reviewer can
 * still see which capture tripped what), without free-text details, EXIF (camera, GPS), locations,
 * the vision judge's reasoning or the perceptual hash. Everything `presentAnalysis` reads stays.
 */
export function redactAnalysisResult(result: unknown): Record<string, unknown> | null {
  const stored = asRecord(result);
  if (!stored) return null;
  const signals: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(asRecord(stored.signals) ?? {})) {
    const signal = asRecord(value);
    if (!signal) continue;
    const kept: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(signal)) {
      if (INTERNAL.has(name)) continue;
      kept[name] = name === "evidence" ? evidenceOf(v).map(({ detail: _detail, ...rest }) => rest) : v;
    }
    signals[key] = kept;
  }
  return {
    version: stored.version,
    capture_id: stored.capture_id,
    uploaded: stored.uploaded,
    media_type: stored.media_type,
    dimensions: stored.dimensions ?? null,
    decode_error: stored.decode_error ?? null,
    signals,
    redacted: true,
  };
}
