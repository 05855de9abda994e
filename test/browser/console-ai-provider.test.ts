import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { keyedApi } from "./helpers/api";
import { openConsole, shoot, signInAsDev, type ConsoleBrowser } from "./helpers/console";

/*
 * The Settings screen's AI-detection choice (issue 43, item 4): this service's default, none, or one of
 * the providers GET /v1/capabilities lists. This deployment (as `npm start`) configures no provider, so
 * the real Worker accepts only the default and none; to show the providers' options the console's
 * GET /v1/capabilities is answered with two configured providers added, and the Worker's refusal of
 * one it does not configure is shown at the field. The dev tenant is left on the default.
 * Screenshots: test-results/console/ai-provider-*.png.
 */

let ui: ConsoleBrowser;

beforeAll(async () => {
  ui = await openConsole();
});

afterAll(async () => {
  await ui?.close();
});

describe("console: the organisation chooses its AI-detection provider", () => {
  it("default, none (saved and read back by the capabilities), and a provider the Worker refuses, said at the field", async () => {
    const { page } = ui;
    await signInAsDev(page);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Settings" }).click();
    const section = page.getByRole("region", { name: "AI detection" });
    const select = section.getByLabel("Detection provider");
    await section.getByText("Asked now: none. This service has no detection provider configured").waitFor();
    expect(await select.inputValue()).toBe("default");
    expect(await select.locator("option").allTextContents()).toEqual(["This service's default", "None: never send photos to a provider"]);

    await select.selectOption("none");
    await section.getByRole("button", { name: "Save the choice" }).click();
    await section.getByText("Asked now: none. Your photos are sent to no detection provider.").waitFor();
    const capabilities = await keyedApi("/v1/capabilities");
    expect(capabilities.body.signals.ai.reason).toMatch(/^This tenant chose no detection provider/);
    await page.reload();
    expect(await page.getByRole("region", { name: "AI detection" }).getByLabel("Detection provider").inputValue()).toBe("none");
    await shoot(ui, "ai-provider-none");

    // Two configured providers, as a deployment with Hive and Reality Defender would list them.
    const url = `${inject("baseUrl")}/v1/capabilities`;
    await page.route(url, async (route) => {
      const real = await route.fetch();
      const body = await real.json();
      body.signals.ai = { ...body.signals.ai, detection_providers: ["hive", "reality-defender"] };
      await route.fulfill({ response: real, json: body });
    });
    await page.reload();
    const offered = page.getByRole("region", { name: "AI detection" });
    await offered.locator("option", { hasText: "Reality Defender" }).waitFor({ state: "attached" });
    expect(await offered.getByLabel("Detection provider").locator("option").allTextContents()).toEqual([
      "This service's default",
      "None: never send photos to a provider",
      "Hive",
      "Reality Defender",
    ]);
    await offered.getByLabel("Detection provider").selectOption("hive");
    await offered.getByRole("button", { name: "Save the choice" }).click();
    await offered.getByText('hive is not configured in this deployment: choose null, "none"').waitFor();
    await shoot(ui, "ai-provider-refused");
    await page.unroute(url);

    // Back to the default, as the other files expect the dev tenant.
    await page.reload();
    const reset = page.getByRole("region", { name: "AI detection" });
    await reset.getByLabel("Detection provider").selectOption("default");
    await reset.getByRole("button", { name: "Save the choice" }).click();
    await reset.getByText("Asked now: none. This service has no detection provider configured").waitFor();
    expect((await keyedApi("/v1/capabilities")).body.signals.ai.reason).toMatch(/^Reads provenance metadata only/);
    expect(ui.accessibility).toEqual([]);
  });
});
