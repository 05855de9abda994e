import { describe, expect, it } from "vitest";
import { configProblems } from "../../src/config-check";
import wranglerToml from "../../wrangler.toml?raw";
import { seedTenant } from "../helpers/api";
import { callWithEnv } from "../helpers/app";
import { receiver } from "../helpers/webhooks";

/*
 * Local-development behaviour (the any-email dev sign-in, the outbox, webhook URLs without the SSRF
 * guard) needs ENVIRONMENT=development, a loopback PUBLIC_BASE_URL *and* a loopback request host.
 */
const publicBase = { PUBLIC_BASE_URL: "https://verify.example.com" };
const publicOrigin = { origin: "https://verify.example.com" };

async function devBehaviour(overrides: Record<string, unknown>, origin?: string) {
  const at = origin ? { origin } : {};
  const t = await seedTenant();
  const outbox = await callWithEnv(overrides, "/v1/dev/outbox", at);
  const devLogin = await callWithEnv(overrides, "/v1/auth/dev/login", at);
  const { url } = receiver();
  const loopbackHook = await callWithEnv(overrides, "/v1/verifications", {
    ...at,
    method: "POST",
    headers: { Authorization: `Bearer ${t.key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ max_captures: 1, webhook_url: url }),
  });
  return { outbox: outbox.status, devLogin: devLogin.status, loopbackHook: loopbackHook.status };
}

describe("development mode needs more than ENVIRONMENT=development", () => {
  it("is on for the local config reached over loopback (localhost, 127.0.0.1, [::1])", async () => {
    expect(await devBehaviour({})).toEqual({ outbox: 200, devLogin: 302, loopbackHook: 201 });
    expect(await devBehaviour({ PUBLIC_BASE_URL: "http://127.0.0.1:8787" }, "http://127.0.0.1:8787")).toEqual({ outbox: 200, devLogin: 302, loopbackHook: 201 });
    expect((await callWithEnv({}, "/v1/dev/outbox", { origin: "http://[::1]:8787" })).status).toBe(200);
  });

  it("is off when PUBLIC_BASE_URL is not a loopback URL, even over loopback", async () => {
    expect(await devBehaviour(publicBase)).toEqual({ outbox: 404, devLogin: 404, loopbackHook: 400 });
  });

  it("is off when the request did not come to a loopback host", async () => {
    expect(await devBehaviour({}, publicOrigin.origin)).toEqual({ outbox: 404, devLogin: 404, loopbackHook: 400 });
    expect(await devBehaviour({}, "http://192.168.1.20:8787")).toEqual({ outbox: 404, devLogin: 404, loopbackHook: 400 });
    expect(await devBehaviour({}, "http://localhost.evil.example")).toEqual({ outbox: 404, devLogin: 404, loopbackHook: 400 });
  });

  it("is off in staging and production whatever the URLs", async () => {
    expect(await devBehaviour({ ENVIRONMENT: "staging" })).toEqual({ outbox: 404, devLogin: 404, loopbackHook: 400 });
  });
});

describe("worker names", () => {
  it("every wrangler environment deploys under its own name", () => {
    // Worker names, not the upper-case binding names of `[[ratelimits]]` entries.
    const names = [...wranglerToml.matchAll(/^name = "([^"]+)"/gm)].map((m) => m[1]).filter((name) => !/^[A-Z0-9_]+$/.test(name!));
    expect(names).toHaveLength(3);
    expect(new Set(names).size).toBe(3);
    const [local, staging, production] = names as [string, string, string];
    const secrets = ["SIGNING_SECRET", "SESSION_SECRET"];
    expect(configProblems({ local: { name: local, secrets: [] }, staging: { name: staging, secrets }, production: { name: production, secrets } }, ["staging", "production"])).toEqual([]);
    expect(configProblems({ local: { name: production, secrets: [] }, production: { name: production, secrets } }, ["production"])).toEqual([
      `environments local, production share the worker name "${production}"`,
    ]);
  });
});
