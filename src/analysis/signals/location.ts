import type { ImageMetadata } from "../metadata";

export const LOCATION_VERSION = "location/1";

/** Where a capture says it was taken: the device fix first, EXIF GPS otherwise. */
export interface ObservedFix {
  source: "device" | "exif";
  lat: number;
  lng: number;
  accuracy_m: number | null;
  is_mock: boolean;
}

/** A geocoded address: the point and how far the true place may be from it. */
export interface GeocodedPoint {
  lat: number;
  lng: number;
  uncertainty_m: number;
  precision: "coordinates" | "rooftop" | "street" | "area";
  provider: string;
}

export type LocationStatus = "verified" | "no_match" | "ungeocoded" | "rejected";

export interface LocationMatch {
  status: LocationStatus;
  expected_location: string;
  observed_location: string | null;
  expected_point: { lat: number; lng: number } | null;
  observed_point: { lat: number; lng: number } | null;
  distance_m: number | null;
  /** The radius the distance was compared with (docs/signals.md: location tolerance). */
  tolerance_m: number | null;
  source: "device" | "exif" | null;
  evidence: Array<{ code: string; detail?: string }>;
}

/** Smallest radius ever accepted: a building and its yard. */
export const BASE_TOLERANCE_M = 100;
/** A fix with no reported accuracy is assumed this coarse (typical urban phone GPS). */
const DEFAULT_FIX_ACCURACY_M = 30;
/**
 * Coarser than this, a fix comes from cell towers or an IP address, not from the device's position:
 * it cannot place a capture at an address (probe of 2026-12-06: a fix of ±1 000 km read `verified`).
 * It can still place the device elsewhere, when even its wide radius leaves the address out.
 */
export const MAX_PLACING_ACCURACY_M = 1_000;

export function observedFix(location: unknown, meta: ImageMetadata | null): ObservedFix | null {
  const device = location as { lat?: unknown; lng?: unknown; accuracy_m?: unknown; is_mock?: unknown } | null;
  if (device && typeof device.lat === "number" && typeof device.lng === "number") {
    return {
      source: "device",
      lat: device.lat,
      lng: device.lng,
      accuracy_m: typeof device.accuracy_m === "number" ? device.accuracy_m : null,
      is_mock: device.is_mock === true,
    };
  }
  if (meta?.gps) return { source: "exif", lat: meta.gps.lat, lng: meta.gps.lng, accuracy_m: meta.gps.accuracy_m, is_mock: false };
  return null;
}

/** Great-circle distance (haversine, mean Earth radius 6,371,008.8 m). */
export function haversineMeters(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const R = 6_371_008.8;
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** `"48.8584, 2.2945"`: an expected location given as coordinates needs no geocoder. */
export function parseCoordinates(text: string): { lat: number; lng: number } | null {
  const m = /^\s*(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$/.exec(text);
  if (!m) return null;
  const lat = Number(m[1]);
  const lng = Number(m[2]);
  return Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? { lat, lng } : null;
}

/** radius = max(base, 2 × GPS accuracy, geocode uncertainty). */
export function toleranceMeters(fix: ObservedFix, geocoded: GeocodedPoint): number {
  return Math.round(Math.max(BASE_TOLERANCE_M, 2 * (fix.accuracy_m ?? DEFAULT_FIX_ACCURACY_M), geocoded.uncertainty_m));
}

function describe(fix: ObservedFix): string {
  const accuracy = fix.accuracy_m !== null ? ` ±${Math.round(fix.accuracy_m)} m` : "";
  return `${fix.lat.toFixed(5)},${fix.lng.toFixed(5)} (${fix.source === "device" ? "device fix" : "EXIF GPS"}${accuracy})`;
}

/**
 * The spec's four statuses. A mock fix on any live capture rejects; otherwise the most accurate fix
 * is compared with the geocoded address. No address point, no fix at all, or only a fix too coarse
 * to place the capture there (MAX_PLACING_ACCURACY_M) that does not rule it out: `ungeocoded`.
 */
export function matchLocation(expected: string, fixes: ObservedFix[], geocoded: GeocodedPoint | null): LocationMatch {
  const base: LocationMatch = {
    status: "ungeocoded",
    expected_location: expected,
    observed_location: null,
    expected_point: geocoded ? { lat: geocoded.lat, lng: geocoded.lng } : null,
    observed_point: null,
    distance_m: null,
    tolerance_m: null,
    source: null,
    evidence: [],
  };
  const mock = fixes.find((f) => f.is_mock);
  if (mock) {
    return {
      ...base,
      status: "rejected",
      observed_location: describe(mock),
      observed_point: { lat: mock.lat, lng: mock.lng },
      source: mock.source,
      evidence: [{ code: "mock_location_reported", detail: "the device reported a mock (simulated) location" }],
    };
  }
  const ranked = [...fixes].sort((a, b) => rank(a) - rank(b));
  const fix = ranked[0];
  if (!fix) return { ...base, evidence: [{ code: "no_gps_fix" }] };
  const observed = { observed_location: describe(fix), observed_point: { lat: fix.lat, lng: fix.lng }, source: fix.source };
  if (!geocoded) return { ...base, ...observed, evidence: [{ code: "address_not_geocoded" }] };
  const distance = haversineMeters(fix, geocoded);
  const tolerance = toleranceMeters(fix, geocoded);
  const within = distance <= tolerance;
  if (within && tooCoarse(fix)) {
    return { ...base, ...observed, evidence: [{ code: "fix_too_coarse", detail: `±${Math.round(fix.accuracy_m!)} m: coarser than ±${MAX_PLACING_ACCURACY_M} m, it cannot place the capture at the address` }] };
  }
  return {
    ...base,
    ...observed,
    status: within ? "verified" : "no_match",
    distance_m: Math.round(distance),
    tolerance_m: tolerance,
    evidence: [{ code: within ? "within_tolerance" : "outside_tolerance", detail: `${geocoded.provider} (${geocoded.precision})` }],
  };
}

function tooCoarse(fix: ObservedFix): boolean {
  return fix.accuracy_m !== null && fix.accuracy_m > MAX_PLACING_ACCURACY_M;
}

/** Fixes that can place a capture first, device fixes before EXIF among them, then the most accurate. */
function rank(fix: ObservedFix): number {
  return (tooCoarse(fix) ? 2e12 : 0) + (fix.source === "device" ? 0 : 1e11) + (fix.accuracy_m ?? DEFAULT_FIX_ACCURACY_M);
}
