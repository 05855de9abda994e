import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { keyedApi } from "./helpers/api";
import { openConsole, shoot, signInAsDev, type ConsoleBrowser } from "./helpers/console";

/*
 * Editing a link template in the console publishes what the operator changed, nothing more
 * (docs/console.md, "Link templates"). The API presents a template with what it leaves to the
 * deployment filled in (its default checks, expiry, seal); a form that sent all of it back would pin
 * them, and a rename would turn a template that follows the deployment's default checks into one
 * requiring a fixed set (a signal the deployment later cannot assess would then stop its link).
 * Screenshot: test-results/console/template-defaults-*.png.
 */

let ui: ConsoleBrowser;

beforeAll(async () => {
  ui = await openConsole();
});

afterAll(async () => {
  await ui?.close();
});

describe("console: editing a link template", () => {
  it("a rename sends the name only, and the template keeps following the deployment's default checks", async () => {
    const { page } = ui;
    const slug = `defaults-${Date.now().toString(36)}`;
    const published = await keyedApi("/v1/link-templates", { method: "POST", body: JSON.stringify({ slug, name: "Follows the defaults", max_captures: 1 }) });
    expect(published.status).toBe(201);
    expect(published.body.signals_default).toBeDefined();

    const sent: unknown[] = [];
    page.on("request", (request) => {
      if (request.method() === "PATCH" && new URL(request.url()).pathname === `/v1/link-templates/${slug}`) sent.push(request.postDataJSON());
    });
    await signInAsDev(page);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Link templates" }).click();
    await page.getByRole("button", { name: "Edit Follows the defaults" }).click();
    await page.getByText("This deployment's default checks: the template follows them as they change").waitFor();
    // The form is in the URL: a reload keeps it, Back leaves it for the list (console probe of
    // 2026-12-07: a reload lost it, Back left the console's page altogether).
    expect(new URL(page.url()).search).toBe(`?edit=${slug}`);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Edit “Follows the defaults”" }).waitFor();
    await page.goBack();
    await page.getByRole("heading", { level: 1, name: "Link templates" }).waitFor();
    await page.goForward();
    await page.getByText("This deployment's default checks: the template follows them as they change").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Renamed, still the defaults");
    await shoot(ui, "template-defaults-renamed");
    await page.getByRole("button", { name: "Publish version 2" }).click();
    const row = page.getByRole("row").filter({ hasText: "Renamed, still the defaults" });
    await row.getByText("v2", { exact: true }).waitFor();
    expect(new URL(page.url()).search).toBe("");

    expect(sent).toEqual([{ name: "Renamed, still the defaults" }]);
    const template = await keyedApi(`/v1/link-templates/${slug}`);
    expect(template.body).toMatchObject({ version: 2, name: "Renamed, still the defaults" });
    expect(template.body.signals_default).toBeDefined();
    // A verification started from the link (version 2) got the deployment's default checks, and says so.
    const started = page.waitForEvent("popup");
    await row.getByRole("link", { name: /Start one/ }).click();
    const capturePage = await started;
    await capturePage.waitForURL(/\/c\/vfy_[0-9A-Z]{26}$/);
    const id = new URL(capturePage.url()).pathname.split("/").pop()!;
    await capturePage.close();
    // Back on the console's tab, the template's count includes it without a reload (console probe of
    // 2026-12-07: it stayed at its old count). Headless Chromium sends no focus on a tab switch.
    await page.bringToFront();
    await page.evaluate(() => window.dispatchEvent(new FocusEvent("focus")));
    await row.getByText("1 total, 1 today").waitFor({ timeout: 10_000 });
    const verification = await keyedApi(`/v1/verifications/${id}`);
    expect(verification.body.config.signals_default).toBeDefined();
    expect(verification.body.config.signals_required).toEqual(published.body.signals_required);
    expect(ui.accessibility).toEqual([]);
  });

  it("an edit saved after a colleague published a newer version sends this operator's change only", async () => {
    const { page } = ui;
    const slug = `raced-${Date.now().toString(36)}`;
    expect((await keyedApi("/v1/link-templates", { method: "POST", body: JSON.stringify({ slug, name: "Raced", max_captures: 1 }) })).status).toBe(201);
    const sent: unknown[] = [];
    page.on("request", (request) => {
      if (request.method() === "PATCH" && new URL(request.url()).pathname === `/v1/link-templates/${slug}`) sent.push(request.postDataJSON());
    });
    // Signed in by the first test.
    await page.goto(`${inject("baseUrl")}/console/templates?edit=${slug}`);
    await page.getByRole("heading", { level: 1, name: "Edit “Raced”" }).waitFor();
    // Meanwhile a colleague shortens the link's life; the operator comes back to the tab, which reads
    // the list again, and renames.
    expect((await keyedApi(`/v1/link-templates/${slug}`, { method: "PATCH", body: JSON.stringify({ expires_in_seconds: 3600 }) })).status).toBe(200);
    const reread = page.waitForResponse((r) => new URL(r.url()).pathname === "/v1/link-templates" && r.request().method() === "GET");
    await page.evaluate(() => window.dispatchEvent(new FocusEvent("focus")));
    await reread;
    await page.getByLabel("Name", { exact: true }).fill("Raced, renamed");
    await page.getByRole("button", { name: "Publish version 2" }).click();
    await page.getByRole("row").filter({ hasText: "Raced, renamed" }).getByText("v3", { exact: true }).waitFor();
    expect(sent).toEqual([{ name: "Raced, renamed" }]);
    expect((await keyedApi(`/v1/link-templates/${slug}`)).body).toMatchObject({ version: 3, name: "Raced, renamed", expires_in_seconds: 3600 });
    expect(ui.accessibility).toEqual([]);
  });

  it("a template whose checks were fixed can be set back to the deployment's defaults", async () => {
    const { page } = ui;
    const slug = `pinned-${Date.now().toString(36)}`;
    const published = await keyedApi("/v1/link-templates", { method: "POST", body: JSON.stringify({ slug, name: "Screen only", max_captures: 1, signals_required: ["screen"] }) });
    expect(published.status).toBe(201);
    expect(published.body.signals_default).toBeUndefined();
    const sent: unknown[] = [];
    page.on("request", (request) => {
      if (request.method() === "PATCH" && new URL(request.url()).pathname === `/v1/link-templates/${slug}`) sent.push(request.postDataJSON());
    });
    // Signed in by the test above. A form for a template the tenant does not have says so.
    await page.goto(`${inject("baseUrl")}/console/templates?edit=no-such-${slug}`);
    await page.getByText("No template of this tenant has that link name.").waitFor();
    await page.goto(`${inject("baseUrl")}/console`);
    await page.getByRole("heading", { level: 1, name: "Verifications" }).waitFor();
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Link templates" }).click();
    await page.getByRole("button", { name: "Edit Screen only" }).click();
    await page.getByRole("button", { name: "Use this deployment's default checks" }).click();
    await page.getByText("This deployment's default checks: the template follows them as they change").waitFor();
    await shoot(ui, "template-back-to-defaults");
    await page.getByRole("button", { name: "Publish version 2" }).click();
    await page.getByRole("row").filter({ hasText: "Screen only" }).getByText("v2", { exact: true }).waitFor();
    expect(sent).toEqual([{ signals_required: null }]);
    const template = await keyedApi(`/v1/link-templates/${slug}`);
    expect(template.body.signals_default).toBeDefined();
    expect(ui.accessibility).toEqual([]);
  });
});
