import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { createDb } from "../../src/db/client";
import { tenants } from "../../src/db/schema";
import { mintApiKey } from "../../src/domain/tenants/api-keys";
import { createTenant } from "../../src/domain/tenants/tenants";
import { BASE, contractFetch } from "./contract-fetch";

export { BASE };

export function db() {
  return createDb(env.DB);
}

export interface TestTenant {
  id: string;
  slug: string;
  key: string;
  publishableKey: string;
}

let counter = 0;

/**
 * The deployment's trial tenant (`TRIAL_TENANT_ID`): one per runtime, so a file finds it made when
 * an earlier file sharing the runtime made it.
 */
export async function ensureTrialTenant(): Promise<string> {
  const id = env.TRIAL_TENANT_ID!;
  if (!(await db().select({ id: tenants.id }).from(tenants).where(eq(tenants.id, id)).get())) await createTenant(db(), { id, displayName: "Trial" });
  return id;
}

/** A fresh tenant with a full-scope and a publishable `pk_test_` key (storage is shared within a file). */
export async function seedTenant(name = "Acme Insurance"): Promise<TestTenant> {
  counter += 1;
  const tenant = await createTenant(db(), { displayName: `${name} ${counter}` });
  const full = await mintApiKey(db(), { tenantId: tenant.id, environment: "test", scope: "full" });
  const publishable = await mintApiKey(db(), { tenantId: tenant.id, environment: "test", scope: "publishable" });
  return { id: tenant.id, slug: tenant.slug, key: full.plaintext, publishableKey: publishable.plaintext };
}

export interface CallOptions {
  method?: string;
  key?: string;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** `manual` to see a redirect itself instead of following it (like fetch, the default follows). */
  redirect?: "follow" | "manual";
  /** Runs a fresh app against this environment instead of the Worker's (e.g. `ENVIRONMENT: "production"`). */
  env?: Env;
}

/**
 * Calls the Worker's real fetch handler (routing, middleware, D1, DOs, R2, queues all live). Every
 * response, each redirect hop included, is checked against the served OpenAPI document.
 */
export async function call(path: string, options: CallOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.key) headers.set("Authorization", `Bearer ${options.key}`);
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  const request = new Request(`${BASE}${path}`, { method: options.method ?? (body ? "POST" : "GET"), headers, body, redirect: options.redirect ?? "follow" });
  return contractFetch(request, options.env);
}

/** Calls and parses JSON (consuming the body, which the isolated-storage runner requires). */
export async function callJson<T = any>(path: string, options: CallOptions = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await call(path, options);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
}

/**
 * This deployment with a vision provider configured (the loopback fake, test/fakes/vision.ts), so a
 * creation may require context, object match and condition (analysis/capabilities.ts). Only the
 * request made with it sees the provider: the analysis Worker runs without one, as after a provider
 * was removed (the marker of providers/vision/test-markers.ts still drives marked images).
 */
export function withVision(model = "good"): Env {
  return { ...env, VISION_API_URL: `${env.FAKES_URL}/vision/v1`, VISION_MODEL: model };
}

export async function createVerification(key: string, body: unknown = { max_captures: 2 }, headers?: Record<string, string>, options: { env?: Env } = {}) {
  const res = await callJson("/v1/verifications", { key, body, ...(headers ? { headers } : {}), ...(options.env ? { env: options.env } : {}) });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls `probe` until it returns a truthy value (queue consumers and alarms run asynchronously). */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
