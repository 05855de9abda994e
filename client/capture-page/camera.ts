/*
 * The live camera, when the browser has one to offer: getUserMedia with the rear camera preferred.
 * Anything else (no API, insecure context, no device, refusal) is reported as an outcome so the page
 * can fall back to the camera app through a file input.
 */
export type CameraOutcome = { ok: true; stream: MediaStream } | { ok: false; reason: "denied" | "unavailable" | "closed" };

export function liveCameraSupported(): boolean {
  return typeof navigator !== "undefined" && !!navigator.mediaDevices?.getUserMedia && window.isSecureContext !== false;
}

let current: MediaStream | null = null;
/** The request in flight, shared: a step shown again meanwhile waits for the same stream. */
let opening: Promise<CameraOutcome> | null = null;
/** Bumped by closeCamera: a stream granted after the page moved on is stopped, not kept live. */
let generation = 0;

/** Opens the camera, or returns the stream that is already open. */
export function openCamera(): Promise<CameraOutcome> {
  if (current && current.getVideoTracks().some((t) => t.readyState === "live")) return Promise.resolve({ ok: true, stream: current });
  if (!liveCameraSupported()) return Promise.resolve({ ok: false, reason: "unavailable" });
  if (opening) return opening;
  const pending = request(generation);
  opening = pending;
  void pending.then(() => {
    if (opening === pending) opening = null;
  });
  return pending;
}

async function request(asked: number): Promise<CameraOutcome> {
  try {
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1440 } },
    });
    if (asked !== generation) {
      // The end user left the step while the camera was starting: its indicator must not stay on.
      for (const track of stream.getTracks()) track.stop();
      return { ok: false, reason: "closed" };
    }
    current = stream;
    return { ok: true, stream };
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    return { ok: false, reason: name === "NotAllowedError" || name === "SecurityError" || name === "PermissionDeniedError" ? "denied" : "unavailable" };
  }
}

/** Releases the camera (the phone's indicator goes off) when no image step is on screen. */
export function closeCamera(): void {
  generation += 1;
  opening = null;
  for (const track of current?.getTracks() ?? []) track.stop();
  current = null;
}

/**
 * The video frame on screen now, drawn once at full resolution. The photo is encoded from this
 * canvas and the capture-integrity record reads its shutter frame from it too, so the photo is one
 * of the burst's frames by construction (two separate reads of the video can fall on different
 * frames on a loaded phone).
 */
export function stillOf(video: HTMLVideoElement): HTMLCanvasElement {
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  const ctx = canvas.getContext("2d");
  if (!ctx || canvas.width === 0) throw new Error("The camera has not delivered a picture yet.");
  ctx.drawImage(video, 0, 0, canvas.width, canvas.height);
  return canvas;
}

/** A still (stillOf) as the photo's JPEG. */
export function photoOf(still: HTMLCanvasElement): Promise<Blob> {
  return toJpeg(still);
}

function toJpeg(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("Could not encode the photo."))), "image/jpeg", 0.9));
}

/** Re-encodes a picked image the server would not take (GIF, BMP, …) as a JPEG. */
export async function reencodeAsJpeg(file: Blob): Promise<Blob> {
  const url = URL.createObjectURL(file);
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    canvas.getContext("2d")?.drawImage(img, 0, 0);
    return await toJpeg(canvas);
  } finally {
    URL.revokeObjectURL(url);
  }
}
