import { inject } from "vitest";

/** The newest link in the dev outbox (GET /v1/dev/outbox) sent to `address`, read as a mail client would. */
export async function linkInOutbox(address: string, path: RegExp): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await fetch(`${inject("baseUrl")}/v1/dev/outbox`);
    const { items } = (await res.json()) as { items: Array<{ recipient: string; body: string }> };
    const link = items.filter((m) => m.recipient === address).map((m) => /https?:\/\/\S+/.exec(m.body)?.[0]).find((url) => url !== undefined && path.test(url));
    if (link) return link;
    if (Date.now() > deadline) throw new Error(`no email to ${address} in the outbox`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
