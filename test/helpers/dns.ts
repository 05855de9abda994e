import { env } from "cloudflare:workers";
import { callJson } from "./api";

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

/** Proves `domain` for the tenant of an admin's session, as its admin would (claim, publish the record, check). */
export async function proveDomain(adminCookie: string, domain = freshDomain()): Promise<string> {
  const claim = await callJson("/v1/tenant/domain/claim", { body: { domain }, headers: { Cookie: adminCookie } });
  if (claim.status !== 201) throw new Error(`claim failed: ${claim.status} ${JSON.stringify(claim.body)}`);
  await publishTxt(claim.body.claim.record.name, [claim.body.claim.record.value]);
  const checked = await callJson("/v1/tenant/domain/check", { method: "POST", headers: { Cookie: adminCookie } });
  if (checked.status !== 200) throw new Error(`check failed: ${checked.status} ${JSON.stringify(checked.body)}`);
  return domain;
}
