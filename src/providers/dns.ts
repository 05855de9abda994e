/**
 * DNS lookups over HTTPS: a hostname's addresses for the webhook SSRF guard, a name's TXT records for
 * a tenant proving a domain (domain/tenants/domains.ts). Workers have no `dns` module, so production
 * asks a DNS-over-HTTPS resolver (the JSON API that Cloudflare's and Google's resolvers speak);
 * `DNS_RESOLVER_URL` points it elsewhere (tests use a loopback fake).
 */
export interface HostResolver {
  /** A and AAAA addresses (CNAMEs followed by the resolver); empty when the name does not exist. Throws when the resolver fails. */
  resolve(hostname: string): Promise<string[]>;
}

export interface TxtResolver {
  /** The TXT records of a name, each as one string; empty when the name or its TXT records do not exist. Throws when the resolver fails. */
  txt(name: string): Promise<string[]>;
}

export const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";
const TIMEOUT_MS = 3_000;
const RECORD_A = 1;
const RECORD_AAAA = 28;
const RECORD_TXT = 16;
const NXDOMAIN = 3;

interface DohAnswer {
  Status?: number;
  Answer?: Array<{ type?: number; data?: string }>;
}

type RecordType = "A" | "AAAA" | "TXT";
const TYPE_CODE: Record<RecordType, number> = { A: RECORD_A, AAAA: RECORD_AAAA, TXT: RECORD_TXT };

/** The `data` of each answer of `type`; empty for NXDOMAIN; throws for any other failure (fail closed). */
function dohQuery(options: { url: string; fetcher?: typeof fetch }) {
  const doFetch = options.fetcher ?? fetch;
  return async (name: string, type: RecordType): Promise<string[]> => {
    const url = new URL(options.url);
    url.searchParams.set("name", name);
    url.searchParams.set("type", type);
    const res = await doFetch(url, { headers: { Accept: "application/dns-json" }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`DNS resolver answered ${res.status}`);
    }
    const body = (await res.json()) as DohAnswer;
    if (body.Status === NXDOMAIN) return [];
    if (body.Status !== 0) throw new Error(`DNS resolver status ${String(body.Status)}`);
    return (body.Answer ?? []).filter((a) => a.type === TYPE_CODE[type] && typeof a.data === "string").map((a) => a.data as string);
  };
}

export function dohResolver(options: { url: string; fetcher?: typeof fetch }): HostResolver & TxtResolver {
  const query = dohQuery(options);
  return {
    async resolve(hostname) {
      const [v4, v6] = await Promise.all([query(hostname, "A"), query(hostname, "AAAA")]);
      return [...v4, ...v6];
    },
    async txt(name) {
      return (await query(name, "TXT")).map(txtValue);
    },
  };
}

/**
 * One TXT record's text. Resolvers write its character-strings quoted (`"part one" "part two"`,
 * with `\"` and `\\` escapes; Cloudflare's) or bare (Google's): the strings of a record are one
 * value, concatenated (RFC 7208 §3.3 reads long values so).
 */
export function txtValue(data: string): string {
  const trimmed = data.trim();
  if (!trimmed.startsWith('"')) return trimmed;
  let out = "";
  for (const [, part] of trimmed.matchAll(/"((?:[^"\\]|\\.)*)"/g)) out += (part ?? "").replace(/\\(.)/g, "$1");
  return out;
}

export function hostResolver(env: Env): HostResolver & TxtResolver {
  return dohResolver({ url: env.DNS_RESOLVER_URL || DEFAULT_DOH_URL });
}
