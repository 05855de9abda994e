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

/** The emails to `address` in the dev outbox, newest last, once at least one is there; read over HTTP like any client. */
export async function emailsTo(address: string): Promise<Array<{ subject?: string; body: string }>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await fetch(`${inject("baseUrl")}/v1/dev/outbox`);
    const { items } = (await res.json()) as { items: Array<{ recipient: string; subject?: string; body: string; created_at?: string }> };
    const mine = items.filter((m) => m.recipient === address);
    if (mine.length > 0) return mine;
    if (Date.now() > deadline) throw new Error(`no email to ${address} in the outbox`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
