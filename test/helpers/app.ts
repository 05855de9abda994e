import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createApp } from "../../src/app";
import { BASE } from "./api";
import { withTestClientAddress } from "./client-address";

/**
 * Calls the app with a changed configuration (another ENVIRONMENT, a missing secret, …) or at another
 * origin than the local one: the same routes and bindings, a different `env` or request URL.
 */
export async function callWithEnv(
  overrides: Record<string, unknown>,
  path: string,
  init: RequestInit & { origin?: string } = {},
): Promise<{ status: number; body: any; headers: Headers; text: string }> {
  const { origin = BASE, ...requestInit } = init;
  const headers = withTestClientAddress(new Headers(requestInit.headers));
  const ctx = createExecutionContext();
  const res = await createApp().fetch(new Request(`${origin}${path}`, { redirect: "manual", ...requestInit, headers }), { ...env, ...overrides }, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, body, headers: res.headers, text };
}
