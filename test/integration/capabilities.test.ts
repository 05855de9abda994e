import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { linkTemplates, verifications } from "../../src/db/schema";
import { call, callJson, db, ensureTrialTenant, seedTenant, withVision } from "../helpers/api";
import { botCall } from "../helpers/bot";
import { dashboard, signIn } from "../helpers/session";

/*
 * GET /v1/capabilities and the creation checks read the same configuration the analysis runs with
 * (providers/analysis.ts). This deployment (the suite's) has no vision provider and no web search,
 * and a geocoder on loopback: what a fresh `npm start` has, plus the geocoder.
 */

const noGeocoder = () => ({ ...env, GEOCODER_URL: undefined }) as Env;
const everything = () =>
  ({
    ...withVision(),
    GOOGLE_VISION_API_KEY: "found",
    GOOGLE_VISION_URL: `${env.FAKES_URL}/web-detection`,
    SIGHTENGINE_API_USER: "ai",
    SIGHTENGINE_API_SECRET: "secret",
    SIGHTENGINE_URL: `${env.FAKES_URL}/sightengine`,
  }) as Env;

async function capabilities(key: string, override?: Env) {
  const res = await callJson("/v1/capabilities", { key, ...(override ? { env: override } : {}) });
  expect(res.status).toBe(200);
  return res.body;
}

describe("GET /v1/capabilities", () => {
  it("says per signal and check what this deployment assesses, why not and what enables it, per capture channel where that matters", async () => {
    const t = await seedTenant();
    const c = await capabilities(t.key);
    expect(c.signals.screen).toEqual({ available: true, provider: "offline-moire" });
    expect(c.signals.ai).toEqual({
      available: true,
      provider: "offline-provenance",
      methods: ["provenance"],
      detection_providers: [],
      reason: expect.stringMatching(/provenance metadata only/),
      enable: expect.stringContaining("SIGHTENGINE_API_USER"),
    });
    expect(c.signals.reverse).toMatchObject({ available: true, sources: ["service_history"], reason: expect.stringMatching(/own history/), enable: expect.stringContaining("GOOGLE_VISION_API_KEY") });
    expect(c.signals.context).toEqual({ available: false, reason: "No vision provider is configured.", enable: expect.stringContaining("VISION_API_URL") });
    // Depth is assessed on both channels (issues 32, 41): from the frames the page sends on the hosted page, from a depth map over the API.
    expect(c.signals.depth).toMatchObject({ available: true, provider: "offline-depth-plane+capture-burst", channels: { hosted_page: { available: true }, api: { available: true } } });
    expect(c.signals.depth.channels.hosted_page.reason).toMatch(/frames around the shutter.*the service measures them itself.*counts only against the capture.*without frames reads depth not assessed/);
    expect(c.signals.depth.channels.api.reason).toMatch(/depth map/);
    expect(c.signals.depth.channels.api.enable).toMatch(/forensic_buffer_key/);
    expect(c.checks.object_match).toMatchObject({ available: false, enable: expect.stringContaining("VISION_API_URL") });
    expect(c.checks.condition).toMatchObject({ available: false });
    expect(c.checks.location_match).toEqual({ available: true, provider: "nominatim" });
    expect(c.defaults).toEqual({ signals_required: ["screen", "ai", "reverse", "depth"], capture_channel: "hosted_page" });
    // A dashboard session reads the same. A publishable key, shipped in apps for anyone to hold, may
    // not: the answer says whether the tenant opted in to the shared reuse index (403, as on every
    // operation but creation).
    const refused = await callJson("/v1/capabilities", { key: t.publishableKey });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({ code: "forbidden", message: "A publishable key may only create verifications." });
    const { cookie } = await signIn(t.id);
    expect((await callJson("/v1/capabilities", { headers: { Cookie: cookie } })).body).toEqual(c);
    expect((await callJson("/v1/capabilities")).status).toBe(401);
  });

  it("follows the configuration: a vision provider, a web search, a detection provider, no geocoder; the tenant's shared reuse index", async () => {
    const t = await seedTenant();
    const full = await capabilities(t.key, everything());
    expect(full.signals.context).toEqual({ available: true, provider: "openai-compatible" });
    expect(full.checks.object_match).toEqual({ available: true, provider: "openai-compatible" });
    expect(full.signals.reverse).toEqual({ available: true, provider: "internal-phash+google-web-detection", sources: ["service_history", "web"] });
    expect(full.signals.ai).toEqual({
      available: true,
      provider: "offline-provenance+sightengine",
      methods: ["provenance", "provider:sightengine"],
      detection_providers: ["sightengine"],
      reason: expect.stringMatching(/^Detection provider asked: sightengine, this deployment's choice .*not calibrated/),
    });
    // Each configured detection provider is listed; one is asked (AI_DETECTION_PROVIDER, else the first configured).
    const three = { ...everything(), HIVE_API_KEY: "ai", HIVE_URL: `${env.FAKES_URL}/hive`, REALITY_DEFENDER_API_KEY: "ai", REALITY_DEFENDER_URL: `${env.FAKES_URL}/reality-defender` } as Env;
    expect((await capabilities(t.key, three)).signals.ai).toEqual({
      available: true,
      provider: "offline-provenance+sightengine",
      methods: ["provenance", "provider:sightengine"],
      detection_providers: ["sightengine", "hive", "reality-defender"],
      reason: expect.stringContaining("Also configured, not asked: hive, reality-defender. A tenant may choose another configured one, or none"),
    });
    const chosen = await capabilities(t.key, { ...three, AI_DETECTION_PROVIDER: "reality-defender" } as Env);
    expect(chosen.signals.ai).toMatchObject({ provider: "offline-provenance+reality-defender", methods: ["provenance", "provider:reality-defender"], reason: expect.stringContaining("not asked: sightengine, hive") });
    // Naming one that is not configured asks none, and says so.
    const misnamed = await capabilities(t.key, { ...env, HIVE_API_KEY: "ai", AI_DETECTION_PROVIDER: "sightengine" } as Env);
    expect(misnamed.signals.ai).toMatchObject({ provider: "offline-provenance", methods: ["provenance"], reason: expect.stringContaining("Detection providers configured: hive; none is asked") });
    const bare = await capabilities(t.key, noGeocoder());
    expect(bare.checks.location_match).toMatchObject({ available: true, provider: "coordinates", enable: expect.stringContaining("GEOCODER_URL") });
    // The tenant opts in to the shared reuse index (default off), from the dashboard.
    const { cookie } = await signIn(t.id);
    expect((await callJson("/v1/tenant/settings", { headers: { Cookie: cookie } })).body.share_reuse_index).toBe(false);
    const opted = await callJson("/v1/tenant/settings", { method: "PATCH", body: { share_reuse_index: true }, headers: dashboard(cookie) });
    expect(opted.status).toBe(200);
    expect(opted.body.share_reuse_index).toBe(true);
    expect((await capabilities(t.key)).signals.reverse.sources).toEqual(["service_history", "shared_history"]);
    expect((await callJson("/v1/tenant/settings", { method: "PATCH", body: { share_reuse_index: "yes" }, headers: dashboard(cookie) })).status).toBe(400);
  });
});

describe("creation asks only for what the deployment assesses", () => {
  it("the default signals_required is the default set this deployment assesses, and the config says so", async () => {
    const t = await seedTenant();
    const created = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1 } });
    expect(created.status).toBe(201);
    expect(created.body.config.signals_required).toEqual((await capabilities(t.key)).defaults.signals_required);
    expect(created.body.config.signals_default).toEqual({ left_out: [] });
    const named = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1, signals_required: ["screen"] } });
    expect(named.body.config.signals_default).toBeUndefined();
  });

  it("requiring what the deployment or the channel cannot assess is 400 invalid_request naming each field and what enables it; nothing is created", async () => {
    const t = await seedTenant();
    const refused = await callJson("/v1/verifications", {
      key: t.key,
      body: { max_captures: 1, signals_required: ["screen", "depth", "context"], context: { kind: "car", summary: "A blue car" }, expected_object: "a car", condition_aspects: ["paint"] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
    expect(refused.body.error.message).toMatch(/capabilities/);
    const fields = refused.body.error.fields;
    // depth (index 1) is assessed on the hosted page now: only what this deployment cannot assess at all is refused.
    expect(Object.keys(fields).sort()).toEqual(["condition_aspects", "expected_object", "signals_required.2"]);
    expect(fields["signals_required.2"]).toMatch(/context signal cannot be assessed by this deployment: No vision provider is configured\. To enable it: Set VISION_API_URL/);
    expect(fields.expected_object).toMatch(/object_match.*VISION_API_URL/);
    expect(fields.condition_aspects).toMatch(/condition.*VISION_API_URL/);
    expect((await callJson("/v1/verifications", { key: t.key })).body.items).toEqual([]);

    // Depth on either channel; a vision provider makes the rest assessable.
    for (const channel of ["hosted_page", "api"]) {
      const depth = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1, signals_required: ["depth"], capture_channel: channel } });
      expect(depth.status, channel).toBe(201);
    }
    const vision = await callJson("/v1/verifications", {
      key: t.key,
      env: withVision(),
      body: { max_captures: 1, signals_required: ["context"], context: { kind: "car", summary: "A blue car" }, expected_object: "a car", condition_aspects: ["paint"] },
    });
    expect(vision.status).toBe(201);
  });

  it("an address for expected_location needs a geocoder; coordinates do not", async () => {
    const t = await seedTenant();
    const address = await callJson("/v1/verifications", { key: t.key, env: noGeocoder(), body: { max_captures: 1, expected_location: "1 Main St, Springfield" } });
    expect(address.status).toBe(400);
    expect(address.body.error.fields.expected_location).toMatch(/coordinates.*GEOCODER_URL/);
    const point = await callJson("/v1/verifications", { key: t.key, env: noGeocoder(), body: { max_captures: 1, expected_location: "48.8584, 2.2945" } });
    expect(point.status).toBe(201);
    expect((await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1, expected_location: "1 Main St, Springfield" } })).status).toBe(201);
  });

  it("the bot's creations are checked the same way (its links lead to the hosted page)", async () => {
    const t = await seedTenant();
    const refused = await botCall("/v1/bot/verifications", { tenant_id: t.id, max_captures: 1, signals_required: ["context"], context: { kind: "car", summary: "A blue car" } });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.error.fields)).toEqual(["signals_required.0"]);
    const created = await botCall("/v1/bot/verifications", { tenant_id: t.id, max_captures: 1 });
    expect(created.status).toBe(201);
    expect(created.body.config).toMatchObject({ signals_required: ["screen", "ai", "reverse", "depth"], signals_default: { left_out: [] } });
  });

  it("a trial gets the deployment's default signals", async () => {
    await ensureTrialTenant();
    const started = await callJson("/v1/public/trial/start", { body: {}, headers: { "CF-Connecting-IP": "203.0.113.77" } });
    expect(started.status).toBe(201);
    const row = await db().select({ config: verifications.config }).from(verifications).where(eq(verifications.id, started.body.verification_id)).get();
    expect(row!.config).toMatchObject({ signals_required: ["screen", "ai", "reverse", "depth"], signals_default: { left_out: [] } });
  });
});

describe("link templates are checked when published, updated and started", () => {
  it("publish and update refuse what the hosted page cannot assess; a start whose deployment lost its provider is refused with a page", async () => {
    const t = await seedTenant();
    const { cookie } = await signIn(t.id);
    const send = (path: string, body: unknown, method = "POST", override?: Env) => callJson(path, { method, body, headers: dashboard(cookie), ...(override ? { env: override } : {}) });
    const slug = `caps-${Date.now().toString(36)}`;

    const context = await send("/v1/link-templates", { slug, name: "Context", max_captures: 1, signals_required: ["context"], context: { kind: "roof", summary: "A roof" } });
    expect(context.status).toBe(400);
    expect(context.body.error.fields["signals_required.0"]).toMatch(/context signal cannot be assessed by this deployment/);
    // capture_channel is no template field: a template's link always leads to the hosted page.
    expect((await send("/v1/link-templates", { slug, name: "Api", max_captures: 1, capture_channel: "api" })).body.error.fields).toHaveProperty("capture_channel");
    const object = await send("/v1/link-templates", { slug, name: "Object", max_captures: 1, expected_object: "a roof" });
    expect(object.status).toBe(400);
    expect(object.body.error.fields).toHaveProperty("expected_object");

    // Published where a vision provider is configured…
    const published = await send("/v1/link-templates", { slug, name: "Roof", max_captures: 1, expected_object: "a roof" }, "POST", withVision());
    expect(published.status).toBe(201);
    expect(published.body).toMatchObject({ signals_required: ["screen", "ai", "reverse", "depth"], signals_default: { left_out: [] } });
    // …an update on a deployment without one is refused (the version it publishes could not start).
    const update = await send(`/v1/link-templates/${slug}`, { name: "Roof 2" }, "PATCH");
    expect(update.status).toBe(400);
    expect(update.body.error.fields).toHaveProperty("expected_object");
    // …and a start there is refused with a page, nothing created or counted.
    const start = await call(`/l/${t.slug}/${slug}`, { redirect: "manual" });
    expect(start.status).toBe(503);
    expect(start.headers.get("content-type")).toMatch(/text\/html/);
    expect(await start.text()).toContain("cannot be used right now");
    expect((await callJson("/v1/verifications", { key: t.key })).body.items).toEqual([]);
    expect((await db().select().from(linkTemplates).where(eq(linkTemplates.slug, slug)).get())!.startedTotal).toBe(0);
    // Where it is configured the same link starts.
    const started = await call(`/l/${t.slug}/${slug}`, { redirect: "manual", env: withVision() });
    expect(started.status).toBe(303);
  });
});
