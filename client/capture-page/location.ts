/** The device's position, only once the end user allowed it in the browser's own prompt. */
export interface Fix {
  lat: number;
  lng: number;
  accuracy_m?: number;
}

let latest: Fix | undefined;
let watching = false;

/** Starts listening (the browser asks the user the first time); never blocks the flow. */
export function watchLocation(): void {
  if (watching || typeof navigator === "undefined" || !navigator.geolocation) return;
  watching = true;
  try {
    navigator.geolocation.watchPosition(
      (pos) => {
        latest = {
          lat: pos.coords.latitude,
          lng: pos.coords.longitude,
          ...(Number.isFinite(pos.coords.accuracy) ? { accuracy_m: Math.min(pos.coords.accuracy, 1_000_000) } : {}),
        };
      },
      () => undefined,
      { enableHighAccuracy: true, maximumAge: 60_000, timeout: 30_000 },
    );
  } catch {
    // Some in-app browsers throw instead of calling the error callback.
  }
}

export function currentFix(): Fix | undefined {
  return latest;
}
