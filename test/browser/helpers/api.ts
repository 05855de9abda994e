import { readFileSync } from "node:fs";
import { inject } from "vitest";
import { createClient, type VerificationClient } from "../../../clients/typescript/src/index";
import { createContract, type Contract } from "../../helpers/openapi-contract";

let contract: Promise<Contract> | undefined;

/** The contract of the document the Worker under test serves (fetched once per file). */
export function servedContract(): Promise<Contract> {
  contract ??= (async () => {
    const res = await fetch(`${inject("baseUrl")}/v1/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
    return createContract(await res.json());
  })();
  return contract;
}

/** fetch whose every answer is checked against the served document (as in the workerd suite). */
export async function checkedFetch(request: Request): Promise<Response> {
  const res = await fetch(request, { redirect: "manual" });
  // The bytes as they came (a PDF is not text); the check reads them as text.
  const bytes = new Uint8Array(await res.arrayBuffer());
  (await servedContract()).check({ method: request.method, url: request.url, status: res.status, headers: res.headers, body: new TextDecoder().decode(bytes) });
  return new Response(res.status === 204 ? null : bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** A call with the dev tenant's API key (JSON body when given), checked against the document; the body parsed. */
export async function keyedApi(pathname: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${inject("apiKey")}`);
  if (init.body) headers.set("Content-Type", "application/json");
  const res = await checkedFetch(new Request(`${inject("baseUrl")}${pathname}`, { ...init, headers }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The tenant API of the Worker under test through the generated client (dev tenant's key). */
export function tenantClient(): VerificationClient {
  return createClient({ baseUrl: inject("baseUrl"), apiKey: inject("apiKey"), fetch: checkedFetch });
}

/** The capture page of a verification, on the Worker under test. */
/** The last lines the Workers printed, for a failing test's message. */
export function workerLogTail(lines = 60): string {
  try {
    const log = readFileSync(inject("workerLog"), "utf8");
    return ["--- worker log (tail) ---", ...log.split("\n").slice(-lines)].join("\n");
  } catch (err) {
    return `(worker log unavailable: ${String(err)})`;
  }
}

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
