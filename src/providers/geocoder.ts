import { eq, lt } from "drizzle-orm";
import { rateLimiterObject } from "../durable-objects/rate-limiter-client";
import type { Db } from "../db/client";
import { geocodeCache } from "../db/schema";
import { parseCoordinates, type GeocodedPoint } from "../analysis/signals/location";

/** Resolves an address to a point with its uncertainty; null when the address cannot be resolved. */
export interface Geocoder {
  readonly name: string;
  geocode(address: string): Promise<GeocodedPoint | null>;
}

/** A retryable refusal (rate limit, provider down): the analysis is retried by the queue. */
export class GeocoderUnavailable extends Error {
  override name = "GeocoderUnavailable";
}

const TIMEOUT_MS = 8_000;
const MIN_UNCERTAINTY_M = 25;
const MAX_UNCERTAINTY_M = 50_000;

interface NominatimPlace {
  lat?: unknown;
  lon?: unknown;
  boundingbox?: unknown;
  addresstype?: unknown;
  place_rank?: unknown;
}

/**
 * Nominatim-compatible `/search?format=jsonv2` (self-hosted or a commercial host; the public OSMF
 * instance allows 1 request/s with an identifying User-Agent). Uncertainty is half the diagonal of the
 * returned bounding box, at least 25 m.
 */
export function nominatimGeocoder(options: { url: string; userAgent: string; fetcher?: typeof fetch; email?: string }): Geocoder {
  const doFetch = options.fetcher ?? fetch;
  return {
    name: "nominatim",
    async geocode(address) {
      const url = new URL(`${options.url.replace(/\/+$/, "")}/search`);
      url.searchParams.set("q", address);
      url.searchParams.set("format", "jsonv2");
      url.searchParams.set("limit", "1");
      if (options.email) url.searchParams.set("email", options.email);
      let res: Response;
      try {
        res = await doFetch(url, { headers: { "user-agent": options.userAgent, accept: "application/json" }, signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (err) {
        throw new GeocoderUnavailable(`geocoder unreachable: ${String(err)}`);
      }
      if (res.status === 429 || res.status >= 500) {
        await res.body?.cancel();
        throw new GeocoderUnavailable(`geocoder answered HTTP ${res.status}`);
      }
      if (!res.ok) {
        await res.body?.cancel();
        return null;
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        throw new GeocoderUnavailable("geocoder reply is not JSON");
      }
      if (!Array.isArray(body)) throw new GeocoderUnavailable("geocoder reply is not a result list");
      const place = body[0] as NominatimPlace | undefined;
      if (!place) return null;
      const lat = Number(place.lat);
      const lng = Number(place.lon);
      if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) {
        throw new GeocoderUnavailable("geocoder returned an invalid point");
      }
      return { lat, lng, ...uncertaintyOf(place), provider: "nominatim" };
    },
  };
}

function uncertaintyOf(place: NominatimPlace): Pick<GeocodedPoint, "uncertainty_m" | "precision"> {
  const box = Array.isArray(place.boundingbox) ? place.boundingbox.map(Number) : [];
  let uncertainty = 1_000;
  if (box.length === 4 && box.every(Number.isFinite)) {
    const [south, north, west, east] = box as [number, number, number, number];
    const midLat = ((south + north) / 2) * (Math.PI / 180);
    const dy = (north - south) * 111_320;
    const dx = (east - west) * 111_320 * Math.cos(midLat);
    uncertainty = Math.hypot(dx, dy) / 2;
  }
  uncertainty = Math.min(MAX_UNCERTAINTY_M, Math.max(MIN_UNCERTAINTY_M, Math.round(uncertainty)));
  const precision = uncertainty <= 50 ? "rooftop" : uncertainty <= 500 ? "street" : "area";
  return { uncertainty_m: uncertainty, precision };
}

/** Coordinates given as text resolve to themselves (no provider, no uncertainty beyond a building). */
function coordinatesPoint(address: string): GeocodedPoint | null {
  const point = parseCoordinates(address);
  return point ? { ...point, uncertainty_m: MIN_UNCERTAINTY_M, precision: "coordinates", provider: "coordinates" } : null;
}

export function cacheKey(address: string): string {
  return address.trim().toLowerCase().replace(/\s+/g, " ");
}

/** Per-deployment rate limit of the geocoder (1 request per second by default, shared across isolates). */
export interface RateGate {
  acquire(): Promise<boolean>;
}

/**
 * How long a cached address lives. The cache holds the address text of verifications (an address is
 * personal data, and redaction cannot find it: the cache is keyed by the address, not by a
 * verification), so entries expire and the daily cron deletes them (`pruneGeocodeCache`).
 */
export const GEOCODE_CACHE_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Geocodes with the D1 cache in front (results and "not found" both cached, so the provider sees each
 * address once per TTL) and the rate gate before every provider call; a closed gate is retryable.
 */
export async function geocodeCached(db: Db, geocoder: Geocoder | null, gate: RateGate | null, address: string, now = Date.now()): Promise<GeocodedPoint | null> {
  const direct = coordinatesPoint(address);
  if (direct) return direct;
  if (!geocoder) return null;
  const key = `${geocoder.name}:${cacheKey(address)}`;
  const cached = await db.select().from(geocodeCache).where(eq(geocodeCache.query, key)).get();
  if (cached && cached.createdAt > now - GEOCODE_CACHE_TTL_MS) return (cached.result as GeocodedPoint | null) ?? null;
  if (gate && !(await gate.acquire())) throw new GeocoderUnavailable("geocoder rate limit reached; retry later");
  const result = await geocoder.geocode(address);
  await db
    .insert(geocodeCache)
    .values({ query: key, result, createdAt: now })
    .onConflictDoUpdate({ target: geocodeCache.query, set: { result, createdAt: now } });
  return result;
}

/** Deletes the cached addresses older than the TTL; returns how many went. */
export async function pruneGeocodeCache(db: Db, now = Date.now()): Promise<number> {
  const result = await db.delete(geocodeCache).where(lt(geocodeCache.createdAt, now - GEOCODE_CACHE_TTL_MS)).run();
  return result.meta.changes;
}

export function geocoderFromEnv(env: Env): Geocoder | null {
  if (!env.GEOCODER_URL) return null;
  return nominatimGeocoder({
    url: env.GEOCODER_URL,
    userAgent: env.GEOCODER_USER_AGENT || "verification-service/0.1 (+https://verify.example.com)",
    ...(env.GEOCODER_EMAIL ? { email: env.GEOCODER_EMAIL } : {}),
  });
}

/** The geocoder's rate gate on the shared RATE_LIMITERS Durable Object (fixed 1 s window). */
export function geocoderGate(env: Env): RateGate {
  const perSecond = Math.max(1, Number(env.GEOCODER_RATE_PER_SECOND) || 1);
  return {
    async acquire() {
      const result = await rateLimiterObject(env, "geocoder").hit(perSecond, 1_000);
      return result.allowed;
    },
  };
}
