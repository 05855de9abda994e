import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { analyzeCapture } from "../../src/analysis/pipeline";
import { stripMetadata } from "../../src/analysis/strip-metadata";
import { analysesOf } from "../../src/db/analyses";
import { captures } from "../../src/db/schema";
import { loadRecord } from "../../src/db/verifications";
import { requestsTo, sha256Hex } from "../helpers/ai-providers";
import { callJson, createVerification, db, eventually, seedTenant, type TestTenant } from "../helpers/api";
import { captureInline } from "../helpers/capture";
import { dashboard, signIn } from "../helpers/session";
import { encodeJpeg, naturalScene } from "../helpers/synth";

/*
 * Issue 43, item 4: a tenant chooses which of the deployment's AI-detection providers its captures
 * are sent to, or none (`ai_detection_provider` on /v1/tenant/settings). One deployment here
 * configures Hive and Reality Defender (the loopback fakes, test/fakes/*.ts, which keep each request
 * by API key); the suite's own deployment configures none.
 */

const run = crypto.randomUUID().slice(0, 8);
/** Hive answers "generated", Reality Defender "authentic": either answer shows which one decided. */
const HIVE_KEY = `ai:tenant-choice-${run}`;
const RD_KEY = `human:tenant-choice-${run}`;
const both = () =>
  ({ ...env, HIVE_API_KEY: HIVE_KEY, HIVE_URL: `${env.FAKES_URL}/hive`, REALITY_DEFENDER_API_KEY: RD_KEY, REALITY_DEFENDER_URL: `${env.FAKES_URL}/reality-defender` }) as Env;
/** The same deployment after Reality Defender was removed from it. */
const hiveOnly = () => ({ ...env, HIVE_API_KEY: HIVE_KEY, HIVE_URL: `${env.FAKES_URL}/hive` }) as Env;

async function admin(t: TestTenant) {
  const { cookie } = await signIn(t.id, "admin");
  return {
    cookie,
    read: (deployment: Env) => callJson("/v1/tenant/settings", { headers: dashboard(cookie), env: deployment }),
    patch: (body: unknown, deployment: Env) => callJson("/v1/tenant/settings", { method: "PATCH", body, headers: dashboard(cookie), env: deployment }),
  };
}

async function choose(t: TestTenant, setting: string | null, deployment: Env = both()) {
  const res = await (await admin(t)).patch({ ai_detection_provider: setting }, deployment);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/**
 * One live capture requiring `ai` analysed as `deployment` runs the analysis: the verification's
 * first capture is analysed in the background by the suite's deployment (no provider); a second
 * capture row of other bytes, announced to nobody, is analysed here.
 */
async function analysedAs(t: TestTenant, deployment: Env, seed: number) {
  const v = await createVerification(t.key, { max_captures: 2, signals_required: ["ai"] });
  await captureInline(v.id, encodeJpeg(naturalScene(96, 64, seed)));
  const [first] = (await loadRecord(db(), v.id))!.captures;
  const bytes = encodeJpeg(naturalScene(160, 120, seed + 1));
  const row = { ...first!, id: `${first!.id}T`, seq: 7, imageKey: `${first!.imageKey}-T` };
  await env.EVIDENCE.put(row.imageKey, bytes, { httpMetadata: { contentType: "image/jpeg" } });
  await db().insert(captures).values(row);
  await analyzeCapture(deployment, v.id, row.id);
  const stored = await eventually(async () => (await analysesOf(db(), v.id)).find((a) => a.captureId === row.id), "the capture's analysis");
  const stripped = stripMetadata(bytes, "image/jpeg", Infinity);
  if (!stripped.ok) throw new Error("the test image could not be stripped");
  return { ai: (stored.result as { signals: { ai_detection: any } }).signals.ai_detection, sentSha256: await sha256Hex(stripped.bytes) };
}

/** What each fake has received with this deployment's key so far. */
async function received() {
  return { hive: await requestsTo("hive", HIVE_KEY), realityDefender: await requestsTo("reality-defender", RD_KEY) };
}

describe("ai_detection_provider: the tenant's choice among the deployment's detection providers", () => {
  it("reads null by default; takes none, a configured provider or null back; audits each change", async () => {
    const t = await seedTenant();
    const a = await admin(t);
    expect((await a.read(both())).body).toMatchObject({ ai_detection_provider: null });
    for (const setting of ["reality-defender", "none", "hive", null]) {
      const res = await a.patch({ ai_detection_provider: setting }, both());
      expect(res.status).toBe(200);
      expect(res.body.ai_detection_provider).toBe(setting);
      expect((await a.read(both())).body.ai_detection_provider).toBe(setting);
      const [entry] = (await callJson("/v1/audit-log?action=settings.updated&limit=1", { headers: dashboard(a.cookie) })).body.items;
      expect(entry).toMatchObject({ action: "settings.updated", target: { type: "tenant", id: t.id }, details: { changed: { ai_detection_provider: setting } } });
    }
    // Other fields leave it as it is.
    await a.patch({ ai_detection_provider: "hive" }, both());
    expect((await a.patch({ retention_days: 30 }, both())).body).toMatchObject({ retention_days: 30, ai_detection_provider: "hive" });
  });

  it("refuses a provider this deployment does not configure (400 naming the field), and any other value; nothing changes", async () => {
    const t = await seedTenant();
    const a = await admin(t);
    await a.patch({ ai_detection_provider: "hive" }, both());
    const unconfigured = await a.patch({ ai_detection_provider: "sightengine" }, both());
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.body.error).toMatchObject({
      code: "invalid_request",
      fields: { ai_detection_provider: 'sightengine is not configured in this deployment: choose null, "none", "hive", "reality-defender" (GET /v1/capabilities lists them).' },
    });
    // The suite's deployment configures none: only null and none.
    const none = await a.patch({ ai_detection_provider: "hive" }, env);
    expect(none.status).toBe(400);
    expect(Object.keys(none.body.error.fields)).toEqual(["ai_detection_provider"]);
    for (const bad of ["Hive", "openai", 1, true]) {
      const res = await a.patch({ ai_detection_provider: bad }, both());
      expect(res.status, String(bad)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(Object.keys(res.body.error.fields ?? {})).toContain("ai_detection_provider");
    }
    expect((await a.read(both())).body.ai_detection_provider).toBe("hive");
    const [last] = (await callJson("/v1/audit-log?action=settings.updated&limit=1", { headers: dashboard(a.cookie) })).body.items;
    expect(last.details.changed).toEqual({ ai_detection_provider: "hive" });
    // A viewer may read the setting, not change it.
    const { cookie } = await signIn(t.id, "viewer");
    expect((await callJson("/v1/tenant/settings", { method: "PATCH", body: { ai_detection_provider: "none" }, headers: dashboard(cookie), env: both() })).status).toBe(403);
  });

  it("GET /v1/capabilities lists every configured provider and says which one is asked for the calling tenant", async () => {
    const [chose, optedOut, left] = [await seedTenant(), await seedTenant(), await seedTenant()];
    await choose(chose, "reality-defender");
    await choose(optedOut, "none");
    const ai = async (t: TestTenant, deployment: Env) => (await callJson("/v1/capabilities", { key: t.key, env: deployment })).body.signals.ai;
    expect(await ai(left, both())).toMatchObject({
      methods: ["provenance", "provider:hive"],
      detection_providers: ["hive", "reality-defender"],
      reason: expect.stringMatching(/^Detection provider asked: hive, this deployment's choice .*A tenant may choose another configured one, or none/),
    });
    expect(await ai(chose, both())).toMatchObject({
      provider: "offline-provenance+reality-defender",
      methods: ["provenance", "provider:reality-defender"],
      detection_providers: ["hive", "reality-defender"],
      reason: expect.stringMatching(/^Detection provider asked: reality-defender, this tenant's choice .*Also configured, not asked: hive\./),
    });
    expect(await ai(optedOut, both())).toMatchObject({ provider: "offline-provenance", methods: ["provenance"], detection_providers: ["hive", "reality-defender"], reason: expect.stringContaining("This tenant chose no detection provider") });
    // Removed from the deployment: said, and nothing else is asked in its place.
    expect(await ai(chose, hiveOnly())).toMatchObject({
      methods: ["provenance"],
      detection_providers: ["hive"],
      reason: expect.stringMatching(/^This tenant chose reality-defender .*does not configure: no other provider is asked in its place/),
      enable: expect.stringContaining("a configured provider (hive)"),
    });
  });

  it("the analysis asks the provider each tenant chose, in one deployment: each fake receives only its tenant's image", async () => {
    const [hiveTenant, rdTenant] = [await seedTenant(), await seedTenant()];
    await choose(hiveTenant, "hive");
    await choose(rdTenant, "reality-defender");
    const before = await received();
    const viaHive = await analysedAs(hiveTenant, both(), 301);
    const viaRd = await analysedAs(rdTenant, both(), 311);
    expect(viaHive.ai).toMatchObject({ label: "likely_ai", method: "provider:hive", provider: "hive" });
    expect(viaRd.ai).toMatchObject({ label: "unknown", method: "provider:reality-defender", provider: "reality-defender" });
    const after = await received();
    const hiveNew = after.hive.slice(before.hive.length);
    const rdNew = after.realityDefender.slice(before.realityDefender.length);
    expect(hiveNew.map((r) => (r.body as { media: { sha256: string } }).media.sha256)).toEqual([viaHive.sentSha256]);
    const rdUploads = rdNew.filter((r) => r.method === "PUT");
    expect(rdUploads.map((r) => r.sha256)).toEqual([viaRd.sentSha256]);
    expect(rdNew.length).toBeGreaterThan(1);
  });

  it("none: no provider receives anything, provenance decides, and the evidence says the tenant chose none", async () => {
    const t = await seedTenant();
    await choose(t, "none");
    const before = await received();
    const { ai } = await analysedAs(t, both(), 321);
    expect(await received()).toEqual(before);
    expect(ai).toMatchObject({ label: "unknown", method: "provenance", provider: "offline-provenance" });
    expect(ai.evidence).toContainEqual({ code: "ai_provider_opted_out", detail: expect.stringContaining("ai_detection_provider: none") });
  });

  it("a chosen provider the deployment removed fails closed: not assessed, naming it, and the other provider is not asked", async () => {
    const t = await seedTenant();
    await choose(t, "reality-defender");
    const before = await received();
    const { ai } = await analysedAs(t, hiveOnly(), 331);
    expect(await received()).toEqual(before);
    expect(ai).toMatchObject({ status: "not_assessed", reason: "ai_provider_error", provider: "reality-defender" });
    expect(ai.evidence[0]).toEqual({ code: "ai_provider_error", detail: expect.stringMatching(/^reality-defender: not configured in this deployment; this tenant chose it/) });
  });
});
