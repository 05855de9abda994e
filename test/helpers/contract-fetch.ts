import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { withTestClientAddress } from "./client-address";
import { createContract, type Contract } from "./openapi-contract";

/*
 * The one way the workerd suite talks to the Worker over HTTP (lint forbids the others in test
 * files): every response is checked against the OpenAPI document the Worker serves.
 */

export const BASE = "http://localhost:8787";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);

let served: Promise<Contract> | undefined;

/** The contract of `GET /v1/openapi.json`, fetched once per test file. */
export function servedContract(): Promise<Contract> {
  served ??= (async () => {
    const res = await exports.default.fetch(new Request(`${BASE}/v1/openapi.json`));
    if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}: ${await res.text()}`);
    return createContract(await res.json());
  })();
  return served;
}

/**
 * `fetch` into the Worker (or, with `env`, into a fresh app bound to that environment). Redirects
 * are followed hop by hop like fetch does, so each hop is checked; a hop leaving the Worker's
 * origin is handed to the network as it is.
 */
export async function contractFetch(input: Request, env?: Env): Promise<Response> {
  const contract = await servedContract();
  const follow = input.redirect !== "manual";
  let method = input.method;
  let headers = withTestClientAddress(new Headers(input.headers));
  let body: ArrayBuffer | null = input.body ? await input.arrayBuffer() : null;
  let url = input.url;
  for (let hop = 0; ; hop += 1) {
    const { res, bytes } = await dispatch(new Request(url, { method, headers, body, redirect: "manual" }), env);
    contract.check({ method, url, status: res.status, headers: res.headers, body: new TextDecoder().decode(bytes) });
    const location = res.headers.get("Location");
    if (!follow || !REDIRECTS.has(res.status) || location === null) {
      return new Response(NULL_BODY.has(res.status) ? null : bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    if (hop === 20) throw new Error(`more than 20 redirects from ${input.url}`);
    // As fetch does: 303 (and 301/302 after POST) continue as a GET without the body.
    if ((res.status === 303 && method !== "HEAD") || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = "GET";
      body = null;
      headers = new Headers(headers);
      for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) headers.delete(name);
    }
    const next = new URL(location, url);
    if (next.origin !== new URL(BASE).origin) return fetch(next, { method, headers, body, redirect: "follow" });
    url = next.href;
  }
}

async function dispatch(request: Request, env: Env | undefined): Promise<{ res: Response; bytes: ArrayBuffer }> {
  if (!env) {
    const res = await exports.default.fetch(request);
    return { res, bytes: await res.arrayBuffer() };
  }
  const { createApp } = await import("../../src/app");
  const ctx = createExecutionContext();
  const res = await createApp().fetch(request, env, ctx);
  const bytes = await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return { res, bytes };
}
