import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { geocodeCache } from "../../src/db/schema";
import { GEOCODE_CACHE_TTL_MS, geocodeCached, GeocoderUnavailable, geocoderGate, nominatimGeocoder, pruneGeocodeCache, type RateGate } from "../../src/providers/geocoder";
import { db } from "../helpers/api";

const nominatim = (userAgent = "verification-service/test") => nominatimGeocoder({ url: `${env.FAKES_URL}/geocoder`, userAgent });
const open: RateGate = { acquire: async () => true };
const closed: RateGate = { acquire: async () => false };

async function callsFor(q: string): Promise<number> {
  const res = await fetch(`${env.FAKES_URL}/geocoder/_calls?q=${encodeURIComponent(q)}`);
  return ((await res.json()) as { calls: number }).calls;
}

describe("Nominatim-compatible geocoder (loopback fake)", () => {
  it("resolves an address with an uncertainty from its bounding box", async () => {
    const point = await nominatim().geocode("Eiffel Tower, Paris");
    expect(point).toMatchObject({ lat: 48.8582602, lng: 2.294499, precision: "street", provider: "nominatim" });
    expect(point!.uncertainty_m).toBeGreaterThan(50);
    expect(point!.uncertainty_m).toBeLessThan(200);
    const city = await nominatim().geocode("Paris, France");
    expect(city!.precision).toBe("area");
    expect(city!.uncertainty_m).toBeGreaterThan(5000);
  });

  it("no result is null; a server error, a non-JSON body or an invalid point are retryable failures", async () => {
    expect(await nominatim().geocode("nowhere at all")).toBeNull();
    await expect(nominatim().geocode("exploding street")).rejects.toBeInstanceOf(GeocoderUnavailable);
    await expect(nominatim().geocode("garbage road")).rejects.toBeInstanceOf(GeocoderUnavailable);
    await expect(nominatim().geocode("bad point")).rejects.toThrow(/invalid point/);
  });

  it("sends an identifying User-Agent (an anonymous client is refused and treated as not found)", async () => {
    expect(await nominatim("curl/8").geocode("Eiffel Tower")).toBeNull();
  });

  it("caches results and misses in D1: the provider sees each address once", async () => {
    const address = `Eiffel Tower ${crypto.randomUUID().slice(0, 8)}`;
    const first = await geocodeCached(db(), nominatim(), open, address);
    const second = await geocodeCached(db(), nominatim(), closed, `  ${address.toUpperCase()} `);
    expect(second).toEqual(first);
    expect(await callsFor(address)).toBe(1);
    const miss = `nowhere ${crypto.randomUUID().slice(0, 8)}`;
    expect(await geocodeCached(db(), nominatim(), open, miss)).toBeNull();
    expect(await geocodeCached(db(), nominatim(), closed, miss)).toBeNull();
    expect(await callsFor(miss)).toBe(1);
  });

  it("a closed rate gate refuses (retryable) before calling the provider; coordinates need neither", async () => {
    const address = `Eiffel Tower ${crypto.randomUUID().slice(0, 8)}`;
    await expect(geocodeCached(db(), nominatim(), closed, address)).rejects.toBeInstanceOf(GeocoderUnavailable);
    expect(await callsFor(address)).toBe(0);
    expect(await geocodeCached(db(), null, closed, "48.85, 2.29")).toMatchObject({ lat: 48.85, lng: 2.29, provider: "coordinates" });
  });

  it("the shared gate allows one request per second across callers", async () => {
    const gate = geocoderGate(env);
    // Three calls within one second span at most two windows: at least one is refused.
    const results = [await gate.acquire(), await gate.acquire(), await gate.acquire()];
    expect(results.filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(results.filter((r) => !r).length).toBeGreaterThanOrEqual(1);
    // The limiter clears its window with an alarm: run it here (alarms outlive a test).
    await runDurableObjectAlarm(env.RATE_LIMITERS.get(env.RATE_LIMITERS.idFromName("geocoder")));
  });
});

describe("geocode cache lifetime (addresses are personal data)", () => {
  it("an entry older than the TTL is geocoded again, and the daily prune deletes expired entries only", async () => {
    const address = `Eiffel Tower ${crypto.randomUUID().slice(0, 8)}`;
    const then = Date.now() - GEOCODE_CACHE_TTL_MS - 60_000;
    await geocodeCached(db(), nominatim(), open, address, then);
    expect(await callsFor(address)).toBe(1);
    await geocodeCached(db(), nominatim(), open, address);
    expect(await callsFor(address)).toBe(2);

    const stale = `Eiffel Tower ${crypto.randomUUID().slice(0, 8)}`;
    await geocodeCached(db(), nominatim(), open, stale, then);
    const keys = async () => (await db().select({ query: geocodeCache.query }).from(geocodeCache).all()).map((r) => r.query);
    expect(await keys()).toContain(`nominatim:${stale.toLowerCase()}`);
    expect(await pruneGeocodeCache(db())).toBeGreaterThanOrEqual(1);
    const left = await keys();
    expect(left).not.toContain(`nominatim:${stale.toLowerCase()}`);
    expect(left).toContain(`nominatim:${address.toLowerCase()}`);
  });
});
