import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { freePort } from "../../scripts/local-worker.mjs";
import { openConsole, shoot, signInAsDev, type ConsoleBrowser } from "./helpers/console";
import { linkInOutbox } from "./helpers/outbox";

/*
 * Sign-in as a person does it, in Chromium: no header and no cookie is set by hand. The browser
 * decides what `Origin` and `Sec-Fetch-Site` it sends (after the confirmation page's
 * `Referrer-Policy: no-referrer`, its form POST carries `Origin: null`).
 */

let ui: ConsoleBrowser;
/** Another origin on this machine, serving pages that try to act on the service (`/attack?…`). */
let attacker: { server: Server; port: number };

beforeAll(async () => {
  ui = await openConsole();
  const port = await freePort();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://attacker");
    const target = url.searchParams.get("post") ?? "";
    // A page that POSTs a form to the service as soon as it loads: the classic forged request, empty
    // or (`field=1`) carrying a field, so its body is form-encoded.
    const field = url.searchParams.get("field") ? '<input name="prize" value="1">' : "";
    res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>Win a prize</title>
<form id="f" method="post" action="${target.replaceAll('"', "&quot;")}">${field}</form><script>document.getElementById("f").submit()</script>`);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  attacker = { server, port };
});

afterAll(async () => {
  await ui?.close();
  await new Promise((resolve) => attacker?.server.close(resolve));
});

describe("sign-in in Chromium", () => {
  it("by magic link: the console's form, the email in the outbox, the confirmation page's button, the console", async () => {
    const { page } = ui;
    const address = `magic-${Date.now().toString(36)}@example.test`;
    await page.goto(`${inject("baseUrl")}/console/settings`);
    await page.waitForURL(/\/console\/sign-in\?return_to=%2Fconsole%2Fsettings$/);
    await page.getByLabel("Work email").fill(address);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByText("a link is on its way").waitFor();

    await page.goto(await linkInOutbox(address, /\/v1\/auth\/magic-link\/mlk_/));
    await page.getByText(`You are signing in as ${address}.`).waitFor();
    const posted = page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes("/v1/auth/magic-link/"));
    await page.getByRole("button", { name: "Sign in" }).click();
    const answer = await posted;
    // What the browser itself sent with the form: the failing test says why.
    const sent = await answer.request().allHeaders();
    expect(answer.status(), `sent origin=${sent.origin} sec-fetch-site=${sent["sec-fetch-site"]}: ${await answer.text().catch(() => "")}`).toBe(303);
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/settings");
    await page.locator(".topbar").getByText(address).waitFor();
  });

  it("refuses a form another origin's page posts with the person's cookie, and a sign-in link posted from another site", async () => {
    const base = inject("baseUrl");
    const { page } = ui; // signed in by the test above
    await page.goto(`${base}/console/settings`);
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();

    // A sibling origin (same host, another port: same-site, so the SameSite=Lax cookie rides along),
    // with an empty form and with a form-encoded field: refused as cross-origin either way, never
    // told to send JSON instead.
    for (const field of ["", "&field=1"]) {
      const forged = page.waitForResponse((r) => r.url() === `${base}/v1/auth/logout-everywhere`);
      await page.goto(`http://127.0.0.1:${attacker.port}/attack?post=${encodeURIComponent(`${base}/v1/auth/logout-everywhere`)}${field}`);
      const refused = await forged;
      const sent = await refused.request().allHeaders();
      expect(sent["sec-fetch-site"]).toBe("same-site");
      expect(sent.cookie ?? "").toMatch(/svc_session=/);
      expect(refused.status(), field).toBe(403);
      expect(JSON.parse(await refused.text())).toMatchObject({ error: { code: "forbidden", message: expect.stringMatching(/^Cross-origin request refused/) } });
    }
    await page.goto(`${base}/console/settings`);
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor(); // still signed in

    // Login CSRF: an attacker's own sign-in link, posted by their page on another site, signs nobody in.
    const attackerAddress = `attacker-${Date.now().toString(36)}@example.test`;
    const asked = await fetch(`${base}/v1/auth/magic-link`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email: attackerAddress }) });
    expect(asked.status).toBe(200);
    await asked.text();
    const link = await linkInOutbox(attackerAddress, /\/v1\/auth\/magic-link\/mlk_/);
    const victim = await ui.browser.newContext();
    try {
      const tab = await victim.newPage();
      for (const field of ["", "&field=1"]) {
        const posted = tab.waitForResponse((r) => r.url() === link && r.request().method() === "POST");
        await tab.goto(`http://localhost:${attacker.port}/attack?post=${encodeURIComponent(link)}${field}`);
        const answer = await posted;
        expect((await answer.request().allHeaders())["sec-fetch-site"]).toBe("cross-site");
        expect(answer.status(), field).toBe(403);
        await answer.text();
      }
      expect((await victim.cookies()).map((c) => c.name)).not.toContain("svc_session");
    } finally {
      await victim.close();
    }
    // The link is still unspent: its owner's own click would work.
    const page2 = await fetch(link);
    expect(page2.status).toBe(200);
    await page2.text();
  });

  it("by single sign-on: the identity provider on another origin sends the browser back to the OAuth callback, which signs in", async () => {
    const base = inject("baseUrl");
    const context = await ui.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${base}/console/templates`);
      await page.waitForURL(/\/console\/sign-in/);
      const callback = page.waitForResponse((r) => r.url().startsWith(`${base}/v1/auth/oidc/callback`));
      await page.getByRole("link", { name: "Continue with single sign-on" }).click();
      const answer = await callback;
      // A top-level navigation back from the provider's origin: the flow cookie rode it, the session was set.
      expect((await answer.request().allHeaders())["sec-fetch-site"]).not.toBe("same-origin");
      expect(answer.status()).toBe(303);
      await page.getByRole("heading", { level: 1, name: "Link templates" }).waitFor();
      expect((await context.cookies(base)).map((c) => c.name)).toContain("svc_session");
    } finally {
      await context.close();
    }
  });

  // A CI run of 2026-12-07: the session ended at the service before the sign-out's answer reached
  // the page, a read refused in between took the operator to the bare sign-in page, without the notice.
  it("a read refused while the sign-out's answer is on its way leads nowhere else: the sign-in page says they are signed out", async () => {
    const base = inject("baseUrl");
    const context = await ui.browser.newContext();
    try {
      const page = await context.newPage();
      await signInAsDev(page);
      let ended!: () => void;
      const sessionEnded = new Promise<void>((resolve) => (ended = resolve));
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      await page.route(`${base}/v1/auth/logout`, async (route) => {
        const response = await route.fetch();
        ended();
        await answered;
        await route.fulfill({ response });
      });
      const refused = page.waitForResponse((r) => r.url() === `${base}/v1/me` && r.status() === 401);
      await page.getByRole("button", { name: "Sign out" }).click();
      await sessionEnded;
      // The operator comes back to the tab: the console reads who is signed in, and the service refuses.
      await page.evaluate(() => window.dispatchEvent(new Event("focus")));
      await refused;
      answer();
      await page.waitForURL(/\/console\/sign-in\?signed_out=everywhere$/);
      await page.getByText("You are signed out here and on every other device where you were signed in.").waitFor();
    } finally {
      await context.close();
    }
  });

  it("signs out from the console: the browser's session no longer opens it", async () => {
    const base = inject("baseUrl");
    const context = await ui.browser.newContext();
    try {
      const page = await context.newPage();
      await signInAsDev(page);
      const loggedOut = page.waitForResponse((r) => r.url() === `${base}/v1/auth/logout` && r.request().method() === "POST");
      await page.getByRole("button", { name: "Sign out" }).click();
      expect((await loggedOut).status()).toBe(200);
      await page.waitForURL(/\/console\/sign-in\?signed_out=everywhere$/);
      // It ends every session of the user, not only this browser's: the page says so.
      await page.getByText("You are signed out here and on every other device where you were signed in.").waitFor();
      await shoot(ui, "signed-out", page);
      expect(ui.accessibility).toEqual([]);
      await page.goto(`${base}/console/settings`);
      await page.waitForURL(/\/console\/sign-in\?return_to=%2Fconsole%2Fsettings$/);
    } finally {
      await context.close();
    }
  });
});
