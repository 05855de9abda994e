import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createApp } from "../../src/app";
import { BASE, type CallOptions } from "./api";
import { withTestClientAddress } from "./client-address";

/**
 * Calls the app as a deployment with other vars would run it (same local D1, R2, DOs and queues;
 * `overrides` replace vars such as `ENVIRONMENT` or `NOTIFY_EMAIL_DAILY_LIMIT`), and parses JSON.
 */
export async function callConfigured<T = any>(
  overrides: Partial<Env>,
  path: string,
  options: CallOptions = {},
): Promise<{ status: number; body: T; text: string; headers: Headers }> {
  const headers = withTestClientAddress(new Headers(options.headers));
  if (options.key) headers.set("Authorization", `Bearer ${options.key}`);
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`${BASE}${path}`, { method: options.method ?? (body ? "POST" : "GET"), headers, body, redirect: "manual" }),
    { ...env, ...overrides },
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  const json = res.headers.get("Content-Type")?.includes("application/json") && text ? (JSON.parse(text) as T) : (undefined as T);
  return { status: res.status, body: json, text, headers: res.headers };
}
