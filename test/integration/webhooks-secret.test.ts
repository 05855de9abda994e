import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { tenants } from "../../src/db/schema";
import { findTenant } from "../../src/domain/tenants/tenants";
import { callJson, createVerification, db, seedTenant } from "../helpers/api";
import { waitFor } from "../helpers/wait";
import { received, receiver, sessionHeaders, type Received } from "../helpers/webhooks";

async function oneWebhook(key: string): Promise<Received> {
  const r = receiver();
  await createVerification(key, { max_captures: 1, webhook_url: r.url });
  const [hit] = await waitFor(async () => {
    const got = await received(r.id);
    return got.length > 0 ? got : undefined;
  }, { what: "the webhook" });
  return hit!;
}

const verifies = (secret: string, hit: Received): boolean => {
  try {
    new Webhook(secret).verify(hit.body, hit.headers);
    return true;
  } catch {
    return false;
  }
};

describe("webhook secret rotation", () => {
  it("during the window a receiver holding either the old or the new secret verifies; after it only the new one", async () => {
    const t = await seedTenant();
    const session = await sessionHeaders(t.id);
    const before = await callJson("/v1/webhook-secret", { headers: session });
    expect(before.status).toBe(200);
    const oldSecret: string = before.body.secret;
    expect(oldSecret).toBe((await findTenant(db(), t.id))!.webhookSecret);
    expect(before.body.previous_secret_expires_at).toBeUndefined();

    const rotated = await callJson("/v1/webhook-secret/rotate", { method: "POST", headers: session });
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(oldSecret);
    const windowEnd = Date.parse(rotated.body.previous_secret_expires_at);
    expect(windowEnd - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(windowEnd - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const during = await oneWebhook(t.key);
    expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verifies(oldSecret, during)).toBe(true);
    expect(verifies(newSecret, during)).toBe(true);
    expect(verifies(`whsec_${btoa("a third secret nobody holds!!!!!")}`, during)).toBe(false);

    // The window closes.
    const retiring = (await findTenant(db(), t.id))!.webhookSecretsRetiring!;
    await db().update(tenants).set({ webhookSecretsRetiring: retiring.map((s) => ({ ...s, expires_at: Date.now() - 1 })) }).where(eq(tenants.id, t.id));
    const after = await oneWebhook(t.key);
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verifies(newSecret, after)).toBe(true);
    expect(verifies(oldSecret, after)).toBe(false);
    expect((await callJson("/v1/webhook-secret", { headers: session })).body).toEqual({ secret: newSecret });
  });

  // Webhook probe of 2026-12-07: a second rotation (a retried call, say) retired the first's secret at
  // once, 23 h before the time the first rotation had answered.
  it("rotating again inside the window keeps every earlier secret signing until its own window ends; a fourth is 429 until the oldest ends", async () => {
    const t = await seedTenant();
    const session = await sessionHeaders(t.id);
    const first = (await callJson("/v1/webhook-secret", { headers: session })).body.secret;
    const rotate = () => callJson("/v1/webhook-secret/rotate", { method: "POST", headers: session });
    const one = await rotate();
    const promised = Date.parse(one.body.previous_secret_expires_at);
    const two = await rotate();
    expect(Date.parse(two.body.previous_secret_expires_at)).toBeGreaterThanOrEqual(promised);
    const hit = await oneWebhook(t.key);
    expect(hit.headers["webhook-signature"]!.split(" ")).toHaveLength(3);
    for (const secret of [first, one.body.secret, two.body.secret]) expect(verifies(secret, hit)).toBe(true);
    const windows = (await findTenant(db(), t.id))!.webhookSecretsRetiring!;
    expect(windows.find((s) => s.secret === first)!.expires_at).toBe(promised);

    expect((await rotate()).status).toBe(200);
    const fourth = await rotate();
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get("Retry-After"))).toBeGreaterThan(23.9 * 3600);
    expect(fourth.body.error.code).toBe("too_many_requests");
    // Refused, it changed nothing: the secret the third rotation issued is still the current one.
    expect((await callJson("/v1/webhook-secret", { headers: session })).body.secret).toBe((await findTenant(db(), t.id))!.webhookSecret);
  });

  it("is dashboard-only: API keys are refused", async () => {
    const t = await seedTenant();
    expect((await callJson("/v1/webhook-secret/rotate", { method: "POST", key: t.key })).status).toBe(403);
    expect((await callJson("/v1/webhook-secret", { key: t.key })).status).toBe(403);
    const unchanged = (await findTenant(db(), t.id))!;
    expect(unchanged.webhookSecretsRetiring).toBeNull();
  });
});
