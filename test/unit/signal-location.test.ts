import { describe, expect, it } from "vitest";
import { readMetadata } from "../../src/analysis/metadata";
import { haversineMeters, matchLocation, MAX_PLACING_ACCURACY_M, observedFix, parseCoordinates, type GeocodedPoint } from "../../src/analysis/signals/location";
import { encodeJpeg, exifTiff, naturalScene } from "../helpers/synth";

const eiffel: GeocodedPoint = { lat: 48.8584, lng: 2.2945, uncertainty_m: 25, precision: "rooftop", provider: "test" };
/** A point `meters` north of the tower. */
const north = (meters: number) => ({ lat: eiffel.lat + meters / 111_195, lng: eiffel.lng });

describe("location_match", () => {
  it("haversine distance is the great-circle distance", () => {
    expect(Math.round(haversineMeters({ lat: 48.8584, lng: 2.2945 }, { lat: 51.5007, lng: -0.1246 }))).toBeGreaterThan(340_000);
    expect(Math.round(haversineMeters(eiffel, north(500)))).toBe(500);
  });

  it("verified within tolerance, no_match beyond it (tolerance = max(100 m, 2 × accuracy, geocode uncertainty))", () => {
    const near = observedFix({ ...north(99), accuracy_m: 10 }, null)!;
    expect(matchLocation("Eiffel Tower", [near], eiffel)).toMatchObject({ status: "verified", distance_m: 99, tolerance_m: 100, source: "device", evidence: [{ code: "within_tolerance" }] });
    const far = observedFix({ ...north(101), accuracy_m: 10 }, null)!;
    expect(matchLocation("Eiffel Tower", [far], eiffel)).toMatchObject({ status: "no_match", distance_m: 101, evidence: [{ code: "outside_tolerance" }] });
    // A coarse fix widens the radius; so does an imprecise geocode.
    const coarse = observedFix({ ...north(150), accuracy_m: 80 }, null)!;
    expect(matchLocation("Eiffel Tower", [coarse], eiffel)).toMatchObject({ status: "verified", tolerance_m: 160 });
    expect(matchLocation("Paris", [far], { ...eiffel, uncertainty_m: 4000, precision: "area" })).toMatchObject({ status: "verified", tolerance_m: 4000 });
  });

  // Probe of 2026-12-06: a device fix of ±1 000 km read `verified` (its radius held the address).
  it("a fix coarser than ±1 km cannot place a capture at the address, but can still place it elsewhere", () => {
    const vague = observedFix({ ...north(5), accuracy_m: 1_000_000 }, null)!;
    expect(matchLocation("Eiffel Tower", [vague], eiffel)).toMatchObject({
      status: "ungeocoded",
      distance_m: null,
      tolerance_m: null,
      observed_point: { lat: vague.lat },
      evidence: [{ code: "fix_too_coarse" }],
    });
    const justFine = observedFix({ ...north(900), accuracy_m: MAX_PLACING_ACCURACY_M }, null)!;
    expect(matchLocation("Eiffel Tower", [justFine], eiffel)).toMatchObject({ status: "verified", tolerance_m: 2 * MAX_PLACING_ACCURACY_M });
    const elsewhere = observedFix({ ...north(50_000), accuracy_m: 5_000 }, null)!;
    expect(matchLocation("Eiffel Tower", [elsewhere], eiffel)).toMatchObject({ status: "no_match", distance_m: 50_000, tolerance_m: 10_000 });
    // A fine EXIF fix beats a vague device fix.
    const jpegFix = { source: "exif" as const, lat: north(20).lat, lng: eiffel.lng, accuracy_m: 8, is_mock: false };
    expect(matchLocation("Eiffel Tower", [vague, jpegFix], eiffel)).toMatchObject({ status: "verified", source: "exif", distance_m: 20 });
  });

  it("a mock fix is rejected whatever the distance", () => {
    const mock = observedFix({ ...north(1), is_mock: true }, null)!;
    expect(matchLocation("Eiffel Tower", [mock], eiffel)).toMatchObject({ status: "rejected", evidence: [{ code: "mock_location_reported" }] });
  });

  it("no GPS or no geocode is ungeocoded", () => {
    expect(matchLocation("Eiffel Tower", [], eiffel)).toMatchObject({ status: "ungeocoded", observed_point: null, evidence: [{ code: "no_gps_fix" }] });
    expect(matchLocation("Nowhere", [observedFix(north(10), null)!], null)).toMatchObject({ status: "ungeocoded", expected_point: null, evidence: [{ code: "address_not_geocoded" }] });
  });

  it("falls back to EXIF GPS when the device sent no fix", async () => {
    const jpeg = encodeJpeg(naturalScene(32, 32), 90, exifTiff({ gps: { lat: 48.8584, lng: -2.2945, accuracy_m: 12 } }));
    const fix = observedFix(null, await readMetadata(jpeg, "image/jpeg", []));
    expect(fix).toMatchObject({ source: "exif", accuracy_m: 12, is_mock: false });
    expect(fix!.lat).toBeCloseTo(48.8584, 4);
    expect(fix!.lng).toBeCloseTo(-2.2945, 4);
  });

  it("coordinates given as the expected location need no geocoder", () => {
    expect(parseCoordinates(" 48.8584, 2.2945 ")).toEqual({ lat: 48.8584, lng: 2.2945 });
    expect(parseCoordinates("10 Downing Street")).toBeNull();
    expect(parseCoordinates("91.0, 2.0")).toBeNull();
  });
});
