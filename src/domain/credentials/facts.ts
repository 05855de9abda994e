import type { CaptureView } from "../evidence/present";
import type { SignalView } from "../../model/evidence/analysis-view";
import { idTimePart } from "../../model/verification/capture-credential";

/**
 * What the signed manifest states about a capture (the `com.verification-service.capture`
 * assertion, docs/evidence.md "Content Credentials"): what the service received and when, its
 * digest, whose verification it belongs to, each required signal as assessed (with its evidence
 * codes, provider and method version) and the live capture's burst record as the page reported it,
 * named as the client's word (what the service measured from the frames is the `depth` signal). No location, no attestation token, no URL: the signed copy travels.
 */
export interface CaptureFacts {
  schema_version: 1;
  service: { name: string; url: string };
  tenant_id: string;
  /**
   * Whole once the verification takes no more captures; before that its id is the capture link's
   * credential, and the copy travels: only its time part then, with `verification_id_withheld`.
   */
  verification_id: string;
  verification_id_withheld?: true;
  capture_id: string;
  step_key: string;
  /** `live`: taken by the capture page's camera; `upload`: a file chosen on the capture page. */
  source: "live" | "upload";
  received: { at: string; media_type: string; size_bytes: number; sha256: string; width: number | null; height: number | null };
  client_captured_at?: string;
  analysis: { status: "completed"; analyzed_at?: string };
  signals: Record<string, SignalFact>;
  /** The capture page's own record of the camera and the burst: the client's word, never a measurement (that is the `depth` signal). */
  client_reported_capture_integrity?: Record<string, unknown>;
}

export type SignalFact =
  | { status: "assessed"; value: Record<string, unknown>; confidence?: number; evidence: string[]; provider?: string; method_version?: string }
  | { status: "not_applicable" | "not_assessed"; reason: string; evidence?: string[]; provider?: string; method_version?: string };

function signalFact(signal: SignalView): SignalFact {
  const provenance = {
    ...("provider" in signal && signal.provider ? { provider: signal.provider } : {}),
    ...("method_version" in signal && signal.method_version ? { method_version: signal.method_version } : {}),
  };
  if (signal.status === "assessed") {
    return { status: "assessed", value: signal.value, ...(signal.confidence !== undefined ? { confidence: signal.confidence } : {}), evidence: signal.evidence.map((e) => e.code), ...provenance };
  }
  if (signal.status === "not_applicable") return { status: "not_applicable", reason: signal.reason };
  return { status: "not_assessed", reason: signal.reason, ...(signal.evidence ? { evidence: signal.evidence.map((e) => e.code) } : {}), ...provenance };
}

/** The facts of a capture whose analysis completed (null otherwise: nothing is signed before the signals are). */
export function captureFacts(view: CaptureView, context: { tenantId: string; serviceName: string; serviceUrl: string; takesCaptures: boolean }): CaptureFacts | null {
  if (view.analysis.status !== "completed") return null;
  // The nonce was a one-time credential of the capture page: no use to anyone downstream.
  const { nonce: _nonce, ...integrity } = (view.capture_integrity ?? {}) as Record<string, unknown>;
  return {
    schema_version: 1,
    service: { name: context.serviceName, url: context.serviceUrl },
    tenant_id: context.tenantId,
    ...(context.takesCaptures ? { verification_id: `${idTimePart(view.verification_id)}…`, verification_id_withheld: true as const } : { verification_id: view.verification_id }),
    capture_id: view.id,
    step_key: view.step_key,
    source: view.source,
    received: { at: view.created_at, media_type: view.media_type, size_bytes: view.size_bytes, sha256: view.sha256, width: view.width, height: view.height },
    ...(view.client_captured_at ? { client_captured_at: view.client_captured_at } : {}),
    analysis: { status: "completed", ...(view.analysis.analyzed_at ? { analyzed_at: view.analysis.analyzed_at } : {}) },
    signals: Object.fromEntries(Object.entries(view.analysis.signals).map(([name, signal]) => [name, signalFact(signal)])),
    ...(view.capture_integrity ? { client_reported_capture_integrity: integrity } : {}),
  };
}
