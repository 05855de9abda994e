import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { freshBotNonce } from "../../src/auth/bot";
import { botNonces, verifications } from "../../src/db/schema";
import { callJson, createVerification, db, seedTenant } from "../helpers/api";
import { botCall, botSignature } from "../helpers/bot";

const now = () => Math.floor(Date.now() / 1000);

async function tenantVerificationCount(tenantId: string): Promise<number> {
  return (await db().select({ id: verifications.id }).from(verifications).where(eq(verifications.tenantId, tenantId))).length;
}

/** Hex HMAC-SHA256 with WebCrypto: what a bot written in any language from the document computes. */
async function hexHmac(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

describe("bot HMAC (X-Bot-Auth)", () => {
  it("a bot built from the served document is accepted: each signature the botHmac scheme describes is computed as the server checks it", async () => {
    const t = await seedTenant();
    const doc = (await callJson("/v1/openapi.json")).body as { components: { securitySchemes: Record<string, { name?: string; description?: string }> } };
    const scheme = doc.components.securitySchemes.botHmac!;
    expect(scheme.name).toBe("X-Bot-Auth");
    // Each `vN=<hex HMAC-SHA256(BOT_SECRET, "<template>")>` of the description, its template's placeholders filled in.
    const templates = [...scheme.description!.matchAll(/(v\d)=<hex HMAC-SHA256\(BOT_SECRET, "([^"]+)"\)>/g)].map(([, name, template]) => ({ name: name!, template: template! }));
    expect(templates.map((x) => x.name)).toContain("v1");
    // The form with a nonce (`n=<nonce>`, its template naming `<n>`) is a header of its own.
    const plain = templates.filter((x) => !x.template.includes("<n>"));
    const withNonce = templates.filter((x) => x.template.includes("<n>"));
    expect(withNonce.map((x) => x.name)).toEqual(["v2"]);
    expect(scheme.description).toContain("n=<nonce>");
    for (const [signed, nonce] of [
      [plain.filter((x) => x.name === "v1"), undefined],
      [plain, undefined],
      [withNonce, freshBotNonce()],
    ] as const) {
      const path = "/v1/bot/verifications";
      const raw = JSON.stringify({ tenant_id: t.id, max_captures: 1, metadata: { scheme: signed.map((x) => x.name).join("+") + (nonce ? "+n" : "") } });
      const ts = String(Math.floor(Date.now() / 1000));
      const text = (template: string) =>
        template
          .replace("<t>", ts)
          .replace("<n>", nonce ?? "")
          .replace("<METHOD>", "POST")
          .replace("<path>", path)
          .replace("<raw body>", raw);
      const header = [
        `t=${ts}`,
        ...(nonce ? [`n=${nonce}`] : []),
        ...(await Promise.all(signed.map(async (x) => `${x.name}=${await hexHmac(env.BOT_SECRET!, text(x.template))}`))),
      ].join(",");
      const res = await callJson(path, { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
      expect({ header: header.replace(/=[0-9a-f]{64}/g, "=…"), status: res.status }).toEqual({ header: header.replace(/=[0-9a-f]{64}/g, "=…"), status: 201 });
    }
  });

  it("accepts a valid signature and creates the verification for the body's tenant", async () => {
    const t = await seedTenant();
    const res = await botCall("/v1/bot/verifications", { tenant_id: t.id, max_captures: 1, metadata: { chat: "42" } });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^vfy_/);
    expect(res.body).not.toHaveProperty("progress");
    const fetched = await callJson(`/v1/verifications/${res.body.id}`, { key: t.key });
    expect(fetched.status).toBe(200);
    expect(fetched.body.config.metadata).toEqual({ chat: "42" });

    const lookup = await botCall("/v1/bot/verifications/lookup", { tenant_id: t.id, verification_id: res.body.id });
    expect(lookup.status).toBe(200);
    expect(lookup.body.id).toBe(res.body.id);
  });

  it("refuses a wrong secret, a stale or far-future timestamp, an altered body and a malformed header", async () => {
    const t = await seedTenant();
    const body = { tenant_id: t.id, max_captures: 1 };
    const wrongSecret = await botCall("/v1/bot/verifications", body, { secret: "not-the-bot-secret-0123456789abcdef" });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.error.code).toBe("unauthorized");

    const stale = await botCall("/v1/bot/verifications", body, { timestamp: now() - 301 });
    expect(stale.status).toBe(401);
    expect(stale.body.error.message).toMatch(/300 s/);
    const future = await botCall("/v1/bot/verifications", body, { timestamp: now() + 301 });
    expect(future.status).toBe(401);
    // Just inside the tolerance is fine.
    expect((await botCall("/v1/bot/verifications", body, { timestamp: now() - 290 })).status).toBe(201);

    // Signed for one body, sent with another (a different tenant's id slipped in).
    const other = await seedTenant();
    const header = await botSignature("/v1/bot/verifications", JSON.stringify(body));
    const altered = await botCall("/v1/bot/verifications", { ...body, tenant_id: other.id }, { header });
    expect(altered.status).toBe(401);
    expect(altered.body.error.message).toMatch(/signature/);

    for (const malformed of ["", "t=1", `v1=${"a".repeat(64)}`, `t=${now()},v1=xyz`, `t=${now()},v1=${"A".repeat(64)}`]) {
      expect((await botCall("/v1/bot/verifications", body, { header: malformed })).status).toBe(401);
    }
    const unsigned = await callJson("/v1/bot/verifications", { body });
    expect(unsigned.status).toBe(401);
    // A good API key is not called invalid: it is told what the operation takes.
    const withApiKey = await callJson("/v1/bot/verifications", { body, key: t.key });
    expect(withApiKey.status).toBe(401);
    expect(withApiKey.body.error.message).toMatch(/sign it with X-Bot-Auth/);
    expect(unsigned.body.error.message).toMatch(/sign it with X-Bot-Auth/);

    expect(await tenantVerificationCount(t.id)).toBe(1); // only the in-tolerance request
    expect(await tenantVerificationCount(other.id)).toBe(0);
  });

  it("covers method and path: a request signed for another endpoint or method is refused", async () => {
    const t = await seedTenant();
    const raw = JSON.stringify({ tenant_id: t.id, max_captures: 1 });
    const send = async (header: string) => callJson("/v1/bot/verifications", { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
    for (const header of [
      await botSignature("/v1/bot/verifications/lookup", raw),
      await botSignature("/v1/bot/verifications?x=1", raw),
      await botSignature("/v1/bot/verifications", raw, { method: "PUT" }),
    ]) {
      const refused = await send(header);
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toMatch(/<t>\.<METHOD>\.<path>\.<raw body>/);
    }
    expect(await tenantVerificationCount(t.id)).toBe(0);
    expect((await send(await botSignature("/v1/bot/verifications", raw))).status).toBe(201);
  });

  it("accepts the contract's v1-only signature, and each signature only once whatever it travels with", async () => {
    const t = await seedTenant();
    const raw = JSON.stringify({ tenant_id: t.id, max_captures: 1 });
    const send = (header: string) => callJson("/v1/bot/verifications", { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
    const timestamp = Math.floor(Date.now() / 1000);
    const v1Only = await botSignature("/v1/bot/verifications", raw, { timestamp, schemes: ["v1"] });
    expect(v1Only).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect((await send(v1Only)).status).toBe(201);
    // The same v1 with a v2 added (both valid) is still that v1 again: a replay.
    const both = await botSignature("/v1/bot/verifications", raw, { timestamp });
    expect(both.startsWith(v1Only)).toBe(true);
    const replay = await send(both);
    expect(replay.status).toBe(401);
    expect(replay.body.error.message).toMatch(/already used/);
    // Two signatures of one scheme are malformed.
    const v1 = v1Only.split(",")[1]!;
    expect((await send(`${v1Only},${v1}`)).status).toBe(401);
    expect(await tenantVerificationCount(t.id)).toBe(1);
  });

  it("refuses a replayed request, even concurrently", async () => {
    const t = await seedTenant();
    const raw = JSON.stringify({ tenant_id: t.id, max_captures: 1 });
    const header = await botSignature("/v1/bot/verifications", raw);
    const send = () => callJson("/v1/bot/verifications", { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
    const first = await send();
    expect(first.status).toBe(201);
    const replay = await send();
    expect(replay.status).toBe(401);
    expect(replay.body.error.message).toMatch(/already used/);

    const raw2 = JSON.stringify({ tenant_id: t.id, max_captures: 2 });
    const header2 = await botSignature("/v1/bot/verifications", raw2);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => callJson("/v1/bot/verifications", { rawBody: raw2, headers: { "Content-Type": "application/json", "X-Bot-Auth": header2 } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 401, 401, 401, 401]);
    expect(await tenantVerificationCount(t.id)).toBe(2);
  });

  it("two different requests with the same body in the same second both go through when each carries its own nonce", async () => {
    const t = await seedTenant();
    const raw = JSON.stringify({ tenant_id: t.id, max_captures: 1 });
    const timestamp = now();
    const send = (path: string, body: string, header: string) => callJson(path, { rawBody: body, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
    // Two users each asking for a 1-photo verification of one tenant, signed in one second.
    const [a, b] = [freshBotNonce(), freshBotNonce()];
    const first = await send("/v1/bot/verifications", raw, await botSignature("/v1/bot/verifications", raw, { timestamp, nonce: a }));
    const second = await send("/v1/bot/verifications", raw, await botSignature("/v1/bot/verifications", raw, { timestamp, nonce: b }));
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.id).not.toBe(second.body.id);
    expect(await tenantVerificationCount(t.id)).toBe(2);
    // Two lookups of one verification in one second.
    const lookupRaw = JSON.stringify({ tenant_id: t.id, verification_id: first.body.id });
    const lookups = await Promise.all(
      [freshBotNonce(), freshBotNonce()].map(async (nonce) =>
        send("/v1/bot/verifications/lookup", lookupRaw, await botSignature("/v1/bot/verifications/lookup", lookupRaw, { timestamp, nonce })),
      ),
    );
    expect(lookups.map((r) => [r.status, r.body.id])).toEqual([
      [200, first.body.id],
      [200, first.body.id],
    ]);
  });

  it("without a nonce, the second of two identical requests in one second is refused, and told to send a nonce", async () => {
    const t = await seedTenant();
    const raw = JSON.stringify({ tenant_id: t.id, max_captures: 1 });
    const timestamp = now();
    const send = (header: string) => callJson("/v1/bot/verifications", { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
    for (const schemes of [undefined, ["v1"], ["v2"]] as const) {
      const body = JSON.stringify({ tenant_id: t.id, max_captures: 1, metadata: { schemes: String(schemes) } });
      const sendBody = (header: string) => callJson("/v1/bot/verifications", { rawBody: body, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
      expect((await sendBody(await botSignature("/v1/bot/verifications", body, { timestamp, schemes: schemes && [...schemes] }))).status).toBe(201);
      const again = await sendBody(await botSignature("/v1/bot/verifications", body, { timestamp, schemes: schemes && [...schemes] }));
      expect(again.status).toBe(401);
      expect(again.body.error.message).toMatch(/already used.*fresh n= nonce per request/);
    }
    expect((await send(await botSignature("/v1/bot/verifications", raw, { timestamp }))).status).toBe(201);
    expect(await tenantVerificationCount(t.id)).toBe(4);
  });

  it("a nonce header is accepted once: replayed, it is refused", async () => {
    const t = await seedTenant();
    const raw = JSON.stringify({ tenant_id: t.id, max_captures: 1 });
    const header = await botSignature("/v1/bot/verifications", raw, { nonce: freshBotNonce() });
    expect(header).toMatch(/^t=\d+,n=[A-Za-z0-9_-]{24},v2=[0-9a-f]{64}$/);
    const send = () => callJson("/v1/bot/verifications", { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
    expect((await send()).status).toBe(201);
    const replay = await send();
    expect(replay.status).toBe(401);
    expect(replay.body.error.message).toMatch(/already used/);
    // Concurrently too: one of five goes through.
    const header2 = await botSignature("/v1/bot/verifications", raw, { nonce: freshBotNonce() });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => callJson("/v1/bot/verifications", { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header2 } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 401, 401, 401, 401]);
    expect(await tenantVerificationCount(t.id)).toBe(2);
  });

  it("refuses n= beside v1 as malformed, says why, and claims nothing", async () => {
    const t = await seedTenant();
    const raw = JSON.stringify({ tenant_id: t.id, max_captures: 1 });
    const timestamp = now();
    const nonce = freshBotNonce();
    const send = (header: string) => callJson("/v1/bot/verifications", { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
    const v1Only = await botSignature("/v1/bot/verifications", raw, { timestamp, schemes: ["v1"] });
    const v1 = v1Only.split(",")[1]!;
    const v2 = (await botSignature("/v1/bot/verifications", raw, { timestamp, nonce })).split(",")[2]!;
    for (const header of [`t=${timestamp},n=${nonce},${v1}`, `t=${timestamp},n=${nonce},${v1},${v2}`, `t=${timestamp},n=${nonce},${v2},${v1}`]) {
      const refused = await send(header);
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toMatch(/^Malformed X-Bot-Auth header: .*n=.*v2 only.*v1 does not cover the nonce/);
    }
    // Nothing was claimed: the v1 alone and the nonce header alone are each still good once.
    expect((await send(v1Only)).status).toBe(201);
    expect((await send(`t=${timestamp},n=${nonce},${v2}`)).status).toBe(201);
    expect(await tenantVerificationCount(t.id)).toBe(2);
  });

  it("refuses a nonce the v2 was not signed with, and a nonce of the wrong shape", async () => {
    const t = await seedTenant();
    const raw = JSON.stringify({ tenant_id: t.id, max_captures: 1 });
    const timestamp = now();
    const send = (header: string) => callJson("/v1/bot/verifications", { rawBody: raw, headers: { "Content-Type": "application/json", "X-Bot-Auth": header } });
    const plainV2 = (await botSignature("/v1/bot/verifications", raw, { timestamp, schemes: ["v2"] })).split(",")[1]!;
    const otherV2 = (await botSignature("/v1/bot/verifications", raw, { timestamp, nonce: freshBotNonce() })).split(",")[2]!;
    // A v2 signed without the nonce but sent with one; a v2 signed with another nonce.
    for (const header of [`t=${timestamp},n=${freshBotNonce()},${plainV2}`, `t=${timestamp},n=${freshBotNonce()},${otherV2}`]) {
      const refused = await send(header);
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toMatch(/^Invalid X-Bot-Auth signature: .*"<t>\.<n>\.<METHOD>\.<path>\.<raw body>" when the header carries n=/);
    }
    for (const nonce of ["a".repeat(15), "a".repeat(65), `${"a".repeat(20)}.x`, `${"a".repeat(20)}=`, ""]) {
      const refused = await send(`t=${timestamp},n=${nonce},${plainV2}`);
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toMatch(/^Malformed X-Bot-Auth header/);
    }
    // The nonce comes after t and before the signature.
    const good = await botSignature("/v1/bot/verifications", raw, { timestamp, nonce: freshBotNonce() });
    const [tPart, nPart, vPart] = good.split(",");
    expect((await send([nPart, tPart, vPart].join(","))).status).toBe(401);
    expect((await send([tPart, vPart, nPart].join(","))).status).toBe(401);
    expect(await tenantVerificationCount(t.id)).toBe(0);
    // The plain v2 was never claimed by those refusals.
    expect((await send(`t=${timestamp},${plainV2}`)).status).toBe(201);
  });

  it("remembers signatures only while they could still be accepted", async () => {
    const t = await seedTenant();
    await db().insert(botNonces).values({ signature: "f".repeat(64), expiresAt: Date.now() - 1 });
    expect((await botCall("/v1/bot/verifications", { tenant_id: t.id, max_captures: 1 })).status).toBe(201);
    expect(await db().select().from(botNonces).where(eq(botNonces.signature, "f".repeat(64)))).toEqual([]);
  });

  it("scopes everything to the body's tenant", async () => {
    const a = await seedTenant();
    const b = await seedTenant();
    const v = await createVerification(a.key);
    const crossed = await botCall("/v1/bot/verifications/lookup", { tenant_id: b.id, verification_id: v.id });
    expect(crossed.status).toBe(404);
    const unknownTenant = await botCall("/v1/bot/verifications", { tenant_id: "tnt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", max_captures: 1 });
    expect(unknownTenant.status).toBe(404);
    const noTenant = await botCall("/v1/bot/verifications", { max_captures: 1 });
    expect(noTenant.status).toBe(400);
    expect(noTenant.body.error.fields).toHaveProperty("tenant_id");
    const invalid = await botCall("/v1/bot/verifications", { tenant_id: a.id, max_captures: 99 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.fields).toHaveProperty("max_captures");
  });
});
