/*
 * The camera as the browser describes it: the device's label and kind, the track's settings and
 * the names of the controls it offers. No device or group id (they would only fingerprint the
 * person); nothing here needs a permission the preview does not already have.
 */
import type { CaptureIntegrity } from "../../../src/schemas/capture-integrity";

type Device = CaptureIntegrity["device"];

const num = (v: unknown, max: number) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.min(max, Math.round(v * 1000) / 1000) : undefined);
const int = (v: unknown, max: number) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.min(max, Math.round(v)) : undefined);
const text = (v: unknown) => (typeof v === "string" && v ? v.slice(0, 32) : undefined);
const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

export async function deviceOf(track: MediaStreamTrack | undefined): Promise<Device> {
  if (!track) return { kind: "none", settings: {}, controls: [] };
  const settings = (track.getSettings?.() ?? {}) as MediaTrackSettings & { resizeMode?: string };
  const capabilities = (typeof track.getCapabilities === "function" ? track.getCapabilities() : {}) as Record<string, unknown>;
  let kind = track.kind;
  try {
    const listed = (await navigator.mediaDevices.enumerateDevices()).find((d) => d.deviceId && d.deviceId === settings.deviceId);
    if (listed) kind = listed.kind;
  } catch {
    // enumerateDevices refused: the track's own kind stays.
  }
  const ignored = new Set(["deviceId", "groupId", "width", "height", "aspectRatio", "frameRate", "resizeMode", "facingMode"]);
  return defined({
    label: track.label ? track.label.slice(0, 256) : undefined,
    kind: kind.slice(0, 32) || "video",
    facing_mode: text(settings.facingMode),
    settings: defined({
      width: int(settings.width, 16_384),
      height: int(settings.height, 16_384),
      frame_rate: num(settings.frameRate, 1000),
      aspect_ratio: num(settings.aspectRatio, 100),
      resize_mode: text(settings.resizeMode),
    }),
    controls: Object.keys(capabilities)
      .filter((k) => !ignored.has(k) && /^[A-Za-z]{1,32}$/.test(k))
      .sort()
      .slice(0, 24),
  });
}
