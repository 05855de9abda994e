import { env } from "cloudflare:workers";

/** Publishes TXT records at `name` in the loopback DNS-over-HTTPS resolver (test/fakes/doh.ts). */
export async function publishTxt(name: string, values: string[]): Promise<void> {
  await dohRecords(name, "PUT", { txt: values });
}

/** Makes the resolver fail (HTTP 500) for `name`: the DNS provider is down for it. */
export async function breakResolver(name: string): Promise<void> {
  await dohRecords(name, "PUT", { fail: true });
}

/** Removes what `name` had: it then has no TXT record. */
export async function unpublish(name: string): Promise<void> {
  await dohRecords(name, "DELETE");
}

async function dohRecords(name: string, method: "PUT" | "DELETE", body?: unknown): Promise<void> {
  const res = await fetch(`${env.FAKES_URL}/doh/records/${encodeURIComponent(name)}`, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
  await res.body?.cancel();
  if (res.status !== 204) throw new Error(`the DoH fake answered ${res.status}`);
}

let counter = 0;

/** A domain name no other test uses. */
export function freshDomain(label = "acme"): string {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}.example`;
}
