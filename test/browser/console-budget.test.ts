import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { compressedSizes, CONSOLE_FILES } from "../../scripts/build-page.mjs";
import { tenantClient } from "./helpers/api";
import { BASE_FLAGS, CHROMIUM } from "./helpers/browser";

/** Issue 12: the first load of any console page, scripts and CSS included, is at most 150 KB gzip. */
const BUDGET_BYTES = 150 * 1024;

describe("console first-load budget", () => {
  it("every screen's first load (document, bundle, styles and the API answers it reads) stays under 150 KB gzip", async () => {
    const base = inject("baseUrl");
    const v = await tenantClient().createVerification({ max_captures: 1, metadata: { claim_id: "CLM-BUDGET" } });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: BASE_FLAGS });
    try {
      const signedIn = await browser.newContext();
      const page = await signedIn.newPage();
      await page.goto(`${base}/v1/auth/dev/login?return_to=%2Fconsole`);
      await page.waitForURL(/\/console$/);
      const cookies = await signedIn.cookies();
      await signedIn.close();

      const screens = ["/console", "/console/verifications/new", `/console/verifications/${v.id}`, `/console/verifications/${v.id}/certificate`, "/console/templates", "/console/team", "/console/audit-log", "/console/developers", "/console/settings"];
      const loads: Record<string, number> = {};
      for (const path of [...screens, "/console/sign-in"]) {
        // A fresh context per screen: nothing cached, as on a first visit.
        const context = await browser.newContext();
        if (path !== "/console/sign-in") await context.addCookies(cookies);
        const tab = await context.newPage();
        const bodies: Array<Promise<number>> = [];
        tab.on("response", (response) => {
          if (new URL(response.url()).origin !== new URL(base).origin) return;
          if (response.status() >= 300 && response.status() < 400) return;
          bodies.push(response.body().then((b) => gzipSync(b).length, () => 0));
        });
        await tab.goto(`${base}${path}`, { waitUntil: "networkidle" });
        await tab.locator("h1").first().waitFor();
        loads[path] = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
        await context.close();
      }
      for (const [path, size] of Object.entries(loads)) expect(size, `${path}: ${size} B`).toBeLessThanOrEqual(BUDGET_BYTES);
      // The bundle is most of it, and is itself well inside the budget.
      const bundle = Object.values(compressedSizes(CONSOLE_FILES)).reduce((a, b) => a + b, 0);
      expect(bundle).toBeLessThan(BUDGET_BYTES / 2);
      expect(Math.min(...Object.values(loads))).toBeGreaterThanOrEqual(bundle);
    } finally {
      await browser.close();
    }
  });
});
