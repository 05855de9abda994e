import ipaddr from "ipaddr.js";
import { ApiError } from "../../lib/errors";
import { hostResolver, type HostResolver } from "../../providers/dns";
import { log } from "../../lib/log";

/*
 * SSRF guard for tenant-supplied webhook URLs, applied outside local development at creation and
 * again before every delivery attempt (redirects are never followed, so the checked URL is the one
 * fetched). Refused: anything but https, credentials in the URL, IP literals (Workers cannot fetch
 * them anyway; a special-purpose one is named by its class), local-only names, and names whose DNS
 * answers include a loopback, private, link-local, metadata or otherwise reserved address. When the
 * resolver fails the answer is `unresolved`: not allowed now, worth asking again later.
 */

export type RefusedClass = "loopback" | "private" | "link_local" | "metadata" | "reserved";
export type Refusal = "scheme" | "credentials" | "ip_literal" | "local_name" | "unresolved" | RefusedClass;
export type GuardResult = { ok: true } | { ok: false; reason: Refusal; message: string };

/** Cloud instance-metadata endpoints (AWS/GCP/Azure/OpenStack, AWS ECS, AWS IPv6, Alibaba, Oracle). */
const METADATA_ADDRESSES = new Set(["169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200", "192.0.0.192"]);
const METADATA_HOSTS = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]);
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet", ".corp"];

const CLASS_OF_RANGE: Record<string, RefusedClass> = {
  loopback: "loopback",
  private: "private",
  uniqueLocal: "private",
  carrierGradeNat: "private",
  linkLocal: "link_local",
  deprecatedSiteLocal: "link_local",
};

const DESCRIBE: Record<RefusedClass, string> = {
  loopback: "a loopback address",
  private: "a private network address",
  link_local: "a link-local address",
  metadata: "a cloud metadata address",
  reserved: "a reserved or non-unicast address",
};

/** The refused class of an IP address, or null when it is public unicast. */
export function classifyAddress(address: string): RefusedClass | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return "reserved";
  }
  if (ip.kind() === "ipv6") {
    const embedded = embeddedIPv4(ip as ipaddr.IPv6);
    // An IPv6 form that carries an IPv4 address reaches that address through a translator or tunnel:
    // the address inside decides, and a public one is still no destination for a webhook.
    if (embedded) return classifyIPv4(embedded) ?? "reserved";
    if ((ip as ipaddr.IPv6).parts[0] === 0x64 && (ip as ipaddr.IPv6).parts[1] === 0xff9b) return "reserved"; // NAT64 local-use (64:ff9b:1::/48)
  }
  return classifyIPv4(ip);
}

function classifyIPv4(ip: ipaddr.IPv4 | ipaddr.IPv6): RefusedClass | null {
  if (METADATA_ADDRESSES.has(ip.toNormalizedString()) || METADATA_ADDRESSES.has(ip.toString())) return "metadata";
  const range = ip.range();
  if (range === "unicast") return null;
  return CLASS_OF_RANGE[range] ?? "reserved";
}

/**
 * The IPv4 address inside an IPv6 one, for every form that embeds one: IPv4-compatible `::a.b.c.d`
 * (e.g. `::7f00:1`), IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d` (RFC 6145),
 * NAT64 `64:ff9b::a.b.c.d` (RFC 6052), 6to4 `2002:aabb:ccdd::/48` and Teredo's server address.
 * `::` and `::1` are themselves (unspecified, loopback).
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return v4(p[6]!, p[7]!); // mapped
  if (zeros(0, 6) && (p[6] !== 0 || p[7]! > 1)) return v4(p[6]!, p[7]!); // compatible
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return v4(p[6]!, p[7]!); // translated
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return v4(p[6]!, p[7]!); // NAT64 well-known prefix
  if (p[0] === 0x2002) return v4(p[1]!, p[2]!); // 6to4
  if (p[0] === 0x2001 && p[1] === 0) return v4(p[2]!, p[3]!); // Teredo server
  return null;
}

const refuse = (reason: Refusal, message: string): GuardResult => ({ ok: false, reason, message });

/** Checks what the URL alone shows (no DNS): scheme, credentials, IP literals, local names. */
export function checkWebhookUrlSyntax(raw: string): GuardResult {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("scheme", "Must be an absolute https URL.");
  }
  if (url.protocol !== "https:") return refuse("scheme", "Must use https.");
  if (url.username !== "" || url.password !== "") return refuse("credentials", "Must not contain credentials (user:password@).");
  // WHATWG URL parsing already turned decimal, octal and hex IPv4 forms into dotted quads.
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  const literal = host.startsWith("[") ? host.slice(1, -1) : host;
  if (ipaddr.isValid(literal)) {
    const refused = classifyAddress(literal);
    if (refused) return refuse(refused, `Must not point at ${DESCRIBE[refused]}.`);
    return refuse("ip_literal", "Must use a hostname, not an IP address.");
  }
  if (METADATA_HOSTS.has(host)) return refuse("metadata", `Must not point at ${DESCRIBE.metadata}.`);
  if (host === "localhost" || LOCAL_SUFFIXES.some((s) => host.endsWith(s))) {
    return refuse(host === "localhost" || host.endsWith(".localhost") ? "loopback" : "local_name", "Must use a public hostname.");
  }
  if (!host.includes(".")) return refuse("local_name", "Must use a fully qualified public hostname.");
  return { ok: true };
}

/**
 * The whole check: the URL, then every address its hostname resolves to. A resolver failure fails
 * closed (`unresolved`: the caller retries later); a name that does not exist passes and simply
 * fails to deliver.
 */
export async function guardWebhookUrl(raw: string, resolver: HostResolver): Promise<GuardResult> {
  const syntax = checkWebhookUrlSyntax(raw);
  if (!syntax.ok) return syntax;
  const host = new URL(raw).hostname.replace(/\.$/, "");
  let addresses: string[];
  try {
    addresses = await resolver.resolve(host);
  } catch (err) {
    log.warn({ msg: "webhook host resolution failed; refusing for now", host, error: String(err) });
    return refuse("unresolved", `Could not resolve ${host} to check it (DNS resolver error); try again later.`);
  }
  for (const address of addresses) {
    const refused = classifyAddress(address);
    if (refused) return refuse(refused, `Must not resolve to ${DESCRIBE[refused]} (${host} → ${address}).`);
  }
  return { ok: true };
}

/**
 * The deployment's policy: local development (http, loopback) allows anything; elsewhere the full
 * guard. `local` is `isLocalRequest` for a request; a delivery (no request) carries the creation's
 * answer (`webhook_deliveries.unguarded`).
 */
export async function webhookUrlAllowed(raw: string, options: { local: boolean; resolver: HostResolver }): Promise<GuardResult> {
  if (options.local) return { ok: true };
  return guardWebhookUrl(raw, options.resolver);
}

/**
 * At creation: a refused `webhook_url` is a 400 `invalid_request` on that field; one that could not
 * be checked (resolver failure) is a 503 `storage_unavailable` to retry, and nothing is created.
 */
export async function assertWebhookUrlAllowed(env: Env, raw: string, options: { local: boolean }): Promise<void> {
  const result = await webhookUrlAllowed(raw, { local: options.local, resolver: hostResolver(env) });
  if (!result.ok && result.reason === "unresolved") {
    throw new ApiError("storage_unavailable", `webhook_url could not be checked right now: ${result.message}`, { headers: { "Retry-After": "30" } });
  }
  if (!result.ok) throw ApiError.invalid({ webhook_url: result.message }, "webhook_url is not an allowed webhook destination.");
}
