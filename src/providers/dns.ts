/**
 * Resolves a hostname to its addresses, for the webhook SSRF guard. Workers have no `dns` module, so
 * production asks a DNS-over-HTTPS resolver (the JSON API that Cloudflare's and Google's resolvers
 * speak); `DNS_RESOLVER_URL` points it elsewhere (tests use a loopback fake).
 */
export interface HostResolver {
  /** A and AAAA addresses (CNAMEs followed by the resolver); empty when the name does not exist. Throws when the resolver fails. */
  resolve(hostname: string): Promise<string[]>;
}

export const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";
const TIMEOUT_MS = 3_000;
const RECORD_A = 1;
const RECORD_AAAA = 28;
const NXDOMAIN = 3;

interface DohAnswer {
  Status?: number;
  Answer?: Array<{ type?: number; data?: string }>;
}

export function dohResolver(options: { url: string; fetcher?: typeof fetch }): HostResolver {
  const doFetch = options.fetcher ?? fetch;
  const query = async (hostname: string, type: "A" | "AAAA"): Promise<string[]> => {
    const url = new URL(options.url);
    url.searchParams.set("name", hostname);
    url.searchParams.set("type", type);
    const res = await doFetch(url, { headers: { Accept: "application/dns-json" }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`DNS resolver answered ${res.status}`);
    }
    const body = (await res.json()) as DohAnswer;
    if (body.Status === NXDOMAIN) return [];
    if (body.Status !== 0) throw new Error(`DNS resolver status ${String(body.Status)}`);
    return (body.Answer ?? [])
      .filter((a) => (a.type === RECORD_A || a.type === RECORD_AAAA) && typeof a.data === "string")
      .map((a) => a.data as string);
  };
  return {
    async resolve(hostname) {
      const [v4, v6] = await Promise.all([query(hostname, "A"), query(hostname, "AAAA")]);
      return [...v4, ...v6];
    },
  };
}

export function hostResolver(env: Env): HostResolver {
  return dohResolver({ url: env.DNS_RESOLVER_URL || DEFAULT_DOH_URL });
}
