import type { CaptureRow } from "../../db/verifications";
import { iso } from "../../lib/time";
import type { AnalysisView } from "../../model/evidence/analysis-view";
import type { CaptureIntegrity } from "../../schemas/capture-integrity";

export interface CaptureLocationView {
  /** `device`: reported by the capture page; `exif`: the photo's own GPS tags. */
  source: "device" | "exif";
  lat: number;
  lng: number;
  accuracy_m?: number;
  is_mock: boolean;
}

export interface CaptureUrls {
  image?: string;
  thumbnail?: string;
  depthMap?: string;
  credentials?: string;
}

/** The Capture resource in its wire shape (`GET /v1/verifications/{id}/captures`, `GET /v1/captures/{id}`). */
export interface CaptureView {
  id: string;
  verification_id: string;
  step_key: string;
  source: "live" | "upload";
  media_type: string;
  size_bytes: number;
  sha256: string;
  width: number | null;
  height: number | null;
  created_at: string;
  client_captured_at?: string;
  location?: CaptureLocationView;
  attestation?: Record<string, unknown>;
  capture_integrity?: CaptureIntegrity;
  image_url?: string;
  thumbnail_url?: string;
  depth_map_url?: string;
  credentials_url?: string;
  redacted_at?: string;
  analysis: AnalysisView;
}

export function presentCapture(
  capture: CaptureRow,
  context: {
    source: "live" | "upload";
    analysis: AnalysisView;
    /** The stored analysis result, for the pixel dimensions and the EXIF location it found. */
    result: unknown;
    urls: CaptureUrls;
    redactedAt: number | null;
  },
): CaptureView {
  const result = (context.result ?? {}) as { dimensions?: { width?: unknown; height?: unknown } | null; location?: unknown };
  const width = typeof result.dimensions?.width === "number" ? result.dimensions.width : null;
  const height = typeof result.dimensions?.height === "number" ? result.dimensions.height : null;
  const location = locationOf(capture.location, "device") ?? locationOf(result.location, "exif");
  return {
    id: capture.id,
    verification_id: capture.verificationId,
    step_key: capture.stepKey,
    source: context.source,
    media_type: capture.contentType,
    size_bytes: capture.sizeBytes,
    sha256: capture.sha256,
    width,
    height,
    created_at: iso(capture.createdAt),
    ...(capture.clientCapturedAt !== null ? { client_captured_at: iso(capture.clientCapturedAt) } : {}),
    ...(location ? { location } : {}),
    ...(capture.attestation ? { attestation: capture.attestation as Record<string, unknown> } : {}),
    ...(capture.captureIntegrity ? { capture_integrity: capture.captureIntegrity as CaptureIntegrity } : {}),
    ...(context.urls.image ? { image_url: context.urls.image } : {}),
    ...(context.urls.thumbnail ? { thumbnail_url: context.urls.thumbnail } : {}),
    ...(context.urls.depthMap ? { depth_map_url: context.urls.depthMap } : {}),
    ...(context.urls.credentials ? { credentials_url: context.urls.credentials } : {}),
    ...(context.redactedAt !== null ? { redacted_at: iso(context.redactedAt) } : {}),
    analysis: context.analysis,
  };
}

/** A stored fix (the capture request's `location`, or the analysis' observed fix) when it is of `source`. */
function locationOf(value: unknown, source: "device" | "exif"): CaptureLocationView | null {
  const fix = value as { lat?: unknown; lng?: unknown; accuracy_m?: unknown; is_mock?: unknown; source?: unknown } | null;
  if (!fix || typeof fix.lat !== "number" || typeof fix.lng !== "number") return null;
  if (fix.source !== undefined && fix.source !== source) return null;
  return {
    source,
    lat: fix.lat,
    lng: fix.lng,
    ...(typeof fix.accuracy_m === "number" ? { accuracy_m: fix.accuracy_m } : {}),
    is_mock: fix.is_mock === true,
  };
}
