import type { FakeHandler } from "./server";

/**
 * An HTTP messaging/email API that accepts everything and remembers it: `POST /inbox/<path>`
 * records `{path, headers, body}` and answers 200 like the WhatsApp Cloud API; `GET /inbox/<path>`
 * lists what was posted to that path. `?fail=1` on the POST path answers 503 instead.
 */
const posted = new Map<string, Array<{ headers: Record<string, string>; body: string }>>();

export const inbox: FakeHandler = (req) => {
  const list = posted.get(req.path) ?? [];
  posted.set(req.path, list);
  if (req.method === "GET") return { status: 200, body: JSON.stringify(list) };
  if (req.query.get("fail")) return { status: 503, body: JSON.stringify({ error: "unavailable" }) };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
  list.push({ headers, body: req.body.toString("utf8") });
  return { status: 200, body: JSON.stringify({ messaging_product: "whatsapp", messages: [{ id: `wamid.${list.length}` }] }) };
};
