import { inject } from "vitest";

/** The tenant API of the Worker under test (started by the browser suite's globalSetup). */
export async function api<T = any>(pathname: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`${inject("baseUrl")}${pathname}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { Authorization: `Bearer ${inject("apiKey")}`, "Content-Type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

export async function createVerification(body: unknown): Promise<{ id: string; capture_url: string }> {
  const res = await api("/v1/verifications", { body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The capture page of a verification, on the Worker under test. */
export function pageUrl(id: string): string {
  return `${inject("baseUrl")}/c/${id}`;
}

/** Polls until `check` returns a value (or fails with the last one seen). */
export async function eventually<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!check(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 500));
    last = await read();
  }
  return last;
}
