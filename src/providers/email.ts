import { settings } from "../env";
import { recordOnlyTransport, type Transport } from "./outbound";

/**
 * Email through an HTTP email API (Resend/Postmark-style JSON: `POST {from, to, subject, text}` with
 * a Bearer key). Configured by `EMAIL_API_URL`, `EMAIL_API_KEY` and `EMAIL_FROM`; in local
 * development, or without configuration, emails are only recorded in the outbox.
 */
export function httpEmailTransport(options: { url: string; apiKey: string; from: string; fetcher?: typeof fetch }): Transport {
  const doFetch = options.fetcher ?? fetch;
  return {
    name: "http-email",
    async send(message) {
      const res = await doFetch(options.url, {
        method: "POST",
        headers: { Authorization: `Bearer ${options.apiKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ from: options.from, to: message.recipient, subject: message.subject ?? "", text: message.body }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`email API answered ${res.status}`);
      await res.body?.cancel();
    },
  };
}

export function emailTransport(env: Env): Transport {
  if (settings(env).isLocal || !env.EMAIL_API_URL || !env.EMAIL_API_KEY || !env.EMAIL_FROM) return recordOnlyTransport;
  return httpEmailTransport({ url: env.EMAIL_API_URL, apiKey: env.EMAIL_API_KEY, from: env.EMAIL_FROM });
}
