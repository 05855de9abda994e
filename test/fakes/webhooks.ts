import type { FakeHandler } from "./server";

/**
 * Webhook receivers, one per `<receiver-id>` in `/webhooks/<receiver-id>`; the URL's query picks
 * the behaviour of POSTs:
 *   `?fail=N`      answer `status` (default 500) to the first N requests, then 204;
 *   `?fail=always` fail until `POST /webhooks/<id>/recover` is called;
 *   `?redirect=1`  answer 302 to another receiver (must not be followed);
 *   `?delay=MS`    answer 204 after MS milliseconds.
 * `GET /webhooks/<id>` returns what it received: `[{headers, body, answered, at}]` in arrival order.
 */
interface Received {
  headers: Record<string, string>;
  body: string;
  answered: number;
  /** When the request arrived (ms since the epoch). */
  at: number;
}

const receivers = new Map<string, { received: Received[]; recovered: boolean }>();

function receiver(id: string) {
  let r = receivers.get(id);
  if (!r) {
    r = { received: [], recovered: false };
    receivers.set(id, r);
  }
  return r;
}

export const webhookReceivers: FakeHandler = (req) => {
  const [, id, action] = req.path.split("/");
  if (!id) return { status: 404, body: "receiver id missing" };
  const r = receiver(id);
  if (req.method === "GET") return { status: 200, body: JSON.stringify(r.received) };
  if (action === "recover") {
    r.recovered = true;
    return { status: 204 };
  }
  const fail = req.query.get("fail");
  const failing = fail === "always" ? !r.recovered : r.received.length < Number(fail ?? 0);
  let answered = 204;
  const extra: { headers?: Record<string, string>; delayMs?: number } = {};
  if (failing) answered = Number(req.query.get("status") ?? 500);
  else if (req.query.get("redirect")) {
    answered = 302;
    extra.headers = { location: `/webhooks/${id}-redirected` };
  } else if (req.query.get("delay")) extra.delayMs = Number(req.query.get("delay"));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
  r.received.push({ headers, body: req.body.toString("utf8"), answered, at: Date.now() });
  return { status: answered, body: "", ...extra };
};
