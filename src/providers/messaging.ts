import { settings } from "../env";
import { recordOnlyTransport, type Transport } from "./outbound";

/**
 * Chat messages through the WhatsApp Cloud API (`POST {api}/{phone_number_id}/messages`, Bearer
 * token, a `text` message). Configured by `WHATSAPP_PHONE_NUMBER_ID` and `WHATSAPP_ACCESS_TOKEN`
 * (`WHATSAPP_API_URL` defaults to the Graph API); in local development, or without configuration,
 * messages are only recorded in the outbox. Free-form text reaches a number only inside WhatsApp's
 * 24-hour customer-service window, which a trial started from a chat is in.
 */
export const DEFAULT_WHATSAPP_API_URL = "https://graph.facebook.com/v21.0";

export function whatsappCloudTransport(options: { apiUrl: string; phoneNumberId: string; accessToken: string; fetcher?: typeof fetch }): Transport {
  const doFetch = options.fetcher ?? fetch;
  return {
    name: "whatsapp-cloud",
    async send(message) {
      const res = await doFetch(`${options.apiUrl.replace(/\/+$/, "")}/${encodeURIComponent(options.phoneNumberId)}/messages`, {
        method: "POST",
        headers: { Authorization: `Bearer ${options.accessToken}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          messaging_product: "whatsapp",
          recipient_type: "individual",
          to: message.recipient.replace(/\D/g, ""),
          type: "text",
          text: { preview_url: false, body: message.body },
        }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`WhatsApp Cloud API answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      await res.body?.cancel();
    },
  };
}

export function messagingTransport(env: Env): Transport {
  if (settings(env).isLocal || !env.WHATSAPP_PHONE_NUMBER_ID || !env.WHATSAPP_ACCESS_TOKEN) return recordOnlyTransport;
  return whatsappCloudTransport({
    apiUrl: env.WHATSAPP_API_URL || DEFAULT_WHATSAPP_API_URL,
    phoneNumberId: env.WHATSAPP_PHONE_NUMBER_ID,
    accessToken: env.WHATSAPP_ACCESS_TOKEN,
  });
}
