import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from "../src/index";

/**
 * The handler behind your `webhook_url` (any runtime with fetch's Request and Response: Workers,
 * Deno, Bun, Node 20+). Answer 2xx quickly: anything else is retried for about three days. A retry
 * carries the same `event.id`, so handle each id once.
 */
export async function handleWebhook(request: Request, secret: string, onEvent: (event: WebhookEvent) => Promise<void>): Promise<Response> {
  let event: WebhookEvent;
  try {
    event = verifyWebhook(secret, await request.text(), request.headers);
  } catch (err) {
    if (err instanceof WebhookVerificationError) return new Response("invalid signature", { status: 400 });
    throw err;
  }
  await onEvent(event); // e.g. event.type === "verification.completed" → event.data.object.verdict
  return new Response(null, { status: 204 });
}
