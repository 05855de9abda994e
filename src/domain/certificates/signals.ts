import { isNotApplicable, isNotAssessed } from "../../analysis/evidence";
import { CAPTURE_BURST_PROVIDER } from "../../analysis/signals/capture-burst";
import { SIGNAL_KEYS } from "../../analysis/verdict";
import type { VerificationRecord } from "../../db/verifications";
import type { SignalName } from "../../schemas/verification-create";
import { isUploaded } from "../evidence/uploaded";

/*
 * How a certificate says what was checked: each required signal of the verdict with its status and
 * the method that decided it. The status is the verdict's (what the tenant's API shows); the method
 * is read from the per-capture analyses, since the verdict keeps no provenance. A signal result
 * names its `method` once the analysis writes one (the AI detector does); before that, and for the
 * other signals, it is derived from the stored `provider`. Only service-chosen words: never a
 * value, a confidence or evidence.
 */

export type CertifiedSignalStatus = "assessed" | "not_assessed" | "not_applicable";

export interface CertifiedSignal {
  status: CertifiedSignalStatus;
  /** What decided it (`pixels`, `provenance`, `provider:<name>`…); several, comma-separated, when captures differed. */
  method?: string;
}

/** A capture's stored signals (`capture_analyses.result.signals`), keyed by the verdict's signal keys. */
export interface StoredCaptureSignals {
  captureId: string;
  signals: Record<string, unknown> | null;
}

/** The service's own detectors, by the provider name their results carry, and the method each is. */
const METHOD_OF_PROVIDER: Readonly<Record<string, string>> = {
  "offline-moire": "pixels",
  "offline-provenance": "provenance",
  "offline-depth-plane": "depth_map",
  // The frames the capture page sent, measured by the service (a flat scene names its own method).
  [CAPTURE_BURST_PROVIDER]: "capture_burst",
  "internal-phash": "perceptual_hash",
};

/** The method of one stored signal result: its own `method`, else one derived from its `provider`; undefined when it names neither. */
export function methodOf(stored: unknown): string | undefined {
  if (typeof stored !== "object" || stored === null) return undefined;
  const { method, provider } = stored as { method?: unknown; provider?: unknown };
  if (typeof method === "string" && method !== "") return method;
  if (typeof provider !== "string" || provider === "") return undefined;
  // `internal-phash+<web provider>`: the service's history and a web search, both.
  return provider
    .split("+")
    .map((part) => METHOD_OF_PROVIDER[part] ?? `provider:${part}`)
    .join("+");
}

function statusOf(verdictSignal: unknown): CertifiedSignalStatus {
  if (isNotApplicable(verdictSignal)) return "not_applicable";
  // A signal the stored verdict does not carry was not assessed: never read as assessed.
  if (verdictSignal === undefined || verdictSignal === null || isNotAssessed(verdictSignal)) return "not_assessed";
  return "assessed";
}

/**
 * `verification.verdict.signals` of a certificate: every signal `signals_required` names, keyed as in
 * the verdict (`screen_detection`, `ai_detection`…). An assessed one names the methods that assessed
 * it on the live captures (uploads never count toward a signal).
 */
export function certifiedSignals(record: VerificationRecord, verdictSignals: Record<string, unknown>, analyses: readonly StoredCaptureSignals[]): Record<string, CertifiedSignal> {
  const live = new Set(record.captures.filter((c) => !isUploaded(record, c)).map((c) => c.id));
  const liveSignals = analyses.filter((a) => live.has(a.captureId) && a.signals !== null).map((a) => a.signals!);
  const out: Record<string, CertifiedSignal> = {};
  for (const name of record.row.config.signals_required as SignalName[]) {
    const key = SIGNAL_KEYS[name];
    const status = statusOf(verdictSignals[key]);
    if (status !== "assessed") {
      out[key] = { status };
      continue;
    }
    const methods = new Set<string>();
    for (const signals of liveSignals) {
      const stored = signals[key];
      if (stored === undefined || isNotApplicable(stored) || isNotAssessed(stored)) continue;
      const method = methodOf(stored);
      if (method) methods.add(method);
    }
    out[key] = methods.size > 0 ? { status, method: [...methods].sort().join(", ") } : { status };
  }
  return out;
}
