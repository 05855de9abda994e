import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { magicLinks, outboundMessages } from "../../src/db/schema";
import { consumeMagicLink, magicLinkLimitKey, REDACTED_LINK, signInAddressLimitKeys } from "../../src/domain/accounts/magic-links";
import { db, eventually } from "../helpers/api";
import { nextSignInMail, signInMails } from "../helpers/sign-in-mail";
import { callConfigured } from "../helpers/configured";
import { endWindow } from "../helpers/limits";
import { testClientKey } from "../helpers/client-address";

let n = 0;
const address = () => `rest${Date.now().toString(36)}${(n += 1)}@example.test`;
const used: string[] = [];
afterEach(async () => {
  for (const a of used.splice(0)) for (const key of [magicLinkLimitKey(a), magicLinkLimitKey(a, testClientKey(48)), ...signInAddressLimitKeys(a)]) await endWindow(key);
});

async function inbox(path: string): Promise<Array<{ headers: Record<string, string>; body: string }>> {
  return (await fetch(`${env.FAKES_URL}/inbox/${path}`)).json();
}

/** A deployment that sends email through the HTTP API (the loopback inbox). */
function deployed(environment: "staging" | "production", box: string): Partial<Env> {
  return {
    ENVIRONMENT: environment,
    EMAIL_API_URL: `${env.FAKES_URL}/inbox/${box}`,
    EMAIL_API_KEY: "test-email-key",
    EMAIL_FROM: "noreply@verify.example",
  };
}

describe("magic-link emails at rest", () => {
  it.each(["staging", "production"] as const)("in %s the stored copy has no link; the email carries it and it signs in", async (environment) => {
    const email = address();
    used.push(email);
    const box = `mlk-${crypto.randomUUID()}`;
    const sent = await callConfigured(deployed(environment, box), "/v1/auth/magic-link", { body: { email } });
    expect(sent.status).toBe(200);

    const stored = await nextSignInMail(email);
    expect(stored).toMatchObject({ channel: "email", status: "sent", provider: "http-email", subject: "Your sign-in link" });
    expect(stored!.body).toContain(REDACTED_LINK);
    expect(stored!.body).not.toMatch(/mlk_|\/v1\/auth\/magic-link\//);

    const [posted] = await eventually(async () => ((await inbox(box)).length > 0 ? inbox(box) : null), "the email at the provider");
    const text = (JSON.parse(posted!.body) as { to: string; text: string }).text;
    expect(JSON.parse(posted!.body)).toMatchObject({ to: email, subject: "Your sign-in link" });
    const token = /\/v1\/auth\/magic-link\/(mlk_[0-9A-Za-z]{43})/.exec(text)?.[1];
    expect(token).toBeDefined();

    // Nothing in D1 holds the token itself: the link row keeps its SHA-256 only.
    const dump = JSON.stringify([
      await db().select().from(magicLinks).where(eq(magicLinks.email, email)),
      await db().select().from(outboundMessages).where(eq(outboundMessages.recipient, email)),
    ]);
    expect(dump).not.toContain(token!);
    expect(await consumeMagicLink(db(), token!)).toBe(email);
  });

  it("local development keeps the link in the outbox (it is how a developer signs in)", async () => {
    const email = address();
    used.push(email);
    expect((await callConfigured({}, "/v1/auth/magic-link", { body: { email } })).status).toBe(200);
    const stored = await nextSignInMail(email);
    expect(stored).toMatchObject({ status: "recorded", provider: "local-outbox" });
    expect(stored!.body).toMatch(/http:\/\/localhost:8787\/v1\/auth\/magic-link\/mlk_[0-9A-Za-z]{43}/);
  });

  // Until 2026-12-06 the link was sent before the answer: a provider outage was a 500 where a sent
  // or capped request was 200 (and a capped one answered sooner: it skipped the write and the send).
  it("the answer does not wait for the email: a provider that fails is answered exactly as a sent email", async () => {
    const [ok, failing] = [address(), address()];
    used.push(ok, failing);
    const box = `mlk-${crypto.randomUUID()}`;
    const sent = await callConfigured(deployed("production", box), "/v1/auth/magic-link", { body: { email: ok } });
    const refused = await callConfigured(deployed("production", `${box}-down?fail=1`), "/v1/auth/magic-link", { body: { email: failing } });
    const answer = (res: { status: number; body: unknown; headers: Headers }) => ({ status: res.status, type: res.headers.get("Content-Type"), body: res.body });
    expect(answer(refused)).toEqual(answer(sent));
    expect(answer(sent)).toEqual({ status: 200, type: expect.stringMatching(/^application\/json/), body: { sent: true } });
    // (callConfigured waits for the work after the answer.) One email went out; the failing
    // provider's link is not kept, nor its email recorded as sent.
    expect(await inbox(box)).toHaveLength(1);
    expect(await db().select().from(magicLinks).where(eq(magicLinks.email, failing))).toEqual([]);
    expect(await signInMails(failing)).toEqual([]);
  });
});
