import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookDeliveries } from "../../src/db/schema";
import { mintApiKey } from "../../src/domain/tenants/api-keys";
import { callJson, createVerification, db, eventually, seedTenant } from "../helpers/api";
import { callWithEnv } from "../helpers/app";
import { received, receiver } from "../helpers/webhooks";

/** The creation route as a production deployment runs it (live keys, the SSRF guard on). */
async function createInProduction(body: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const t = await seedTenant();
  const live = await mintApiKey(db(), { tenantId: t.id, environment: "live", scope: "full" });
  return callJson("/v1/verifications", { key: live.plaintext, body, env: { ...env, ENVIRONMENT: "production" } });
}

async function refusedAt(url: string): Promise<string> {
  const res = await createInProduction({ max_captures: 1, webhook_url: url });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe("invalid_request");
  return res.body.error.fields.webhook_url;
}

describe("webhook_url SSRF guard at creation (production)", () => {
  it.each([
    ["plain http", "http://hooks.example.com/in", /https/],
    ["credentials", "https://user:secret@hooks.example.com/in", /credentials/],
    ["loopback literal", "https://127.0.0.1/in", /loopback/],
    ["loopback IPv6", "https://[::1]/in", /loopback/],
    ["localhost", "https://localhost/in", /public hostname/],
    ["loopback via DNS", "https://app.loopback.test/in", /resolve to a loopback/],
    ["private literal", "https://10.0.0.8/in", /private network/],
    ["private 192.168", "https://192.168.0.1/in", /private network/],
    ["private via DNS", "https://db.private.test/in", /resolve to a private network/],
    ["link-local literal", "https://169.254.3.4/in", /link-local/],
    ["link-local via DNS (AAAA)", "https://router.linklocal.test/in", /resolve to a link-local/],
    ["metadata literal", "https://169.254.169.254/latest/meta-data/", /metadata/],
    ["metadata hostname", "https://metadata.google.internal/computeMetadata/v1/", /metadata/],
    ["metadata via DNS (CNAME)", "https://x.metadata.test/in", /resolve to a cloud metadata/],
    ["public IP literal", "https://93.184.215.14/in", /hostname, not an IP/],
  ])("refuses %s", async (_name, url, message) => {
    expect(await refusedAt(url)).toMatch(message);
  });

  it("a DNS resolver failure refuses creation with 503 storage_unavailable and Retry-After (nothing created)", async () => {
    const res = await createInProduction({ max_captures: 1, webhook_url: "https://hooks.broken.test/in" });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("storage_unavailable");
    expect(res.headers.get("Retry-After")).toBe("30");
    expect(res.body.error.message).toMatch(/could not be checked/);
  });

  it("accepts an https URL whose name resolves to public addresses", async () => {
    const res = await createInProduction({ max_captures: 1, webhook_url: "https://hooks.example.com/in" });
    expect(res.status).toBe(201);
    expect(res.body.config.webhook_url).toBe("https://hooks.example.com/in");
  });

  it("local development accepts http and loopback (the loopback test receivers)", async () => {
    const t = await seedTenant();
    const { url } = receiver();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: url });
    expect(v.config.webhook_url).toBe(url);
  });
});

describe("webhook_url SSRF guard at delivery", () => {
  const deliveryOf = (verificationId: string) => db().select().from(webhookDeliveries).where(eq(webhookDeliveries.verificationId, verificationId)).get();

  it("a development deployment reached through a public hostname guards its deliveries as its creations: a name rebound to a private address is refused", async () => {
    const t = await seedTenant();
    // `*.rebind.test` resolves to a public address once (the check at creation), then to 10.1.2.3.
    const url = `https://hooks-${crypto.randomUUID().slice(0, 8)}.rebind.test/in`;
    const created = await callWithEnv({}, "/v1/verifications", {
      origin: "https://dev-tunnel.example.com",
      method: "POST",
      headers: { Authorization: `Bearer ${t.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ max_captures: 1, webhook_url: url }),
    });
    expect(created.status).toBe(201);
    // verification.created → its delivery → the attempt resolves the name again and refuses it for good.
    const refused = await eventually(async () => {
      const d = await deliveryOf(created.body.id);
      return d?.status === "failed" ? d : null;
    }, "the delivery refused by the URL guard");
    expect(refused.lastError).toMatch(/refused by the URL guard: .*private network/);
    expect(refused.unguarded).toBe(false);
  });

  it("over loopback, local development delivers to a loopback receiver as it accepted it", async () => {
    const t = await seedTenant();
    const r = receiver();
    const v = await createVerification(t.key, { max_captures: 1, webhook_url: r.url });
    const delivered = await eventually(async () => {
      const d = await deliveryOf(v.id);
      return d?.status === "succeeded" ? d : null;
    }, "the delivery");
    expect(delivered.unguarded).toBe(true);
    expect(await received(r.id)).toHaveLength(1);
  });
});

describe("webhook_url SSRF guard on link templates (production)", () => {
  async function templateCall(method: "POST" | "PATCH", path: string, key: string, body: unknown) {
    return callJson(path, { method, key, body, env: { ...env, ENVIRONMENT: "production" } });
  }

  it("refuses a private webhook_url at publish and at update; a public one is accepted", async () => {
    const t = await seedTenant();
    const live = await mintApiKey(db(), { tenantId: t.id, environment: "live", scope: "full" });
    const base = { name: "Roof", steps: [{ key: "roof", type: "image", description: "The roof", min: 1, max: 1 }] };
    const refused = await templateCall("POST", "/v1/link-templates", live.plaintext, { ...base, slug: "roof-private", webhook_url: "https://db.private.test/in" });
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields.webhook_url).toMatch(/resolve to a private network/);
    expect((await templateCall("PATCH", "/v1/link-templates/roof-private", live.plaintext, { name: "x" })).status).toBe(404);

    const published = await templateCall("POST", "/v1/link-templates", live.plaintext, { ...base, slug: "roof-public", webhook_url: "https://hooks.example.com/in" });
    expect(published.status).toBe(201);
    const patched = await templateCall("PATCH", "/v1/link-templates/roof-public", live.plaintext, { webhook_url: "https://169.254.169.254/latest/meta-data/" });
    expect(patched.status).toBe(400);
    expect(patched.body.error.fields.webhook_url).toMatch(/metadata/);
    const unresolved = await templateCall("PATCH", "/v1/link-templates/roof-public", live.plaintext, { webhook_url: "https://hooks.broken.test/in" });
    expect(unresolved.status).toBe(503);
  });
});
