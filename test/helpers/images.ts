/** Tiny but real image bytes built in the test (no binary fixtures are committed). */

// A 1x1 baseline JPEG.
const JPEG_1x1_BASE64 =
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=";

export function jpegBytes(): Uint8Array {
  return Uint8Array.from(atob(JPEG_1x1_BASE64), (c) => c.charCodeAt(0));
}

/** A JPEG whose trailing padding makes every call's bytes (and SHA-256) unique. */
export function uniqueJpeg(padding = 16): Uint8Array {
  const base = jpegBytes();
  const out = new Uint8Array(base.length + padding);
  out.set(base);
  crypto.getRandomValues(out.subarray(base.length));
  return out;
}

export function pngSignatureBytes(extra = 32): Uint8Array {
  const out = new Uint8Array(8 + extra);
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
