const encoder = new TextEncoder();

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (const b of view) out += b.toString(16).padStart(2, "0");
  return out;
}

export async function sha256Hex(data: string | ArrayBuffer | Uint8Array): Promise<string> {
  const input = typeof data === "string" ? encoder.encode(data) : data;
  return toHex(await crypto.subtle.digest("SHA-256", input));
}

/** How many leading bytes a stream digest keeps: enough to sniff a media type (an ISO-BMFF `ftyp` box included). */
export const HEAD_BYTES = 256;

export interface StreamDigest {
  size: number;
  sha256: string;
  /** the first `HEAD_BYTES` bytes */
  head: Uint8Array;
}

/**
 * SHA-256, size and first bytes of a stream, never buffered whole. The first bytes are read here;
 * the rest is piped into the runtime's digest natively (no JavaScript per chunk).
 */
export async function digestStream(stream: ReadableStream<Uint8Array>): Promise<StreamDigest> {
  const digest = new crypto.DigestStream("SHA-256");
  digest.digest.catch(() => undefined); // rejects when the stream errors: the error is thrown below
  const reader = stream.getReader();
  const writer = digest.getWriter();
  const head = new Uint8Array(HEAD_BYTES);
  let headLength = 0;
  let done = false;
  while (headLength < HEAD_BYTES) {
    const next = await reader.read();
    if (next.done) {
      done = true;
      break;
    }
    const take = next.value.subarray(0, HEAD_BYTES - headLength);
    head.set(take, headLength);
    headLength += take.byteLength;
    await writer.write(next.value);
  }
  reader.releaseLock();
  writer.releaseLock();
  if (done) await digest.close();
  else await stream.pipeTo(digest);
  return { size: Number(digest.bytesWritten), sha256: toHex(await digest.digest), head: head.subarray(0, headLength) };
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Unbiased base62 string from `bytes` of entropy (rejection sampling). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const buf = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of buf) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

export function base64UrlEncode(bytes: Uint8Array | string): string {
  const view = typeof bytes === "string" ? encoder.encode(bytes) : bytes;
  let bin = "";
  for (const b of view) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function base64UrlDecode(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * Imported HMAC keys by secret, kept for the isolate's life: every upload URL, evidence URL and
 * cursor is signed or checked with one of a handful of secrets, and importing one costs more than
 * the HMAC itself. Bounded, in case a caller ever passes per-request secrets.
 */
const hmacKeys = new Map<string, Promise<CryptoKey>>();
const HMAC_KEYS_KEPT = 32;

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    // A failed import is not kept: the next call tries again.
    key.catch(() => hmacKeys.delete(secret));
    if (hmacKeys.size >= HMAC_KEYS_KEPT) hmacKeys.delete(hmacKeys.keys().next().value!);
    hmacKeys.set(secret, key);
  }
  return key;
}

export async function hmacSha256(secret: string, message: string): Promise<Uint8Array> {
  const sig = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message));
  return new Uint8Array(sig);
}

/** Constant-time HMAC check: WebCrypto's verify compares in constant time. */
export async function hmacVerify(secret: string, message: string, signature: Uint8Array): Promise<boolean> {
  return crypto.subtle.verify("HMAC", await hmacKey(secret), signature, encoder.encode(message));
}

/** Constant-time equality of two strings of any length (both sides hashed first). */
export async function timingSafeEqualStrings(a: string, b: string): Promise<boolean> {
  const [ha, hb] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(a)),
    crypto.subtle.digest("SHA-256", encoder.encode(b)),
  ]);
  return crypto.subtle.timingSafeEqual(ha, hb) && a.length === b.length;
}

/**
 * A compact signed token: base64url(payload JSON) + "." + base64url(HMAC). Used for upload URLs
 * and list cursors, where a JWT's header would only add bytes.
 */
export async function signToken(secret: string, purpose: string, payload: unknown): Promise<string> {
  const body = base64UrlEncode(JSON.stringify(payload));
  const sig = await hmacSha256(secret, `${purpose}.${body}`);
  return `${body}.${base64UrlEncode(sig)}`;
}

export async function verifyToken(secret: string, purpose: string, token: string): Promise<unknown> {
  const [body, sig, extra] = token.split(".");
  if (!body || !sig || extra !== undefined) return null;
  const sigBytes = base64UrlDecode(sig);
  if (!sigBytes || !(await hmacVerify(secret, `${purpose}.${body}`, sigBytes))) return null;
  const json = base64UrlDecode(body);
  if (!json) return null;
  try {
    return JSON.parse(new TextDecoder().decode(json)) as unknown;
  } catch {
    return null;
  }
}
