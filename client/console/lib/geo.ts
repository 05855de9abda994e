export interface Point {
  lat: number;
  lng: number;
}

/** Great-circle distance in metres (haversine, mean Earth radius). */
export function distanceMetres(a: Point, b: Point): number {
  const R = 6_371_008.8;
  const rad = (d: number) => (d * Math.PI) / 180;
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function formatDistance(m: number): string {
  return m < 1000 ? `${Math.round(m)} m` : `${(m / 1000).toFixed(m < 10_000 ? 1 : 0)} km`;
}

export const formatPoint = (p: Point): string => `${p.lat.toFixed(5)}, ${p.lng.toFixed(5)}`;

/** A link to the point on OpenStreetMap (opens in a new tab; no Referer is sent). */
export const mapUrl = (p: Point): string => `https://www.openstreetmap.org/?mlat=${p.lat}&mlon=${p.lng}#map=17/${p.lat}/${p.lng}`;

export function isPoint(value: unknown): value is Point {
  return typeof value === "object" && value !== null && typeof (value as Point).lat === "number" && typeof (value as Point).lng === "number";
}

type Tone = "good" | "warn" | "bad" | "neutral";

/**
 * The location check in a reviewer's words. `ungeocoded` has three causes, told apart by
 * `expected_point` (set whenever the address resolved) and `observed_point` (set when a capture had
 * a fix): the address was not found; no photo carried a fix; or the only fix was too coarse
 * (worse than ±1 km) to place the photo at the address.
 */
export function locationWords(location: { status: unknown; expected_point?: unknown; observed_point?: unknown }): [string, Tone] | undefined {
  switch (location.status) {
    case "verified":
      return ["Taken at the expected place", "good"];
    case "no_match":
      return ["Taken elsewhere", "bad"];
    case "ungeocoded":
      if (!isPoint(location.expected_point)) return ["Not compared (the address was not found)", "neutral"];
      return isPoint(location.observed_point) ? ["Not compared (the location fix was too coarse)", "neutral"] : ["Not compared (no location on the photos)", "neutral"];
    case "rejected":
      return ["The device reported a fake location", "bad"];
    default:
      return undefined;
  }
}
