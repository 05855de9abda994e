import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { outboundMessages } from "../../src/db/schema";
import { notifyByEmail, sendTrialVerdict } from "../../src/domain/notifications/subscribers";
import { createVerification as createThroughService } from "../../src/domain/verification/service";
import { verificationObject } from "../../src/durable-objects/verification-client";
import type { DomainEvent } from "../../src/events/messages";
import { newId } from "../../src/lib/ids";
import { callJson, createVerification, db, eventually, seedTenant, withVision } from "../helpers/api";
import { proveDomain } from "../helpers/dns";
import { toBase64, uniqueJpeg, unreadableJpeg } from "../helpers/images";
import { signIn } from "../helpers/session";
import { waitFor } from "../helpers/wait";

// Verdicts whose screen check ran: one that evaluated nothing is announced as "not assessed" (texts.ts).
const SCREEN_CHECKED = (detected: boolean) => ({ screen_detection: { detected, confidence: 0.9 } });
const VERDICT = { label: "suspicious", score: 0.42, signals: SCREEN_CHECKED(true), reason_code: "screen_detected" };

async function captureOne(id: string): Promise<void> {
  expect((await callJson(`/v1/verifications/${id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()) } })).status).toBe(201);
}

async function complete(id: string, verdict: unknown = VERDICT): Promise<void> {
  await captureOne(id);
  expect((await verificationObject(env, id).complete(id, { verdict })).ok).toBe(true);
}

async function messagesOf(verificationId: string) {
  return db().select().from(outboundMessages).where(eq(outboundMessages.verificationId, verificationId));
}

async function waitForMessages(verificationId: string, count: number) {
  return waitFor(async () => {
    const rows = await messagesOf(verificationId);
    return rows.length >= count ? rows : undefined;
  }, { what: `${count} outbound messages` });
}

/**
 * Waits until the expiry alarm (armed by the events consumer, due after `expires_in_seconds`) has
 * moved the verification to expired. It fires on its own: running it by hand raced with that on a
 * loaded machine.
 */
async function expired(key: string, id: string): Promise<void> {
  await eventually(async () => (await callJson(`/v1/verifications/${id}`, { key })).body.status === "expired", "the expiry alarm");
}

/** A completed event of this verification, as the events queue would carry it (a fresh id). */
function completedEvent(verificationId: string, tenantId: string): DomainEvent {
  return { id: newId("event"), name: "verification.completed", verification_id: verificationId, tenant_id: tenantId, occurred_at: Date.now(), payload: null };
}

async function inbox(path: string): Promise<Array<{ headers: Record<string, string>; body: string }>> {
  return (await fetch(`${env.FAKES_URL}/inbox/${path}`)).json();
}

describe("notify_email", () => {
  it("emails a plain summary when the verification completes; the local outbox shows it; a redelivered event sends nothing", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, notify_email: "ops@acme.example", metadata: { claim: "CL-77" } });
    await complete(v.id);
    const [email] = await waitForMessages(v.id, 1);
    expect(email).toMatchObject({ channel: "email", recipient: "ops@acme.example", status: "recorded", provider: "local-outbox" });
    expect(email!.subject).toBe(`Verification ${v.id} completed: suspicious`);
    expect(email!.body).toContain("Verdict: suspicious (score 0.42)");
    expect(email!.body).toContain("Reason: the photo appears to show a screen");
    expect(email!.body).not.toContain("CL-77");
    expect(email!.body).toContain(`GET http://localhost:8787/v1/verifications/${v.id}`);

    const outbox = await callJson("/v1/dev/outbox");
    expect(outbox.body.items.find((m: any) => m.verification_id === v.id)).toMatchObject({ channel: "email", subject: email!.subject });

    const events = (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body.events;
    const completed = events.find((e: any) => e.event_name === "verification.completed");
    const redelivered: DomainEvent = { id: completed.event_id, name: completed.event_name, verification_id: v.id, tenant_id: t.id, occurred_at: Date.parse(completed.occurred_at), payload: null };
    expect(await notifyByEmail(env, db(), redelivered)).toBe(false);
    expect(await messagesOf(v.id)).toHaveLength(1);
  });

  it("emails when it expires or fails; nothing without notify_email", async () => {
    const t = await seedTenant();
    const failing = await createVerification(t.key, { max_captures: 1, notify_email: "ops@acme.example" });
    expect((await verificationObject(env, failing.id).fail(failing.id, "analysis_failed: evidence could not be analysed after retries")).ok).toBe(true);
    const expiring = await createVerification(t.key, { max_captures: 1, notify_email: "ops@acme.example", expires_in_seconds: 1 });
    await expired(t.key, expiring.id);
    const silent = await createVerification(t.key, { max_captures: 1 });
    await complete(silent.id);

    const [failedMail] = await waitForMessages(failing.id, 1);
    expect(failedMail!.subject).toBe(`Verification ${failing.id} failed`);
    expect(failedMail!.body).toContain("no verdict could be produced (analysis_failed).");
    const [expiredMail] = await waitForMessages(expiring.id, 1);
    expect(expiredMail!.subject).toBe(`Verification ${expiring.id} expired`);
    expect(expiredMail!.body).toContain("expired before its evidence was complete");
    expect(await notifyByEmail(env, db(), completedEvent(silent.id, t.id))).toBe(false);
    expect(await messagesOf(silent.id)).toHaveLength(0);
  });

  it("in production goes through the HTTP email API; a failed send is released for the retry", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1, notify_email: "ops@acme.example" });
    await complete(v.id, { label: "verified", score: 0.93, signals: SCREEN_CHECKED(false) });
    await waitForMessages(v.id, 1); // the local-outbox copy of the real event
    const box = `email-${crypto.randomUUID()}`;
    const production = { ...env, ENVIRONMENT: "production", EMAIL_API_KEY: "test-email-key", EMAIL_FROM: "noreply@verify.example" };
    const event = completedEvent(v.id, t.id);

    await expect(notifyByEmail({ ...production, EMAIL_API_URL: `${env.FAKES_URL}/inbox/${box}?fail=1` }, db(), event)).rejects.toThrow(/503/);
    expect(await messagesOf(v.id)).toHaveLength(1);

    expect(await notifyByEmail({ ...production, EMAIL_API_URL: `${env.FAKES_URL}/inbox/${box}` }, db(), event)).toBe(true);
    const [posted] = await inbox(box);
    expect(posted!.headers.authorization).toBe("Bearer test-email-key");
    expect(JSON.parse(posted!.body)).toMatchObject({ from: "noreply@verify.example", to: "ops@acme.example", subject: `Verification ${v.id} completed: verified` });
    const sent = (await messagesOf(v.id)).find((m) => m.dedupeKey === `email:${event.id}`);
    expect(sent).toMatchObject({ status: "sent", provider: "http-email" });
  });
});

describe("notify_email is no relay", () => {
  const PHISH = "URGENT: your account is locked, sign in at https://evil.example/login";

  it("carries none of the tenant's or the end user's text: metadata, context, step descriptions, failure details", async () => {
    const t = await seedTenant();
    const tenantText = {
      notify_email: "victim@example.org",
      metadata: { note: PHISH },
      context: { kind: "notice", summary: PHISH, attributes: { link: PHISH } },
      expected_object: PHISH,
      condition_aspects: ["evil.example"],
    };
    const completed = await createVerification(t.key, { steps: [{ key: "p", type: "image", description: PHISH, min: 1, max: 1 }], ...tenantText }, undefined, { env: withVision() });
    await captureOne(completed.id);
    expect((await verificationObject(env, completed.id).complete(completed.id, { verdict: VERDICT })).ok).toBe(true);
    const expiring = await createVerification(t.key, { max_captures: 1, expires_in_seconds: 1, ...tenantText }, undefined, { env: withVision() });
    const failing = await createVerification(t.key, { max_captures: 1, ...tenantText }, undefined, { env: withVision() });
    expect((await verificationObject(env, failing.id).fail(failing.id, `analysis_failed: ${PHISH}`)).ok).toBe(true);
    await expired(t.key, expiring.id);

    const mails = [
      ...(await waitForMessages(completed.id, 1)),
      ...(await waitForMessages(expiring.id, 1)),
      ...(await waitForMessages(failing.id, 1)),
    ];
    expect(mails.map((m) => m.recipient)).toEqual(["victim@example.org", "victim@example.org", "victim@example.org"]);
    for (const mail of mails) {
      expect(`${mail.subject}\n${mail.body}`).not.toMatch(/evil\.example|URGENT|locked/);
    }
    expect(mails[2]!.body).toContain(`Verification ${failing.id} failed: no verdict could be produced (analysis_failed).`);
  });
});

describe("who a notification says it is from", () => {
  it("names the tenant by its verified domain, else says it proved none; never by its display name", async () => {
    const t = await seedTenant("Allianz SE Claims: call +44 20 0000 0000 to confirm your payout");
    const plain = await createVerification(t.key, { max_captures: 1, notify_email: "ops@acme.example" });
    await complete(plain.id);
    const [unnamed] = await waitForMessages(plain.id, 1);
    expect(unnamed!.body).toContain(`Requested by: an account of this service that has proved no domain (tenant ${t.id}).`);
    expect(`${unnamed!.subject}\n${unnamed!.body}`).not.toMatch(/Allianz|payout|\+44/);

    const admin = await signIn(t.id, "admin");
    const domain = await proveDomain(admin.cookie);
    const named = await createVerification(t.key, { max_captures: 1, notify_email: "ops@acme.example" });
    await complete(named.id);
    const [mail] = await waitForMessages(named.id, 1);
    expect(mail!.body).toContain(`Requested by: ${domain} (a domain it proved it controls).`);
    expect(`${mail!.subject}\n${mail!.body}`).not.toMatch(/Allianz|payout|\+44/);
  });
});

describe("trial verdict over WhatsApp", () => {
  async function trialVerification(tenantId: string) {
    const outcome = await createThroughService(env, db(), {
      tenantId,
      input: { max_captures: 1, metadata: { origin_channel: "wa", source: "landing" } },
      originChannel: "wa",
    });
    if (outcome.kind !== "created") throw new Error("expected a new verification");
    return outcome.record.row;
  }

  it("a completed trial verification sends its verdict to the configured trial number; others send nothing", async () => {
    const t = await seedTenant();
    const trial = await trialVerification(t.id);
    await complete(trial.id, { label: "verified", score: 0.9, signals: SCREEN_CHECKED(false) });
    const [message] = await waitForMessages(trial.id, 1);
    expect(message).toMatchObject({ channel: "whatsapp", recipient: env.TRIAL_WHATSAPP_NUMBER, status: "recorded" });
    expect(message!.body).toBe(`Your photo verification is complete: VERIFIED (confidence 90%).\nReference: ${trial.id}`);

    const ordinary = await createVerification(t.key, { max_captures: 1 });
    await complete(ordinary.id);
    expect(await sendTrialVerdict(env, db(), completedEvent(ordinary.id, t.id))).toBe(false);
    expect(await messagesOf(ordinary.id)).toHaveLength(0);
  });

  it("a trial verification that fails (its only photo unreadable) says so instead of staying silent", async () => {
    const t = await seedTenant();
    const trial = await trialVerification(t.id);
    expect((await callJson(`/v1/verifications/${trial.id}/captures`, { body: { image_base64: toBase64(unreadableJpeg()) } })).status).toBe(201);
    const [message] = await waitForMessages(trial.id, 1);
    expect(message).toMatchObject({ channel: "whatsapp", recipient: env.TRIAL_WHATSAPP_NUMBER });
    expect(message!.body).toBe(
      `Your photo verification could not be completed: the photo could not be read as an image. Start a new one to try again with another photo.\nReference: ${trial.id}`,
    );
  });

  it("only the server-set trial origin sends: a tenant's metadata.origin_channel = wa does not", async () => {
    const t = await seedTenant();
    const lookalike = await createVerification(t.key, { max_captures: 1, metadata: { origin_channel: "wa", source: "landing" } });
    await complete(lookalike.id, { label: "verified", score: 0.9, signals: SCREEN_CHECKED(false) });
    expect(await sendTrialVerdict(env, db(), completedEvent(lookalike.id, t.id))).toBe(false);
    expect(await messagesOf(lookalike.id)).toHaveLength(0);
  });

  it("in production goes through the WhatsApp Cloud API", async () => {
    const t = await seedTenant();
    const trial = await trialVerification(t.id);
    await complete(trial.id);
    await waitForMessages(trial.id, 1);
    const api = `wa-${crypto.randomUUID()}`;
    const production = {
      ...env,
      ENVIRONMENT: "production",
      WHATSAPP_API_URL: `${env.FAKES_URL}/inbox/${api}`,
      WHATSAPP_PHONE_NUMBER_ID: "106540352242922",
      WHATSAPP_ACCESS_TOKEN: "test-wa-token",
    };
    expect(await sendTrialVerdict(production, db(), completedEvent(trial.id, t.id))).toBe(true);
    const [posted] = await inbox(`${api}/106540352242922/messages`);
    expect(posted!.headers.authorization).toBe("Bearer test-wa-token");
    expect(JSON.parse(posted!.body)).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "15550100999",
      type: "text",
      text: {
        preview_url: false,
        body: `Your photo verification is complete: SUSPICIOUS (confidence 42%). Why: the photo appears to show a screen rather than the real scene.\nReference: ${trial.id}`,
      },
    });
  });
});
