import { env } from "cloudflare:workers";
import { servedContract } from "./contract-fetch";
import { signIn } from "./session";

export interface Received {
  headers: Record<string, string>;
  body: string;
  answered: number;
  /** When the receiver got it (ms since the epoch, the fake's clock). */
  at: number;
}

/** A fresh receiver of the loopback fake (test/fakes/webhooks.ts) and its URL. */
export function receiver(query = ""): { id: string; url: string } {
  const id = crypto.randomUUID();
  return { id, url: `${env.FAKES_URL}/webhooks/${id}${query ? `?${query}` : ""}` };
}

/** What a receiver got; every body is checked against the document's `webhooks` section. */
export async function received(receiverId: string): Promise<Received[]> {
  const res = await fetch(`${env.FAKES_URL}/webhooks/${receiverId}`);
  const hits = (await res.json()) as Received[];
  const contract = await servedContract();
  for (const hit of hits) contract.checkWebhook(hit.body, documentedWebhookOf(hit.body));
  return hits;
}

export async function recover(receiverId: string): Promise<void> {
  const res = await fetch(`${env.FAKES_URL}/webhooks/${receiverId}/recover`, { method: "POST" });
  await res.text();
}

/** Headers of a dashboard request (a non-browser client): the session cookie of a new user of the tenant. */
export async function sessionHeaders(tenantId: string): Promise<Record<string, string>> {
  const { cookie } = await signIn(tenantId);
  return { Cookie: cookie };
}

/** Which entry of the document's `webhooks` section describes a body: the test event has its own. */
export function documentedWebhookOf(body: string): string {
  return (JSON.parse(body) as { type?: string }).type === "webhook.test" ? "/webhook-test" : "/verification-event";
}
