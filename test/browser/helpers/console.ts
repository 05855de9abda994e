import AxeBuilder from "@axe-core/playwright";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { inject } from "vitest";
import { ContractViolation } from "../../helpers/openapi-contract";
import { servedContract, workerLogTail } from "./api";
import { BASE_FLAGS, checkPageResponse, CHROMIUM, openPhone, settleChecks } from "./browser";

/** Screenshots of every console screen at both viewports (docs/console.md, "Operator console"). */
export const CONSOLE_SHOTS = path.resolve(import.meta.dirname, "../../../test-results/console");
export const DESKTOP = { width: 1440, height: 900 } as const;
export const PHONE = { width: 390, height: 844 } as const;

export interface ConsoleBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Axe findings of impact serious or critical, per screen, gathered by `shoot`. */
  accessibility: string[];
  close(): Promise<void>;
}

/**
 * A desktop Chromium for the console. Every answer the console gets from the Worker is checked
 * against the served OpenAPI document, like the capture page's.
 */
export async function openConsole(): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: BASE_FLAGS });
  const context = await browser.newContext({ viewport: DESKTOP, locale: "en-GB", timezoneId: "Europe/London" });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: inject("baseUrl") });
  const page = await context.newPage();
  const contract = await servedContract();
  const checks: Array<Promise<void>> = [];
  const violations: string[] = [];
  const errors: string[] = [];
  const watch = (p: Page) => {
    p.on("response", (response) => checks.push(checkPageResponse(contract, response, violations)));
    p.on("pageerror", (err) => errors.push(String(err)));
    // A page blocked by its own policy (a script, a style, even the icon) is a fault, whatever else works.
    p.on("console", (message) => {
      if (message.type() === "error" && message.text().includes("Content Security Policy")) errors.push(`${p.url()}: ${message.text()}`);
    });
  };
  watch(page);
  context.on("page", watch);
  return {
    browser,
    context,
    page,
    accessibility: [],
    async close() {
      await settleChecks(checks);
      await browser.close();
      if (violations.length > 0) throw new ContractViolation(violations.join("\n\n"));
      if (errors.length > 0) throw new Error(`the console threw:\n${errors.join("\n")}`);
    },
  };
}

/** Signs in through the console's sign-in page with the local `dev` provider. */
export async function signInAsDev(page: Page): Promise<void> {
  await page.goto(`${inject("baseUrl")}/console`);
  await page.waitForURL(/\/console\/sign-in/);
  await page.getByRole("link", { name: "Developer sign-in (local only)" }).click();
  await page.getByRole("heading", { level: 1, name: "Verifications" }).waitFor();
}

/**
 * Screenshots the screen at 1440×900 and 390×844 and runs axe at each size; serious and critical
 * findings are collected on `ui.accessibility` (the test asserts none remain). `page`: another
 * context's page (a second operator), by default the console's own.
 */
export async function shoot(ui: ConsoleBrowser, name: string, page: Page = ui.page): Promise<void> {
  mkdirSync(CONSOLE_SHOTS, { recursive: true });
  for (const [label, size] of [["1440x900", DESKTOP], ["390x844", PHONE]] as const) {
    await page.setViewportSize(size);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.screenshot({ path: path.join(CONSOLE_SHOTS, `${name}-${label}.png`), fullPage: true });
    const result = await new AxeBuilder({ page }).analyze();
    for (const v of result.violations) {
      if (v.impact !== "serious" && v.impact !== "critical") continue;
      ui.accessibility.push(`${name} @${label}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    }
  }
  await page.setViewportSize(DESKTOP);
}

/**
 * Presses Tab (as a keyboard user would) until the focused element is `role` named `name`; fails
 * when it never gets there. Returns how many presses it took.
 */
export async function tabTo(page: Page, role: "link" | "button" | "textbox" | "combobox", name: string, max = 80): Promise<number> {
  for (let presses = 1; presses <= max; presses += 1) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el) return null;
      const label = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
      return { tag: el.tagName.toLowerCase(), type: el.getAttribute("type"), name: (el.getAttribute("aria-label") ?? label ?? el.textContent ?? "").trim().replace(/\s+/g, " ") };
    });
    if (!focused) continue;
    const roleOf = focused.tag === "a" ? "link" : focused.tag === "button" ? "button" : focused.tag === "select" ? "combobox" : focused.tag === "input" || focused.tag === "textarea" ? "textbox" : "";
    if (roleOf === role && focused.name === name) return presses;
  }
  throw new Error(`Tab never reached the ${role} “${name}”`);
}

/** The capture page on a phone with the fake camera: one live photo in each of `steps` steps, then done. */
export async function captureOnPhone(captureUrl: string, steps: number): Promise<void> {
  const phone = await openPhone();
  try {
    const { page } = phone;
    await page.goto(captureUrl);
    await page.getByRole("button", { name: "Start" }).click();
    for (let n = 1; n <= steps; n += 1) {
      await page.getByText(`Step ${n} of ${steps}`).waitFor();
      const shutter = page.getByRole("button", { name: "Take photo" });
      await shutter.waitFor();
      await page.locator("video").evaluate((v: HTMLVideoElement) => new Promise((r) => (v.readyState >= 2 ? r(null) : v.addEventListener("loadeddata", () => r(null)))));
      await shutter.click();
      await page.getByRole("button", { name: "Use this photo" }).click();
    }
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 60_000 });
  } catch (err) {
    await phone.page.screenshot({ path: "test-results/console/phone-failure.png" });
    // In the error itself: CI keeps the run's summary, not necessarily a test's stderr.
    throw new Error(`the phone's capture failed: ${String(err)}\n${await phone.diagnostics()}\n${workerLogTail()}`, { cause: err });
  } finally {
    await phone.close();
  }
}
