import { verifyWebhook, WebhookVerificationError, type ReceivedWebhook } from "../src/index";

/**
 * The handler behind your `webhook_url` (any runtime with fetch's Request and Response: Workers,
 * Deno, Bun, Node 20+). Answer 2xx quickly: anything else is retried for about three days. A retry
 * carries the same `event.id`, so handle each id once.
 */
export async function handleWebhook(request: Request, secret: string, onEvent: (event: ReceivedWebhook) => Promise<void>): Promise<Response> {
  let event: ReceivedWebhook;
  try {
    event = verifyWebhook(secret, await request.text(), request.headers);
  } catch (err) {
    if (err instanceof WebhookVerificationError) return new Response("invalid signature", { status: 400 });
    throw err;
  }
  // Narrow on its type: event.type === "verification.completed" → event.data.object.verdict; the
  // console's test send is "webhook.test" (its data.object is {tenant_id, message}).
  await onEvent(event);
  return new Response(null, { status: 204 });
}
