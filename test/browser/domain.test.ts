import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { checkedFetch, tenantClient } from "./helpers/api";
import { jpegFromPage } from "./helpers/browser";
import { CONSOLE_SHOTS, openConsole, shoot, signInAsDev, type ConsoleBrowser } from "./helpers/console";
import { publishTxt } from "./helpers/dns";
import { emailsTo } from "./helpers/outbox";

/*
 * A tenant proves a domain in Chromium (issue 33): the owner asks the Settings screen for the TXT
 * record, publishes it (at the loopback DNS resolver the Worker asks over DNS over HTTPS), checks it;
 * from then on the certificate page names the tenant by that domain, and invitation emails (read from
 * the dev outbox over HTTP) name it too, never by its display name. The owner then stops using the
 * domain, which leaves the dev tenant as the other files expect it. Screenshots in test-results/console/.
 */

let owner: ConsoleBrowser;
const tenant = tenantClient();

beforeAll(async () => {
  owner = await openConsole();
});

afterAll(async () => {
  await owner?.close();
});

describe("a verified domain in Chromium", () => {
  it("the settings screen proves the domain; the certificate page and the invitation email name it", async () => {
    const base = inject("baseUrl");
    const { page } = owner;
    // Typed in its own letters; the console sends (and the record names) its xn-- form.
    const typed = `bücher-${Date.now().toString(36)}.example`;
    const domain = new URL(`http://${typed}`).hostname;
    expect(domain).toMatch(/^xn--bcher-/);
    await signInAsDev(page);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Settings" }).click();
    const section = page.getByRole("region", { name: "Verified domain" });
    await section.getByLabel("Domain to prove").fill(typed);
    await section.getByRole("button", { name: "Get the TXT record" }).click();
    const record = section.getByRole("group", { name: `TXT record for ${domain}` });
    await record.locator("dd code").first().waitFor();
    const codes = await record.locator("dd code").allTextContents();
    const name = codes[0]!;
    const value = codes[2]!;
    expect(name).toBe(`_verification-service.${domain}`);
    expect(value).toMatch(/^verification-service-domain=[0-9A-Za-z]{43}$/);
    // Not published yet: the check says so, and nothing is verified.
    await section.getByRole("button", { name: "Check the record" }).click();
    await section.getByText(`No TXT record at ${name}`).waitFor();
    await shoot(owner, "20-settings-domain-claim");
    await publishTxt(name, [value]);
    await section.getByRole("button", { name: "Check the record" }).click();
    await section.getByText(`${domain}`, { exact: true }).waitFor();
    await section.getByText(/is verified/).waitFor();
    await shoot(owner, "21-settings-domain-verified");

    // A certificate signed now names the domain; the page says what that means.
    const photo = await jpegFromPage(page, "#1565c0");
    const v = await tenant.createVerification({ max_captures: 1, signals_required: ["screen"] });
    const captured = await checkedFetch(
      new Request(`${base}/v1/verifications/${v.id}/captures`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ image_base64: photo.toString("base64") }) }),
    );
    expect(captured.status).toBe(201);
    await captured.text();
    const done = await tenant.waitForVerification(v.id, { until: (x) => x.verdict !== undefined, intervalMs: 500, timeoutMs: 60_000 });
    expect(done.status).toBe("completed");
    const link = await checkedFetch(new Request(`${base}/v1/verifications/${v.id}/certificate-link`, { method: "POST", headers: { Authorization: `Bearer ${inject("apiKey")}` } }));
    expect(link.status).toBe(201);
    const { url, certificate } = (await link.json()) as { url: string; certificate: { payload: { verification: { tenant: Record<string, string> } } } };
    expect(certificate.payload.verification.tenant).toMatchObject({ verified_domain: domain, id: expect.stringMatching(/^tnt_/) });
    const viewer = await owner.context.newPage();
    await viewer.goto(url);
    await viewer.getByRole("heading", { level: 1, name: `Verified: verification for ${domain}` }).waitFor();
    await viewer.getByText(/a domain the requester proved it controls \(DNS record checked by the issuer\)/).waitFor();
    expect(await viewer.getByText(/as declared by the tenant/).count()).toBe(0);
    await viewer.screenshot({ path: path.join(CONSOLE_SHOTS, "22-certificate-verified-domain.png"), fullPage: true });
    await viewer.close();

    // An invitation from the Team screen names the domain (the email, from the outbox over HTTP).
    const invitee = `domain-invitee-${Date.now().toString(36)}@example.test`;
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Team" }).click();
    await page.getByLabel("Email").fill(invitee);
    await page.getByRole("button", { name: "Send invitation" }).click();
    const [mail] = await emailsTo(invitee);
    expect(mail!.subject).toBe(`Join the team of ${domain} on the verification dashboard`);
    expect(mail!.body).toContain(`invited you to join the team of ${domain} (a domain it proved it controls)`);
    expect(`${mail!.subject}${mail!.body}`).not.toContain("Dev Tenant");
    const pending = page.getByRole("region", { name: "Invitations" }).getByRole("row").filter({ hasText: invitee });
    await pending.getByRole("button", { name: `Revoke the invitation to ${invitee}` }).click();
    await page.getByRole("dialog", { name: `Revoke the invitation to ${invitee}?` }).getByRole("button", { name: "Revoke the invitation" }).click();
    await pending.waitFor({ state: "detached" });

    // The owner stops using the domain.
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Settings" }).click();
    await section.getByRole("button", { name: `Stop using ${domain}` }).click();
    await page.getByRole("dialog", { name: `Stop using ${domain}?` }).getByRole("button", { name: "Stop using the domain" }).click();
    await section.getByText(/is verified/).waitFor({ state: "detached" });
    const after = await checkedFetch(new Request(`${base}/v1/verifications/${v.id}/certificate`, { headers: { Authorization: `Bearer ${inject("apiKey")}` } }));
    // The proof lapsed: the certificate served from now on no longer names the domain (issue 42: a
    // stored certificate is kept for its content, so it is signed again without it).
    const reissued = ((await after.json()) as typeof certificate).payload.verification.tenant;
    expect(reissued.verified_domain).toBeUndefined();
    expect(reissued.id).toBe(certificate.payload.verification.tenant.id);
    expect(owner.accessibility).toEqual([]);
  }, 240_000);
});
