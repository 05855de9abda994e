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
 * How much a byte stream is read at once. A network or R2 body otherwise arrives in pieces of a few
 * KB, and every piece costs a round of promises in each consumer: piping a 1.5 MB upload through a
 * tee into R2 and into the digest cost the API Worker's process 17 ms of CPU more than these
 * chunks do (bench/PERF-RESULTS.md, "The upload read in 64 KB chunks").
 */
export const READ_CHUNK_BYTES = 64 * 1024;

/**
 * Reads `stream` to its end, handing each chunk to `each` (awaited before the next is read). A byte
 * stream (every body the runtime makes: a request's, an R2 object's) is read in chunks of
 * `READ_CHUNK_BYTES` (the last shorter); a stream made in JavaScript is read as its chunks come. A
 * failure of the stream or of `each` cancels the stream and is thrown.
 */
export async function forEachChunk(stream: ReadableStream<Uint8Array>, each: (chunk: Uint8Array) => Promise<void> | void): Promise<void> {
  const byob = byobReader(stream);
  const reader = byob ?? stream.getReader();
  const next = byob
    ? async () => {
        const { value, done } = await byob.readAtLeast(READ_CHUNK_BYTES, new Uint8Array(READ_CHUNK_BYTES));
        return { value: value as Uint8Array | undefined, done };
      }
    : () => (reader as ReadableStreamDefaultReader<Uint8Array>).read();
  try {
    for (;;) {
      const { value, done } = await next();
      if (value && value.byteLength > 0) await each(value);
      if (done) return;
    }
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
}

function byobReader(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | null {
  try {
    return stream.getReader({ mode: "byob" });
  } catch {
    return null; // not a byte stream
  }
}

/**
 * SHA-256, size and first bytes of a stream, never buffered whole (`forEachChunk`). `forward`, when
 * given, is handed each chunk after it is hashed: the stream is read once for both.
 */
export async function digestStream(stream: ReadableStream<Uint8Array>, forward?: (chunk: Uint8Array) => Promise<void>): Promise<StreamDigest> {
  const digest = new crypto.DigestStream("SHA-256");
  digest.digest.catch(() => undefined); // rejects when the stream errors: that error is thrown below
  const hasher = digest.getWriter();
  const head = new Uint8Array(HEAD_BYTES);
  let size = 0;
  try {
    await forEachChunk(stream, async (chunk) => {
      if (size < HEAD_BYTES) head.set(chunk.subarray(0, HEAD_BYTES - size), size);
      size += chunk.byteLength;
      await hasher.write(chunk);
      if (forward) await forward(chunk);
    });
  } catch (error) {
    await hasher.abort(error).catch(() => undefined);
    throw error;
  }
  await hasher.close();
  return { size, sha256: toHex(await digest.digest), head: head.slice(0, Math.min(size, HEAD_BYTES)) };
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

/**
 * The payload of a token signToken made for `purpose`, or null. The signature must be in its one
 * canonical spelling: base64url's last character carries padding bits, and a token that verified in
 * four spellings could be told apart from itself wherever it is compared as text.
 */
export async function verifyToken(secret: string, purpose: string, token: string): Promise<unknown> {
  const [body, sig, extra] = token.split(".");
  if (!body || !sig || extra !== undefined) return null;
  const sigBytes = base64UrlDecode(sig);
  if (!sigBytes || base64UrlEncode(sigBytes) !== sig) return null;
  if (!(await hmacVerify(secret, `${purpose}.${body}`, sigBytes))) return null;
  const json = base64UrlDecode(body);
  if (!json) return null;
  try {
    return JSON.parse(new TextDecoder().decode(json)) as unknown;
  } catch {
    return null;
  }
}
