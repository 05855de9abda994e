import { afterEach, describe, expect, it } from "vitest";
import { inject } from "vitest";
import path from "node:path";
import { openPhone, SCREENSHOT_DIR, type Phone } from "./helpers/browser";

let browser: Phone | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe("API reference (/docs) in Chromium", () => {
  it("renders the OpenAPI document from this Worker's own assets, with no CSP violation and no other origin", async () => {
    const origin = new URL(inject("baseUrl")).origin;
    browser = await openPhone();
    const { page } = browser;
    const requested: string[] = [];
    page.on("request", (req) => {
      requested.push(req.url());
    });
    const problems: string[] = [];
    page.on("console", (msg) => {
      if (msg.type() === "error") problems.push(msg.text());
    });
    page.on("pageerror", (err) => problems.push(String(err)));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) => {
        (window as unknown as { __csp: string[] }).__csp ??= [];
        (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
      });
    });

    const res = await page.goto(`${origin}/docs`);
    expect(res?.status()).toBe(200);
    await page.getByRole("heading", { name: /Verification Service API/ }).waitFor({ timeout: 30_000 });
    await page.getByText("/v1/verifications/{token}/captures/upload-url").first().waitFor();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "..", "docs.png") });

    expect(await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])).toEqual([]);
    expect(problems).toEqual([]);
    const foreign = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"));
    expect(foreign).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([`${origin}/docs/reference.js`, `${origin}/docs/reference.css`, `${origin}/v1/openapi.json`]));
  });
});
