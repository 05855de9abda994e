import type { components } from "../../../clients/typescript/src/schema";

// The schema's types, not ../api's: that module opens the API client (window) when imported.
type Verification = components["schemas"]["Verification"];
type Verdict = components["schemas"]["Verdict"];
type VerificationStatus = Verification["status"];
import { REASON_WORDS } from "./signals";

// With the zone ("7 Dec 2026, 04:21 GMT-5"): the certificate and the report print UTC, and an operator
// passing a time on must not be an hour or a day off (console probe of 2026-12-07).
const dateTime = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
const timeOnly = new Intl.DateTimeFormat("en-GB", { timeStyle: "medium" });

export const formatDateTime = (iso: string | undefined): string => (iso ? dateTime.format(new Date(iso)) : "—");
export const formatTime = (date: Date): string => timeOnly.format(date);

/** "3 min ago", "in 2 days": relative to now, for scanning a list. */
export function relative(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  const [value, unit] =
    abs < 60 ? [seconds, "second"] : abs < 3600 ? [Math.round(seconds / 60), "minute"] : abs < 86_400 ? [Math.round(seconds / 3600), "hour"] : [Math.round(seconds / 86_400), "day"];
  return new Intl.RelativeTimeFormat("en", { numeric: "auto" }).format(value, unit as Intl.RelativeTimeFormatUnit);
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function duration(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? "" : "s"}`;
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? "" : "s"}`;
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? "" : "s"}`;
  return `${seconds} s`;
}

export const STATUS_LABEL: Record<VerificationStatus, string> = {
  pending: "Waiting for capture",
  partially_captured: "Capturing",
  completed: "Completed",
  expired: "Expired",
  failed: "Failed",
  abandoned: "Abandoned",
};

export const VERDICT_LABEL: Record<Verdict["label"], string> = { verified: "Verified", suspicious: "Suspicious", failed: "Failed" };

/** Each `reason_code` in words, typed by the API's enum so the two lists stay in step. */
export const REASON_LABEL: Record<NonNullable<Verdict["reason_code"]>, string> = REASON_WORDS;

export const SIGNAL_NAMES = {
  screen: "Screen detection",
  ai: "AI-generation detection",
  reverse: "Reverse image search",
  context: "Context match",
  depth: "Depth",
} as const;

/** A short description of what a verification collects, from its steps. */
export function stepsSummary(v: Verification): string {
  const steps = v.config.steps;
  const photos = steps.filter((s) => s.type !== "text").reduce((n, s) => n + ("max" in s ? s.max : 0), 0);
  const texts = steps.filter((s) => s.type === "text").length;
  return [`${photos} photo${photos === 1 ? "" : "s"} max`, texts ? `${texts} question${texts === 1 ? "" : "s"}` : ""].filter(Boolean).join(", ");
}

/** `text` as a bidi isolate (FSI … PDI), for a name inside plain text where `<bdi>` cannot go (an `<option>`). */
export function isolated(text: string): string {
  return `\u2068${text}\u2069`;
}

/** `text` cut to `max` characters as a reader counts them (grapheme clusters: an emoji or an accent stays whole), with "…" when cut. */
export function shortened(text: string, max: number): string {
  const graphemes = Array.from(new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text), (s) => s.segment);
  return graphemes.length <= max ? text : `${graphemes.slice(0, max - 1).join("").trimEnd()}…`;
}
