import { expect } from "vitest";
import { clientKey } from "../../src/domain/public-limits";

/**
 * The client address a test file's requests come from when the test names none: a unique-local
 * IPv6 address whose first 48 bits (the widest prefix any rate limit counts, `clientKey`) are a hash
 * of the file's path. On Cloudflare every request carries `CF-Connecting-IP`; giving each file an
 * address of its own keeps the per-network limits a file meets the same whether the files run in a
 * workerd each or share one (`npm run test:workers` shares it: docs/development.md).
 */
export function testClientAddress(): string | undefined {
  const path = expect.getState().testPath;
  if (!path) return undefined;
  const hash = fnv1a64(path.replace(/^.*?\/test\//, "test/"));
  const group = (shift: bigint) => ((hash >> shift) & 0xffffn).toString(16);
  // fdXX:XXXX:XXXX::/48 (RFC 4193): 40 bits of the hash in the /48, 16 more in the /64.
  return `fd${((hash >> 56n) & 0xffn).toString(16).padStart(2, "0")}:${group(40n)}:${group(24n)}:${group(8n)}::1`;
}

/** The rate-limit subject the service makes of this file's address (`clientKey`; "unknown" outside a test). */
export function testClientKey(ipv6Prefix: 48 | 64 = 64): string {
  return clientKey(testClientAddress(), ipv6Prefix);
}

/** Adds the file's client address to request headers that name none. */
export function withTestClientAddress(headers: Headers): Headers {
  if (headers.has("CF-Connecting-IP")) return headers;
  const address = testClientAddress();
  if (address) headers.set("CF-Connecting-IP", address);
  return headers;
}

function fnv1a64(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}
