import AxeBuilder from "@axe-core/playwright";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page, type Response } from "playwright-core";
import { expect, inject } from "vitest";
import { ContractViolation, type Contract } from "../../helpers/openapi-contract";
import { servedContract, workerLogTail } from "./api";

/** Where the phone-sized screenshots of every screen go (docs/development.md, "Capture page"). */
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, "../../../test-results/capture-page");

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const BASE_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--use-fake-device-for-media-stream",
];

export interface Phone {
  context: BrowserContext;
  page: Page;
  /** Closes the browser; fails if any answer the page got from the Worker departs from the document. */
  close(): Promise<void>;
  /** What a failing test needs to say why: the page's text, its refused requests, its console. */
  diagnostics(): Promise<string>;
  /** The page's uncaught errors so far (a failure nothing on the page handled). */
  pageErrors(): string[];
}

/**
 * Closes a test's phone; when the test failed, first fails it again with what the phone showed (page
 * text, refused requests, console, the Worker's log). An error of the hook is printed with the test's
 * failure in the run's summary, where CI keeps it; a test's stderr may not be kept.
 */
export async function closePhone(test: { name: string; result?: { state?: string } }, phone: Phone | undefined): Promise<void> {
  if (!phone) return;
  const seen = test.result?.state === "fail" ? await phone.diagnostics() : null;
  await phone.close();
  if (seen !== null) throw new Error(`${test.name}: what the phone showed\n${seen}\n${workerLogTail()}`);
}

/**
 * A phone-sized Chromium with a fresh profile and a fake camera. `camera: "allow"` answers the
 * permission prompt with yes (the fake UI); `"deny"` refuses every permission prompt.
 */
export async function openPhone(options: { camera?: "allow" | "deny"; locale?: string; video?: string; renameCamera?: string } = {}): Promise<Phone> {
  const profile = mkdtempSync(path.join(tmpdir(), "capture-page-profile-"));
  const camera = options.camera ?? "allow";
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...BASE_FLAGS,
      camera === "allow" ? "--use-fake-ui-for-media-stream" : "--deny-permission-prompts",
      // A Y4M file as the camera (test fixtures: scripts/capture-fixtures/build.ts); otherwise Chromium's own pattern.
      ...(options.video ? [`--use-file-for-fake-video-capture=${options.video}`] : []),
    ],
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: options.locale ?? "en-US",
    geolocation: { latitude: 52.52, longitude: 13.405, accuracy: 12 },
    permissions: camera === "allow" ? ["geolocation"] : [],
  });
  // The attestation widget's script, as the real one behaves with a passing test site key.
  await context.route("https://challenges.cloudflare.com/**", (route) =>
    route.fulfill({ contentType: "text/javascript", body: FAKE_WIDGET }),
  );
  if (options.renameCamera) await context.addInitScript(renameCameraScript, options.renameCamera);
  const page = context.pages()[0] ?? (await context.newPage());
  // What the page itself receives from the Worker is checked against the served document too.
  const contract = await servedContract();
  const checks: Array<Promise<void>> = [];
  const violations: string[] = [];
  const events: string[] = [];
  const at = () => new Date().toISOString().slice(11, 23);
  page.on("response", (response) => {
    checks.push(checkPageResponse(contract, response, violations));
    if (response.status() >= 400) events.push(`${at()} ${response.request().method()} ${response.url()} → ${response.status()}`);
  });
  page.on("requestfailed", (request) => events.push(`${at()} ${request.method()} ${request.url()} failed: ${request.failure()?.errorText}`));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") events.push(`${at()} console.${message.type()}: ${message.text()}`);
  });
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => {
    pageErrors.push(error.message);
    events.push(`${at()} page error: ${error.stack ?? error.message}`);
  });
  return {
    context,
    page,
    pageErrors: () => [...pageErrors],
    async diagnostics() {
      const text = await page
        .evaluate(() => document.body.innerText)
        .catch((err: unknown) => `(page text unavailable: ${String(err)})`);
      return [`page ${page.url()}`, `--- page text ---`, text, `--- refused requests, console, errors ---`, ...events].join("\n");
    },
    async close() {
      await settleChecks(checks);
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      if (violations.length > 0) throw new ContractViolation(violations.join("\n\n"));
    },
  };
}

/** Waits for every check, those pushed while it waits included (answers keep arriving until the page closes). */
export async function settleChecks(checks: ReadonlyArray<Promise<void>>): Promise<void> {
  for (let waited = 0; waited < checks.length; ) {
    const pending = checks.slice(waited);
    waited = checks.length;
    await Promise.allSettled(pending);
  }
}

/** Checks one answer a page received from the Worker against the served document (violations are collected). */
export async function checkPageResponse(contract: Contract, response: Response, violations: string[]): Promise<void> {
  if (new URL(response.url()).origin !== new URL(inject("baseUrl")).origin) return;
  let body = "";
  if (response.status() < 300 || response.status() >= 400) {
    try {
      body = await response.text();
    } catch {
      return; // the page navigated away before the body could be read
    }
  }
  // headersArray keeps repeated headers apart (two Set-Cookie lines would not fit one Headers value).
  const headers = new Headers();
  try {
    for (const { name, value } of await response.headersArray()) headers.append(name, value);
  } catch {
    return; // the page or its context closed before the headers could be read (as for the body above)
  }
  try {
    contract.check({ method: response.request().method(), url: response.url(), status: response.status(), headers, body });
  } catch (err) {
    if (!(err instanceof ContractViolation)) throw err;
    violations.push(err.message);
  }
}

/**
 * Gives the video track another name, as a renamed virtual camera (or a phone's "Back Camera") shows
 * itself to a page: Chromium's fake device is named `fake_device_0`, or the file's path, whatever
 * the flags. Runs in the page before its scripts.
 */
function renameCameraScript(name: string): void {
  const own = Object.getOwnPropertyDescriptor(MediaStreamTrack.prototype, "label")!;
  Object.defineProperty(MediaStreamTrack.prototype, "label", {
    configurable: true,
    get(this: MediaStreamTrack) {
      return this.kind === "video" ? name : (own.get!.call(this) as string);
    },
  });
}

/**
 * Turnstile's explicit-render API, issuing a fresh single-use token per render/reset; the token
 * carries the widget's cData after a "~" (test/fakes/siteverify.ts returns it as siteverify does).
 */
const FAKE_WIDGET = `
(() => {
  let n = 0;
  const widgets = {};
  const issue = (id) => setTimeout(() => widgets[id] && widgets[id].callback("pass-" + (++n) + "~" + (widgets[id].cData || "")), 50);
  window.turnstile = {
    render(el, options) { const id = "w" + (++n); widgets[id] = options; issue(id); return id; },
    reset(id) { issue(id); },
    remove(id) { delete widgets[id]; },
  };
})();
`;

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** A real JPEG drawn by the browser's own encoder (decodable by any analysis). */
export async function jpegFromPage(page: Page, color = "#c0392b"): Promise<Buffer> {
  const base64 = await page.evaluate((fill) => {
    const canvas = document.createElement("canvas");
    canvas.width = 320;
    canvas.height = 240;
    const ctx = canvas.getContext("2d")!;
    ctx.fillStyle = fill;
    ctx.fillRect(0, 0, 320, 240);
    ctx.fillStyle = "#fff";
    ctx.font = "28px sans-serif";
    ctx.fillText("INVOICE 0042", 40, 130);
    return canvas.toDataURL("image/jpeg", 0.9).split(",")[1]!;
  }, color);
  return Buffer.from(base64, "base64");
}

/** axe on what `page` shows: no serious or critical violation (named with `name` and the elements). */
export async function axeClean(page: Page, name: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${name}: ${v.id} ${v.help} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}
