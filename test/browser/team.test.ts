import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { Page } from "playwright-core";
import { openConsole, shoot, signInAsDev, tabTo, type ConsoleBrowser } from "./helpers/console";
import { emailsTo, linkInOutbox } from "./helpers/outbox";

/*
 * The team, as its people use it in Chromium (issue 24): the owner invites a colleague from the Team
 * screen; the colleague, who already has an organisation of their own, follows the email's link,
 * confirms, and joins at their own next sign-in (the link signs nobody in); the owner changes their role and reads the audit log; the colleague switches between their
 * organisations and sees only the controls their role may use. No header or cookie is set by hand.
 * Screenshots at 1440×900 and 390×844 (test-results/console/), axe on each.
 */

let owner: ConsoleBrowser;
let colleague: ConsoleBrowser;

beforeAll(async () => {
  owner = await openConsole();
  colleague = await openConsole();
});

afterAll(async () => {
  await owner?.close();
  await colleague?.close();
});

async function signInByMagicLink(page: Page, address: string): Promise<void> {
  await page.goto(`${inject("baseUrl")}/console/sign-in`);
  await page.getByLabel("Work email").fill(address);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await page.getByText("a link is on its way").waitFor();
  await page.goto(await linkInOutbox(address, /\/v1\/auth\/magic-link\//));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Verifications" }).waitFor();
}

const nav = (page: Page) => page.getByRole("navigation", { name: "Console" });

describe("the team in Chromium", () => {
  it("invite, join by the email's link, change the role, read the audit log, switch organisations", async () => {
    const base = inject("baseUrl");
    // The colleague's own organisation is named after the address: a long name, for the switcher.
    const address = `colleague-with-a-long-organisation-name-${Date.now().toString(36)}@example.test`;

    // The colleague has an organisation of their own already.
    await signInByMagicLink(colleague.page, address);
    expect(await nav(colleague.page).getByRole("link", { name: "Audit log" }).count()).toBe(1); // its owner

    // The owner invites them from the Team screen.
    const { page } = owner;
    await signInAsDev(page);
    await nav(page).getByRole("link", { name: "Team" }).click();
    await page.getByRole("heading", { level: 1, name: "Team" }).waitFor();
    await page.getByLabel("Email").fill(address);
    await page.getByLabel("Role", { exact: true }).selectOption("reviewer");
    await page.getByRole("button", { name: "Send invitation" }).click();
    const invitations = page.getByRole("region", { name: "Invitations" });
    await invitations.getByRole("row").filter({ hasText: address }).getByText(/pending until/).waitFor();
    await shoot(owner, "15-team");

    // The email, read from the outbox over HTTP: fixed wording naming the inviter's address, never the display name.
    const [mail] = await emailsTo(address);
    expect(mail!.subject).toBe("dev@localhost invited you to the verification dashboard");
    expect(mail!.body).toContain("dev@localhost invited you to join their team on the verification dashboard, as a reviewer.");
    expect(`${mail!.subject}${mail!.body}`).not.toContain("Dev Tenant");

    // The colleague, signed out, follows the link: they already have an account, so confirming signs nobody in...
    await colleague.page.getByRole("button", { name: "Sign out" }).click();
    await colleague.page.waitForURL(/\/console\/sign-in/);
    await colleague.page.goto(await linkInOutbox(address, /\/v1\/auth\/invitation\/ivt_/));
    await colleague.page.getByRole("heading", { name: "Join a team" }).waitFor();
    await colleague.page.getByText(`${address} already has an account: confirm here, then sign in as you usually do`).waitFor();
    const confirmed = colleague.page.waitForResponse((r) => r.url().includes("/v1/auth/invitation/") && r.request().method() === "POST");
    await colleague.page.getByRole("button", { name: "Join", exact: true }).click();
    const confirmation = await confirmed;
    expect(confirmation.status()).toBe(200);
    expect(await confirmation.headerValue("set-cookie")).toBeNull();
    await colleague.page.getByRole("heading", { name: "Sign in as you usually do to join" }).waitFor();
    await shoot(colleague, "15c-invitation-confirmed");
    // ...and their own sign-in adds the team, landing where they always land (their own organisation).
    await colleague.page.getByRole("button", { name: "Go to the sign-in page" }).click();
    await signInByMagicLink(colleague.page, address);
    await colleague.page.locator(".topbar .brand").getByText(address.split("@")[0]!).waitFor();
    // A second tab of theirs, on their own organisation's settings.
    const secondTab = await colleague.context.newPage();
    await secondTab.goto(`${base}/console/settings`);
    await secondTab.locator(".topbar .brand").getByText(address.split("@")[0]!).waitFor();
    const devTenant = colleague.page.getByLabel("Organisation").locator("option", { hasText: "(reviewer)" });
    await colleague.page.getByLabel("Organisation").selectOption((await devTenant.getAttribute("value"))!);
    await colleague.page.getByRole("button", { name: "Switch" }).click();
    await colleague.page.getByRole("heading", { level: 1, name: "Verifications" }).waitFor();
    await colleague.page.locator(".topbar .brand").getByText("Dev Tenant").waitFor();
    // The session is shared: the other tab follows instead of showing their own organisation's name
    // over Dev Tenant's data (settings probe of 2026-12-04: a key minted there went to Dev Tenant).
    await secondTab.locator(".topbar .brand").getByText("Dev Tenant").waitFor({ timeout: 10_000 });
    await secondTab.close();
    // A reviewer creates verifications but sees no audit log; the switcher offers both organisations.
    await nav(colleague.page).getByRole("link", { name: "New verification" }).waitFor();
    expect(await nav(colleague.page).getByRole("link", { name: "Audit log" }).count()).toBe(0);
    expect(await colleague.page.getByLabel("Organisation").locator("option").count()).toBe(2);
    await nav(colleague.page).getByRole("link", { name: "Developers" }).click();
    await colleague.page.getByText("API keys, the webhook secret and test events are for admins and owners.").waitFor();
    expect(await colleague.page.getByRole("button", { name: "Create key" }).count()).toBe(0);
    await shoot(colleague, "16-developers-as-reviewer");

    // The owner sees the new member and makes them a viewer.
    await page.reload();
    const row = page.getByRole("region", { name: "Members" }).getByRole("row").filter({ hasText: address });
    await row.getByText("Reviewer").waitFor();
    expect(await invitations.getByRole("row").filter({ hasText: address }).count()).toBe(0);
    await row.getByRole("button", { name: `Change role of ${address}` }).click();
    const dialog = page.getByRole("dialog", { name: `Role of ${address}` });
    await dialog.getByLabel(/^Viewer/).check();
    await shoot(owner, "15b-team-change-role");
    await dialog.getByRole("button", { name: "Save role" }).click();
    await row.getByText("Viewer").waitFor();

    // As a viewer the colleague no longer gets the controls to create or review.
    await colleague.page.goto(`${base}/console/verifications`);
    await colleague.page.getByRole("heading", { level: 1, name: "Verifications" }).waitFor();
    expect(await nav(colleague.page).getByRole("link", { name: "New verification" }).count()).toBe(0);
    expect(await colleague.page.getByRole("link", { name: "New verification" }).count()).toBe(0);
    await nav(colleague.page).getByRole("link", { name: "Team" }).click();
    await colleague.page.getByRole("heading", { level: 1, name: "Team" }).waitFor();
    expect(await colleague.page.getByRole("button", { name: "Send invitation" }).count()).toBe(0);
    expect(await colleague.page.getByRole("button", { name: /^Change role/ }).count()).toBe(0);
    await shoot(colleague, "17-team-as-viewer");
    // A screen above the role keeps its heading (focus and the outline need one) and says why it is
    // empty (probe of 2026-12-04: a notice alone, no level-one heading).
    for (const [path, heading, notice] of [
      ["/console/audit-log", "Audit log", "The audit log needs the admin role or higher."],
      ["/console/verifications/new", "New verification", "Creating verifications needs the reviewer role or higher."],
    ] as const) {
      await colleague.page.goto(`${base}${path}`);
      await colleague.page.getByRole("heading", { level: 1, name: heading }).waitFor();
      await colleague.page.getByText(notice).waitFor();
    }

    // The audit log: who did what, from where; filtered to the role change.
    await nav(page).getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("heading", { level: 1, name: "Audit log" }).waitFor();
    const log = page.getByRole("table", { name: "Audit log entries, newest first" });
    await log.getByRole("row").filter({ hasText: "Joined the team" }).filter({ hasText: address }).waitFor();
    await log.getByRole("row").filter({ hasText: "Invited a member" }).filter({ hasText: "dev@localhost" }).waitFor();
    await shoot(owner, "18-audit-log");
    await page.getByLabel("Action").selectOption("member.role_changed");
    await page.waitForURL(/\/console\/audit-log\?action=member.role_changed$/);
    await log.getByRole("row").filter({ hasText: "Joined the team" }).first().waitFor({ state: "detached" });
    await log.getByRole("row").filter({ hasText: "Changed a member's role" }).filter({ hasText: "reviewer → viewer" }).first().waitFor();

    // The colleague switches back to their own organisation, where they are the owner.
    // Each organisation's name is a bidi isolate in its option (FSI … PDI): a name cannot reorder the role after it.
    // A long name is shortened, so every option's role shows whole in the select (it cannot wrap).
    const ownName = address.split("@")[0]!;
    await colleague.page.getByLabel("Organisation").selectOption({ label: `\u2068${ownName.slice(0, 23)}…\u2069 (owner)` });
    const switcher = colleague.page.getByLabel("Organisation");
    expect(await switcher.locator("option", { hasText: "(owner)" }).getAttribute("title")).toBe(ownName);
    const room = await switcher.evaluate((select: HTMLSelectElement) => {
      const style = getComputedStyle(select);
      const pen = document.createElement("canvas").getContext("2d")!;
      pen.font = style.font;
      const widest = Math.max(...Array.from(select.options, (o) => pen.measureText(o.text).width));
      // What the select shows of its text: its width less padding, border and the arrow (about 1.5em).
      const inner = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 1.5 * parseFloat(style.fontSize);
      return { widest, inner };
    });
    expect(room.widest).toBeLessThanOrEqual(room.inner);
    await shoot(colleague, "19-tenant-switcher");
    await colleague.page.getByRole("button", { name: "Switch" }).click();
    await colleague.page.getByRole("heading", { level: 1, name: "Verifications" }).waitFor();
    await colleague.page.locator(".topbar .brand").getByText(address.split("@")[0]!).waitFor();
    await nav(colleague.page).getByRole("link", { name: "Audit log" }).waitFor();

    // In their own organisation: settings changed and a domain claimed read in the settings screen's
    // words on the audit log (browser probe of 2026-12-07: "changed: ai detection provider null", and
    // a domain labelled "tenant").
    const mine = colleague.page;
    await nav(mine).getByRole("link", { name: "Settings" }).click();
    const keep = mine.getByLabel("Keep evidence for (days)");
    for (const days of ["30", ""]) {
      await keep.fill(days);
      const saved = mine.waitForResponse((r) => r.url().endsWith("/v1/tenant/settings") && r.request().method() === "PATCH");
      await mine.getByRole("button", { name: "Save", exact: true }).click();
      expect((await saved).status()).toBe(200);
    }
    await mine.getByLabel("Domain to prove").fill("acme-insurance.example");
    await mine.getByRole("button", { name: "Get the TXT record" }).click();
    await mine.getByRole("group", { name: "TXT record for acme-insurance.example" }).waitFor();
    await nav(mine).getByRole("link", { name: "Audit log" }).click();
    const ownLog = mine.getByRole("table", { name: "Audit log entries, newest first" });
    await ownLog.getByRole("row").filter({ hasText: "Changed the settings" }).filter({ hasText: "keep evidence: 30 days" }).waitFor();
    await ownLog.getByRole("row").filter({ hasText: "Changed the settings" }).filter({ hasText: "keep evidence: everything" }).waitFor();
    const claimed = ownLog.getByRole("row").filter({ hasText: "Started proving a domain" });
    await claimed.getByText("domain", { exact: true }).waitFor();
    expect(await ownLog.getByText(/null/).count()).toBe(0);

    // The same with the keyboard alone: the role dialog opens, arrows pick, Tab reaches Save.
    await nav(page).getByRole("link", { name: "Team" }).click();
    await page.getByRole("heading", { level: 1, name: "Team" }).waitFor();
    await tabTo(page, "button", `Change role of ${address}`);
    await page.keyboard.press("Enter");
    const keyboardDialog = page.getByRole("dialog", { name: `Role of ${address}` });
    await keyboardDialog.waitFor();
    await keyboardDialog.getByLabel(/^Viewer/).focus();
    await page.keyboard.press("ArrowDown");
    expect(await keyboardDialog.getByLabel(/^Reviewer/).isChecked()).toBe(true);
    await tabTo(page, "button", "Save role", 5);
    await page.keyboard.press("Enter");
    await keyboardDialog.waitFor({ state: "hidden" });
    await page.getByRole("region", { name: "Members" }).getByRole("row").filter({ hasText: address }).getByText("Reviewer").waitFor();

    // Resend and revoke an invitation.
    const other = `second-${address}`;
    await page.getByLabel("Email").fill(other);
    await page.getByRole("button", { name: "Send invitation" }).click();
    const pending = invitations.getByRole("row").filter({ hasText: other });
    await pending.getByRole("button", { name: `Resend to ${other}` }).click();
    await pending.getByText("(2 times)").waitFor();
    await pending.getByRole("button", { name: `Revoke the invitation to ${other}` }).click();
    await page.getByRole("dialog", { name: `Revoke the invitation to ${other}?` }).getByRole("button", { name: "Revoke the invitation" }).click();
    await pending.waitFor({ state: "detached" });

    // Removing the colleague ends their session in Dev Tenant at once (they are back in their own).
    const member = page.getByRole("region", { name: "Members" }).getByRole("row").filter({ hasText: address });
    await member.getByRole("button", { name: `Remove ${address}` }).click();
    await page.getByRole("dialog", { name: `Remove ${address} from the team?` }).getByRole("button", { name: "Remove from the team" }).click();
    await member.waitFor({ state: "detached" });

    expect(owner.accessibility).toEqual([]);
    expect(colleague.accessibility).toEqual([]);
  }, 240_000);
});
