/** `image/JPEG; charset=x` → `image/jpeg`. */
export function normalizeContentType(value: string): string {
  return value.split(";")[0]!.trim().toLowerCase();
}

export const INLINE_MAX_BYTES = 6 * 1024 * 1024;

/** Decodes the inline shape's base64 (a `data:` URL prefix and whitespace are tolerated). */
export function decodeBase64Image(text: string): Uint8Array | null {
  const body = text.replace(/^data:[^,]*;base64,/, "").replace(/\s+/g, "");
  if (body.length === 0 || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(body)) return null;
  try {
    const binary = atob(body.replace(/-/g, "+").replace(/_/g, "/"));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** Upper bound on base64 characters that can decode to at most `bytes` bytes (plus a data-URL prefix). */
export function base64LengthLimit(bytes: number): number {
  return Math.ceil(bytes / 3) * 4 + 256;
}
