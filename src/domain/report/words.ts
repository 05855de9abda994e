import { DEPTH_ANOMALY_BELOW } from "../../analysis/verdict";
import type { CertifiedSignal } from "../certificates/signals";

/*
 * The report's wording of codes: signals, the methods that decided them, verdict reasons and
 * per-signal outcomes, for a reader who has not read the API reference. Unknown codes read as
 * themselves, never as something they are not.
 */

export const SIGNAL_NAMES: Readonly<Record<string, string>> = {
  screen_detection: "Photo of a screen",
  ai_detection: "AI-generated image",
  reverse_search: "Image reuse (seen before or online)",
  depth: "Flat or injected image (depth)",
  context_match: "Matches the case context",
};

const METHODS: Readonly<Record<string, string>> = {
  pixels: "the service's analysis of the pixels",
  provenance: "provenance metadata (C2PA, XMP, EXIF)",
  // The map comes from the client with the photo: its flatness is measured, its origin is not (docs/signals.md).
  depth_map: "the depth map uploaded with the photo (the client's, not tied to a camera)",
  capture_burst: "the frames around the shutter the capture page sent, measured by the service",
  capture_burst_flat_scene: "the frames around the shutter the capture page sent, measured by the service: a flat scene (one moving plane)",
  capture_burst_no_parallax: "the frames around the shutter the capture page sent, measured by the service: too little motion to judge depth",
  perceptual_hash: "the service's image history (perceptual hash)",
};

const REASONS: Readonly<Record<string, string>> = {
  screen_detected: "a capture looks like a photo of a screen",
  ai_generated: "a capture looks AI-generated",
  context_mismatch: "the captures do not match the case context",
  reverse_search_match: "a capture was seen before or found online",
  depth_anomaly: "a capture looks flat or injected",
  not_assessed: "a required check could not be made",
};

const ASSESSMENTS: Readonly<Record<string, string>> = {
  complete: "every required check was made",
  partial: "some required checks could not be made",
  none: "no check could be made",
};

const NOT_ASSESSED_REASONS: Readonly<Record<string, string>> = {
  uploaded_content: "not applicable to uploaded images",
};

export function signalName(key: string): string {
  return SIGNAL_NAMES[key] ?? key;
}

/** `pixels, provenance` → words; `provider:sightengine` → "the provider sightengine"; `a+b` → "a and b". */
export function methodWords(method: string | undefined): string {
  if (!method) return "not recorded";
  return method
    .split(", ")
    .map((one) =>
      one
        .split("+")
        .map((part) => (part.startsWith("provider:") ? `the provider ${part.slice("provider:".length)}` : (METHODS[part] ?? part)))
        .join(" and "),
    )
    .join("; ");
}

export function reasonWords(code: string | undefined): string | null {
  return code ? (REASONS[code] ?? code) : null;
}

export function assessmentWords(assessment: string): string {
  return ASSESSMENTS[assessment] ?? assessment;
}

export function statusWords(signal: CertifiedSignal | undefined): string {
  if (!signal) return "not required";
  if (signal.status === "assessed") return "checked";
  return signal.status === "not_applicable" ? "not applicable (uploads only)" : "could not be checked";
}

const percent = (x: unknown) => (typeof x === "number" ? `${Math.round(x * 100)} %` : "?");

/** What a verdict or capture signal concluded, in words (its stored shape varies by signal). */
export function outcomeWords(key: string, value: unknown): string {
  if (typeof value !== "object" || value === null) return "not recorded";
  const v = value as Record<string, unknown>;
  if (v.status === "not_applicable") return NOT_ASSESSED_REASONS[String(v.reason)] ?? "not applicable";
  if (v.status === "not_assessed") return `not assessed (${String(v.reason ?? "no reason recorded").replaceAll("_", " ")})`;
  const confidence = typeof v.confidence === "number" ? `, confidence ${percent(v.confidence)}` : "";
  switch (key) {
    case "screen_detection":
      return typeof v.screen_detected === "boolean" ? `${v.screen_detected ? "screen detected" : "no screen detected"}${confidence}` : generic(v);
    case "ai_detection":
      return typeof v.label === "string" ? `${v.label.replaceAll("_", " ")}${confidence}` : generic(v);
    case "reverse_search":
      return typeof v.match_count === "number" || typeof v.found_online === "boolean" ? reuseWords(v) : generic(v);
    case "depth": {
      // A capture's row says `anomaly`; the verdict's {source, confidence} is one below the trip.
      const anomaly = typeof v.anomaly === "boolean" ? v.anomaly : typeof v.confidence === "number" ? v.confidence < DEPTH_ANOMALY_BELOW : undefined;
      if (anomaly === undefined) return generic(v);
      // The confidence is in a real scene before the camera, so an anomaly's is low: say so, or 5 % reads as "5 % sure it is fake".
      const real = typeof v.confidence === "number" ? `, confidence the scene is real ${percent(v.confidence)}` : "";
      return `${anomaly ? "anomaly" : "no anomaly"}${typeof v.source === "string" ? ` (${v.source.replaceAll("_", " ")})` : ""}${real}`;
    }
    case "context_match":
      return typeof v.status === "string" ? `${v.status}${confidence}` : generic(v);
    default:
      return generic(v);
  }
}

/**
 * What the reuse check found, and where it looked: `sources` names what was searched, and without
 * `web` among them nothing was looked for online (console: client/console/lib/signals.ts).
 */
function reuseWords(v: Record<string, unknown>): string {
  const matches = typeof v.match_count === "number" ? v.match_count : 0;
  const sources = Array.isArray(v.sources) ? (v.sources as unknown[]) : null;
  const searched = sources === null ? "" : sources.includes("shared_history") ? " in this tenant's or the shared index's captures" : " in this tenant's captures";
  const web = sources === null ? " (what was searched is not recorded)" : sources.includes("web") ? "" : " (the web was not searched)";
  if (v.found_online === true) return `found online${matches > 0 ? `, ${matches} earlier match${matches === 1 ? "" : "es"}` : ""}`;
  if (matches > 0) return `seen before: ${matches} earlier match${matches === 1 ? "" : "es"}${searched}${web}`;
  return sources?.includes("web") ? "not found online or in earlier captures" : `no earlier match${searched}${web}`;
}

function generic(v: Record<string, unknown>): string {
  const parts = Object.entries(v)
    .filter(([, x]) => typeof x === "string" || typeof x === "number" || typeof x === "boolean")
    .map(([k, x]) => `${k.replaceAll("_", " ")}: ${String(x)}`);
  return parts.length > 0 ? parts.join(", ") : "recorded";
}

/**
 * The location check's result. `ungeocoded` has three causes, told apart by `expected_point` (set
 * whenever the address resolved) and `observed_point` (set when a capture had a fix): the address
 * was not found; no capture carried a location; or the only fix was too coarse to place a capture
 * at the address (`fix_too_coarse`, analysis/signals/location.ts).
 */
export function locationWords(location: { status: string; expected_point: unknown; observed_point?: unknown }): string {
  switch (location.status) {
    case "verified":
      return "taken within the tolerance of the expected address";
    case "no_match":
      return "taken farther from the expected address than the tolerance";
    case "ungeocoded":
      if (!location.expected_point) return "not compared (the address could not be found)";
      return location.observed_point ? "not compared (the location fix was too coarse to place the capture: worse than ±1 000 m)" : "not compared (the captures carried no location)";
    case "rejected":
      return "the device reported a mock location";
    default:
      return "";
  }
}
