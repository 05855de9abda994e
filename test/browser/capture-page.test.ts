import { afterEach, describe, expect, it } from "vitest";
import { decode } from "fast-png";
import type { Page, Request } from "playwright-core";
import type { CreateVerificationRequest } from "../../clients/typescript/src/index";
import { inject } from "vitest";
import { checkedFetch, eventually, pageUrl, tenantClient } from "./helpers/api";
import { axeClean, closePhone, jpegFromPage, openPhone, screenshot, type Phone } from "./helpers/browser";

const tenant = tenantClient();

const FOUR_STEPS: CreateVerificationRequest["steps"] = [
  { key: "front", type: "image", description: "Front of the car, whole plate visible", min: 1, max: 1 },
  { key: "odometer", type: "image", description: "The odometer", min: 1, max: 1 },
  { key: "plate", type: "text", required: true, description: "Licence plate number", validation: { max_length: 10, format: "alphanumeric_id" } },
  { key: "invoice", type: "upload", description: "Repair invoice", min: 1, max: 1, accept: ["image/jpeg", "image/png"], max_size_bytes: 2_000_000 },
];

/** A photo, a required question, then an optional one: the evidence is complete before the end user is done. */
const PHOTO_THEN_QUESTIONS: CreateVerificationRequest["steps"] = [
  { key: "front", type: "image", description: "Front", min: 1, max: 1 },
  { key: "order", type: "text", required: true, description: "Order number", validation: { max_length: 20, format: "free_text" } },
  { key: "notes", type: "text", required: false, description: "Anything else?", validation: { max_length: 200, format: "free_text" } },
];

let phone: Phone | undefined;
afterEach(async ({ task }) => {
  const open = phone;
  phone = undefined;
  await closePhone(task, open);
});

/**
 * Pixels of `rgb` inside the outcome circle (a square well within its 3 px ring), as rendered:
 * the mark drawn in the circle is the only thing of that colour there.
 */
async function markPixels(page: Page, rgb: [number, number, number]): Promise<number> {
  const outcome = page.locator(".outcome");
  const circle = await outcome.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const before = getComputedStyle(el, "::before");
    const size = parseFloat(before.width);
    return { x: box.x + box.width / 2 - size / 2, y: box.y + parseFloat(getComputedStyle(el).paddingTop), size };
  });
  const inset = circle.size * 0.22;
  const png = decode(await page.screenshot({ clip: { x: circle.x + inset, y: circle.y + inset, width: circle.size - 2 * inset, height: circle.size - 2 * inset } }));
  let count = 0;
  for (let i = 0; i < png.data.length; i += png.channels) {
    if (Math.abs(png.data[i]! - rgb[0]) < 40 && Math.abs(png.data[i + 1]! - rgb[1]) < 40 && Math.abs(png.data[i + 2]! - rgb[2]) < 40) count += 1;
  }
  return count;
}

/** The progress reports a page sent (fetch and sendBeacon alike). */
function recordProgress(page: Page): Array<Record<string, unknown>> {
  const seen: Array<Record<string, unknown>> = [];
  page.on("request", (req: Request) => {
    if (req.method() === "POST" && req.url().endsWith("/progress")) seen.push(JSON.parse(req.postData() ?? "{}"));
  });
  return seen;
}

async function takeLivePhoto(page: Page, shot?: { camera: string; review: string }): Promise<void> {
  const shutter = page.getByRole("button", { name: "Take photo" });
  await shutter.waitFor();
  await page.locator("video").evaluate((v: HTMLVideoElement) => new Promise((r) => (v.readyState >= 2 ? r(null) : v.addEventListener("loadeddata", () => r(null)))));
  if (shot) await screenshot(page, shot.camera);
  await shutter.click();
  await page.getByRole("img", { name: "The photo you took" }).waitFor();
  if (shot) await screenshot(page, shot.review);
  await page.getByRole("button", { name: "Use this photo" }).click();
}

/** PHOTO_THEN_QUESTIONS on a phone: the photo taken, the required order number given, the optional question on screen. */
async function upToTheOptionalQuestion(id: string): Promise<Page> {
  phone = await openPhone();
  const { page } = phone;
  await page.goto(pageUrl(id));
  await page.getByRole("button", { name: "Start" }).click();
  await takeLivePhoto(page);
  await page.getByLabel("Order number").fill("A-1001");
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Anything else?").waitFor();
  return page;
}

describe("capture page in Chromium", () => {
  it("completes two image steps, a text step and an upload step; the verification reaches completed with a verdict", async () => {
    const v = await tenant.createVerification({ steps: FOUR_STEPS });
    phone = await openPhone();
    const { page } = phone;
    const progress = recordProgress(page);
    await page.goto(pageUrl(v.id));

    await page.getByRole("heading", { name: "A few photos are needed" }).waitFor();
    // The tenant's name is a bidi isolate (FSI … PDI): a control in it cannot reorder "Requested by" (settings probe of 2026-12-04).
    await page.getByText("Requested by \u2068Dev Tenant\u2069").waitFor();
    expect(await page.locator('link[rel="icon"]').count()).toBe(1);
    expect(await page.locator(".checklist li").allTextContents()).toEqual([
      "1 photo — Front of the car, whole plate visible",
      "1 photo — The odometer",
      "An answer — Licence plate number",
      "1 image file — Repair invoice",
    ]);
    await screenshot(page, "01-landing");
    await axeClean(page, "landing");
    await page.getByRole("button", { name: "Start" }).click();

    await page.getByText("Step 1 of 4").waitFor();
    await takeLivePhoto(page, { camera: "02-camera", review: "03-review" });
    await page.getByText("Step 2 of 4").waitFor();
    await takeLivePhoto(page);

    // Text: the page applies the server's rules before sending anything.
    const plate = page.getByLabel("Licence plate number");
    await plate.fill("AB 123");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("Use letters, digits and hyphens only.").waitFor();
    expect(await plate.getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "04-text-invalid");
    // Pasted past the limit: refused with the limit, never cut to fit and sent as the person's answer.
    await plate.fill("AB-1234567890");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("Use at most 10 characters.").waitFor();
    expect(await plate.inputValue()).toBe("AB-1234567890");
    // The trailing space a phone keyboard adds is not part of an id (it read "Use letters, digits and hyphens only.").
    await plate.fill("AB-123 ");
    await page.getByRole("button", { name: "Continue" }).click();

    // Upload: checked against accept and max_size_bytes before sending, its type read from its bytes.
    await page.getByText("Step 4 of 4").waitFor();
    const picker = page.locator("input[type=file]");
    expect(await picker.getAttribute("accept")).toBe("image/jpeg,image/png");
    await picker.setInputFiles({ name: "scan.gif", mimeType: "image/gif", buffer: Buffer.from("GIF89a") });
    await page.getByText("“scan.gif” isn't an accepted type (JPEG or PNG).").waitFor();
    // Named as a JPEG, but not an image at all: refused here, not sent for the server to refuse.
    await picker.setInputFiles({ name: "notes.jpg", mimeType: "image/jpeg", buffer: Buffer.from("Meeting notes, not a photo") });
    await page.getByText("“notes.jpg” isn't an accepted type (JPEG or PNG).").waitFor();
    const hugeJpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2_000_001 - 4)]);
    await picker.setInputFiles({ name: "huge.jpg", mimeType: "image/jpeg", buffer: hugeJpeg });
    await page.getByText("“huge.jpg” is 2,000,001 B; the limit is 2,000,000 B.").waitFor();
    await screenshot(page, "05-upload-checked");
    await axeClean(page, "upload refused");
    // A JPEG saved under a .png name (the browser declares image/png): sent as the JPEG it is.
    await picker.setInputFiles({ name: "invoice.png", mimeType: "image/png", buffer: await jpegFromPage(page) });

    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
    await screenshot(page, "06-success");
    // The success circle carries a drawn check mark (it used to be an empty circle in Debian's Chromium).
    expect(await markPixels(page, [0x14, 0x6c, 0x2e])).toBeGreaterThan(100);

    // What the tenant sees: every capture in its step with its attestation, the answer, submitted.
    const tenantView = await tenant.getVerification(v.id);
    expect(tenantView.captures.map((c) => c.step_key)).toEqual(["front", "odometer", "invoice"]);
    const invoice = await tenant.api.GET("/v1/captures/{id}", { params: { path: { id: tenantView.captures[2]!.id } } });
    expect(invoice.data?.media_type).toBe("image/jpeg");
    expect(tenantView.captures.map((c) => c.attestation?.verdict)).toEqual(["pass", "pass", "pass"]);
    expect(tenantView.answers?.plate?.value).toBe("AB-123");
    expect(tenantView.submitted_at).toBeDefined();
    expect(progress.filter((p) => p.kind === "step_reached").map((p) => p.step)).toEqual(
      expect.arrayContaining(["landing", "capturing", "reviewing", "ready", "success"]),
    );
    expect(progress).toContainEqual(expect.objectContaining({ kind: "camera_permission", camera_permission: "granted" }));
    expect(progress.some((p) => p.kind === "abandoned")).toBe(false);

    // The analysis writes the verdict and completes the verification.
    const done = await eventually(
      "the verification to complete",
      () => tenant.getVerification(v.id),
      (body) => body.status === "completed",
      60_000,
    );
    // The suite's camera is Chromium's fake device, an injected stream named "fake_device_0": the
    // hosted page's default depth signal (issue 32) reads it as a virtual camera, so the verdict is
    // suspicious, never verified (a real video fed as the camera reads verified:
    // capture-integrity.test.ts). Its reason is depth_anomaly, unless the same fake picture was
    // captured earlier in this run (another test's phone): a reuse outranks depth.
    const reused = (done.verdict!.signals.reverse_search as { match_count?: number }).match_count! > 0;
    expect(done.verdict, JSON.stringify(done.verdict)).toMatchObject({
      label: "suspicious",
      reason_code: reused ? "reverse_search_match" : "depth_anomaly",
      signals: expect.objectContaining({ screen_detection: expect.any(Object), ai_detection: expect.any(Object), reverse_search: expect.any(Object), depth: { source: "capture_burst", confidence: 0.05 } }),
    });
    expect(done.verdict!.score).toBeGreaterThan(0);
    expect(done.verdict!.score).toBeLessThan(0.6);
    const listed = await checkedFetch(new Request(`${inject("baseUrl")}/v1/verifications/${v.id}/captures`, { headers: { Authorization: `Bearer ${inject("apiKey")}` } }));
    const items = ((await listed.json()) as { items: Array<Record<string, any>> }).items;
    const live = items.filter((c) => c.source === "live");
    expect(live.map((c) => c.capture_integrity.device.label)).toEqual(["fake_device_0", "fake_device_0"]);
    for (const c of live) expect(c.analysis.signals.depth.evidence).toContainEqual({ code: "virtual_camera", detail: "Chromium's fake camera" });
    // The uploaded file came with no record: the page sends one with live photos only.
    expect(items.find((c) => c.source === "upload")!.capture_integrity).toBeUndefined();

    // Opening the link again: nothing left to do.
    await page.goto(pageUrl(v.id));
    await page.getByRole("heading", { name: "Already done" }).waitFor();
    await screenshot(page, "07-already-completed");
  });

  it("a tenant's long word or URL wraps: the page never grows wider than the phone", async () => {
    const url = "https://example.com/claims/instructions/vehicle-photos-guide-2026-with-a-very-long-name.pdf";
    const v = await tenant.createVerification({
      steps: [
        { key: "front", type: "image", description: `See ${url}`, min: 1, max: 1 },
        { key: "extra", type: "upload", description: "Anything else", min: 0, max: 3, accept: ["image/jpeg"], max_size_bytes: 2_000_000 },
      ],
    });
    phone = await openPhone();
    const { page } = phone;
    // Nothing the page asks for is missing; it names its icon, so a headed browser asks for no
    // /favicon.ico (which answered 404, an error in the console of every page).
    const missing: string[] = [];
    page.on("response", (res) => {
      if (res.status() === 404) missing.push(res.url());
    });
    await page.goto(pageUrl(v.id));
    await page.getByRole("heading", { name: "A few photos are needed" }).waitFor();
    expect(await page.locator('link[rel="icon"]').count()).toBe(1);
    expect(await page.locator(".checklist li").allTextContents()).toEqual([`1 photo — See ${url}`, "Up to 3 image files — Anything else (optional)"]);
    const widths = () => page.evaluate(() => ({ page: document.documentElement.scrollWidth, viewport: window.innerWidth }));
    let seen = await widths();
    expect(seen.page, JSON.stringify(seen)).toBeLessThanOrEqual(seen.viewport);
    await screenshot(page, "14-long-description");
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByRole("button", { name: "Take photo" }).waitFor();
    seen = await widths();
    expect(seen.page, JSON.stringify(seen)).toBeLessThanOrEqual(seen.viewport);
    expect(missing).toEqual([]);
  });

  // A description is the tenant's text; "(optional)" and "1 photo" are the page's. A right-to-left
  // override the description leaves open would otherwise run on over the page's own words.
  it("a tenant's description is a bidi isolate: a direction control in it cannot reorder the page's own words", async () => {
    const v = await tenant.createVerification({
      steps: [
        { key: "note", type: "text", description: "Your note \u202e", required: false, validation: { max_length: 200, format: "free_text" } },
        { key: "front", type: "image", description: "The front \u202e", min: 0, max: 1 },
      ],
    });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("heading", { name: "A photo is needed" }).waitFor();
    const items = page.locator(".checklist li");
    expect(await items.locator("bdi").allTextContents()).toEqual(["Your note \u202e", "The front \u202e"]);
    // The page's words are outside the isolate, after it.
    expect(await items.nth(1).evaluate((li) => [...li.childNodes].map((n) => (n.nodeName === "BDI" ? "<bdi>" : n.textContent)))).toEqual(["1 photo", " — ", "<bdi>", " (optional)"]);
    await screenshot(page, "15-bidi-description");
    await axeClean(page, "landing with a bidi control in a description");
    await page.getByRole("button", { name: "Start" }).click();
    const label = page.locator("label.label");
    expect(await label.locator("bdi").textContent()).toBe("Your note \u202e");
    await page.getByLabel("Your note").waitFor();
  });

  it("a key with spaces keeps its hint tied to its field; files past a step's max are named as not added", async () => {
    const v = await tenant.createVerification({
      steps: [
        { key: "claim number", type: "text", description: "Claim number", required: true, validation: { max_length: 12, format: "numeric_id" } },
        { key: "docs", type: "upload", description: "Documents", min: 1, max: 2, accept: ["image/jpeg"], max_size_bytes: 2_000_000 },
      ],
    });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    const answer = page.getByLabel("Claim number");
    await answer.waitFor();
    // Every id aria-describedby names exists (a key's space used to split it into ids that did not).
    const missing = await answer.evaluate((el) => (el.getAttribute("aria-describedby") ?? "").split(/\s+/).filter((id) => id && !document.getElementById(id)));
    expect(missing).toEqual([]);
    await answer.fill("12345");
    await page.getByRole("button", { name: "Continue" }).click();

    await page.getByText("0 of 2 added").waitFor();
    const jpeg = await jpegFromPage(page);
    await page.locator("input[type=file]").setInputFiles(["a.jpg", "b.jpg", "c.jpg"].map((name) => ({ name, mimeType: "image/jpeg", buffer: jpeg })));
    await page.getByText("Not added, as this step takes at most 2: “c.jpg”.").waitFor();
    await page.getByText("2 of 2 added").waitFor();
    // The files this device added are named (probe of 2026-12-04: only a count).
    expect(await page.locator(".file-list li").allTextContents()).toEqual(["a.jpg", "b.jpg"]);
    await screenshot(page, "07b-files-past-max");
    await axeClean(page, "files past max");
  });

  it("an upload step names the files this device added, also after a reload", async () => {
    const v = await tenant.createVerification({ steps: [{ key: "docs", type: "upload", description: "Receipts", min: 1, max: 3, accept: ["image/jpeg"] }] });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByText("0 of 3 added").waitFor();
    await page.locator("input[type=file]").setInputFiles({ name: "receipt-garage.jpg", mimeType: "image/jpeg", buffer: await jpegFromPage(page) });
    await page.getByText("1 of 3 added").waitFor();
    const listed = async () => page.locator(".file-list li").allTextContents();
    expect(await listed()).toEqual(["receipt-garage.jpg"]);
    await page.reload();
    await page.getByText("Added from this device:").waitFor();
    expect(await listed()).toEqual(["receipt-garage.jpg"]);
    await axeClean(page, "files added here");
  });

  it("camera denied: explains how to allow it and falls back to the camera app", async () => {
    const v = await tenant.createVerification({ steps: [{ key: "front", type: "image", description: "Front of the car", min: 1, max: 1 }] });
    phone = await openPhone({ camera: "deny" });
    const { page } = phone;
    const progress = recordProgress(page);
    await page.goto(pageUrl(v.id));
    // One photo is all it asks: said as one, not "a few".
    await page.getByRole("heading", { name: "A photo is needed" }).waitFor();
    await page.getByRole("button", { name: "Start" }).click();

    await page.getByRole("heading", { name: "Camera access is blocked" }).waitFor();
    await screenshot(page, "08-camera-denied");
    await page.getByRole("button", { name: "Try again" }).waitFor();
    const fallback = page.locator("input[type=file]");
    expect(await fallback.getAttribute("accept")).toBe("image/*");
    expect(await fallback.getAttribute("capture")).toBe("environment");
    expect(await page.getByText("Take photo with camera app").count()).toBe(1);

    // A file no browser opens as a photo is named, and the camera app stays offered (the page used to
    // ignore it without a word: an uncaught "The source image cannot be decoded").
    await fallback.setInputFiles({ name: "notes.jpg", mimeType: "image/jpeg", buffer: Buffer.from("not a photo at all") });
    await page.getByText("“notes.jpg” could not be opened as a photo. Take one with the camera app, or pick another.").waitFor();
    expect(phone.pageErrors()).toEqual([]);
    await screenshot(page, "08b-camera-app-unreadable");
    await axeClean(page, "camera app: unreadable file");

    // Named and declared as HEIC, but its bytes are a JPEG: sent as the JPEG it is, not refused.
    await fallback.setInputFiles({ name: "IMG_0001.HEIC", mimeType: "image/heic", buffer: await jpegFromPage(page, "#2c3e50") });
    await page.getByRole("button", { name: "Use this photo" }).click();
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });

    const tenantView = await tenant.getVerification(v.id);
    expect(tenantView.captures.map((c) => c.step_key)).toEqual(["front"]);
    expect((await tenant.api.GET("/v1/captures/{id}", { params: { path: { id: tenantView.captures[0]!.id } } })).data?.media_type).toBe("image/jpeg");
    expect(progress).toContainEqual(expect.objectContaining({ kind: "camera_permission", camera_permission: "denied" }));
    expect(progress).toContainEqual(expect.objectContaining({ kind: "step_reached", step: "camera_blocked", step_index: 0 }));
  });

  it("a camera slow to start moves nothing under the end user's finger, and is turned off if they skip before it starts", async () => {
    const v = await tenant.createVerification({
      steps: [
        { key: "front", type: "image", description: "Front", min: 0, max: 1 },
        { key: "notes", type: "text", required: false, description: "Anything else?", validation: { max_length: 200, format: "free_text" } },
      ],
    });
    phone = await openPhone();
    const { page } = phone;
    await page.addInitScript(HOLD_CAMERA);
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByText("Starting the camera…").waitFor();
    const shutter = page.getByRole("button", { name: "Take photo" });
    const skip = page.getByRole("button", { name: "Skip" });
    expect(await shutter.isDisabled()).toBe(true);
    const before = await skip.boundingBox();
    await page.evaluate(() => (window as unknown as { releaseCamera: () => void }).releaseCamera());
    await expect.poll(() => shutter.isEnabled()).toBe(true);
    // The shutter came on where it already stood: Skip did not move (a tap on it was lost when it did).
    expect(await skip.boundingBox()).toEqual(before);

    // Skipped while the camera is still starting: the stream it grants afterwards is stopped at once.
    await page.reload();
    await page.getByText("Starting the camera…").waitFor();
    await skip.click();
    await page.getByLabel("Anything else?").waitFor();
    await page.evaluate(() => (window as unknown as { releaseCamera: () => void }).releaseCamera());
    const live = () => page.evaluate(() => (window as unknown as { cameraStreams: MediaStream[] }).cameraStreams.flatMap((s) => s.getTracks()).filter((t) => t.readyState === "live").length);
    await expect.poll(() => page.evaluate(() => (window as unknown as { cameraStreams: MediaStream[] }).cameraStreams.length)).toBe(1);
    await expect.poll(live).toBe(0);
  });

  it("an expired link shows the expired state", async () => {
    const v = await tenant.createVerification({ max_captures: 1, expires_in_seconds: 1 });
    await new Promise((r) => setTimeout(r, 1_500));
    phone = await openPhone();
    await phone.page.goto(pageUrl(v.id));
    await phone.page.getByRole("heading", { name: "This link has expired" }).waitFor();
    expect(await phone.page.getByRole("button").count()).toBe(0);
    await screenshot(phone.page, "09-expired");
  });

  it("the keyboard focus ring stands out from the page at 3:1 or more (WCAG 1.4.11)", async () => {
    // The ring sits 2 px off the button, on the page: amber #f9ab00 on white was 1.93:1 (probe of 2026-12-04; axe does not check it).
    const v = await tenant.createVerification({ max_captures: 1 });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    const start = page.getByRole("button", { name: "Start" });
    await start.waitFor();
    for (let i = 0; i < 10 && !(await start.evaluate((el) => el === document.activeElement)); i += 1) await page.keyboard.press("Tab");
    const { ring, behind } = await start.evaluate((el) => {
      // What the ring is drawn on: the nearest ancestor with a background of its own.
      let under = el.parentElement;
      while (under && getComputedStyle(under).backgroundColor === "rgba(0, 0, 0, 0)") under = under.parentElement;
      return { ring: getComputedStyle(el).outlineColor, behind: under ? getComputedStyle(under).backgroundColor : "rgb(255, 255, 255)" };
    });
    expect(contrast(ring, behind), `${ring} on ${behind}`).toBeGreaterThanOrEqual(3);
    await screenshot(page, "11-focus-ring");
  });

  it("an unknown link says so", async () => {
    phone = await openPhone();
    await phone.page.goto(pageUrl("vfy_01JZZZZZZZZZZZZZZZZZZZZZZZ"));
    await phone.page.getByRole("heading", { name: "Link not found" }).waitFor();
    await screenshot(phone.page, "10-not-found");
  });

  it("a photo delivered before the device's store confirms it still moves the end user on (a slow phone)", async () => {
    const v = await tenant.createVerification({
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 1 },
        { key: "back", type: "image", description: "Back", min: 1, max: 1 },
        { key: "plate", type: "text", required: true, description: "Licence plate number", validation: { max_length: 10, format: "alphanumeric_id" } },
      ],
    });
    phone = await openPhone();
    const { page } = phone;
    await page.addInitScript(HOLD_NEW_CAPTURES_IN_STORE);
    // The first photo's capture call waits, so the page is still sending when the second is queued.
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let captureCalls = 0;
    await page.route("**/captures", async (route) => {
      captureCalls += 1;
      if (captureCalls === 1) await firstHeld;
      await route.continue();
    });
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await takeLivePhoto(page);
    await page.getByText("Step 2 of 3").waitFor();

    // The second photo: the device's store is slow to confirm it, and the page sends it meanwhile.
    await page.evaluate(() => ((window as unknown as { holdStore: boolean }).holdStore = true));
    const secondAccepted = page.waitForResponse(
      (r) => r.url().endsWith("/captures") && r.status() === 201 && JSON.parse(r.request().postData() ?? "{}").step_key === "back",
    );
    await takeLivePhoto(page);
    releaseFirst();
    await secondAccepted;
    expect((await tenant.getVerification(v.id)).captures.map((c) => c.step_key)).toEqual(["front", "back"]);
    await page.evaluate(() => (window as unknown as { releaseStore: () => void }).releaseStore());

    // The step is full on the server: the page goes on to the question, not back to the camera.
    await page.getByLabel("Licence plate number").waitFor();
    expect(await page.getByRole("button", { name: "Take photo" }).count()).toBe(0);
  });

  it("an optional question after the last required step is not lost to the verdict", async () => {
    // The server's readiness rule does not wait for optional questions: the page keeps the answer
    // that completes the evidence until the end user is past them (client/capture-page/flow.ts).
    const v = await tenant.createVerification({ steps: PHOTO_THEN_QUESTIONS });
    const page = await upToTheOptionalQuestion(v.id);
    await eventually("the photo to be accepted", () => tenant.getVerification(v.id), (body) => body.captures.length === 1);
    // A person reading and typing: longer than an analysis takes once the evidence is complete.
    await page.waitForTimeout(5_000);
    const meanwhile = await tenant.getVerification(v.id);
    expect(meanwhile.status).toBe("partially_captured");
    expect(meanwhile.answers?.order).toBeUndefined();
    await page.getByText("1 item will be sent when you finish").waitFor();
    await screenshot(page, "13-optional-question");
    await page.getByLabel("Anything else?").fill("The rear bumper was already scratched.");
    await page.getByRole("button", { name: "Finish" }).click();
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
    const done = await eventually("the verification to complete", () => tenant.getVerification(v.id), (body) => body.status === "completed", 60_000);
    expect(done.answers?.order?.value).toBe("A-1001");
    expect(done.answers?.notes?.value).toBe("The rear bumper was already scratched.");
  });

  it("close to the link's expiry nothing is held back for an optional question: the evidence reaches the server in time", async () => {
    // Expiring within the last minutes: what would complete the evidence is sent at once rather than
    // kept on the device until Finish, where the expiry (or a closed tab) would have lost it.
    const v = await tenant.createVerification({ steps: PHOTO_THEN_QUESTIONS, expires_in_seconds: 240 });
    const page = await upToTheOptionalQuestion(v.id);
    const sent = await eventually("the held answer to be sent", () => tenant.getVerification(v.id), (body) => body.answers?.order !== undefined, 30_000);
    expect(sent.captures.length).toBe(1);
    expect(await page.getByText("1 item will be sent when you finish").count()).toBe(0);
  });

  it("a reload on the landing stays on the landing: nothing is asked of the camera before Start", async () => {
    const v = await tenant.createVerification({ steps: PHOTO_THEN_QUESTIONS });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).waitFor();
    await page.reload();
    await page.getByRole("button", { name: "Start" }).waitFor();
    expect(await page.locator("video").count()).toBe(0);
    expect(new URL(page.url()).hash).toBe("");
  });

  // Probe of 2026-12-04: a reload on a text step lost what had been typed.
  it("a reload on a text step gives back the half-typed answer, and only until it is sent", async () => {
    const v = await tenant.createVerification({ steps: PHOTO_THEN_QUESTIONS });
    const page = await upToTheOptionalQuestion(v.id);
    await page.getByLabel("Anything else?").fill("The dent is on the left");
    await page.reload();
    await page.getByLabel("Anything else?").waitFor();
    expect(await page.getByLabel("Anything else?").inputValue()).toBe("The dent is on the left");
    await page.getByLabel("Anything else?").fill("The dent is on the left door");
    await page.getByRole("button", { name: "Finish" }).click();
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
    const done = await eventually("the answer", () => tenant.getVerification(v.id), (body) => body.answers?.notes !== undefined);
    expect(done.answers?.notes?.value).toBe("The dent is on the left door");
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith("answer-draft:")))).toEqual([]);
  });

  it("Back and Forward move between the screens the end user has seen; once the evidence is sent, Back leaves the page", async () => {
    const v = await tenant.createVerification({ steps: PHOTO_THEN_QUESTIONS });
    const page = await upToTheOptionalQuestion(v.id);
    await page.goBack();
    await page.getByLabel("Order number").waitFor();
    expect(await page.getByLabel("Order number").inputValue()).toBe("");
    await page.goBack();
    await page.getByText("Step 1 of 3").waitFor();
    await page.getByText("1 of 1 added").waitFor();
    expect(await page.getByRole("button", { name: "Take photo" }).count()).toBe(0);
    await screenshot(page, "14-back-to-the-photo");
    await axeClean(page, "back to the photo step");
    await page.goBack();
    await page.getByRole("button", { name: "Continue" }).waitFor();
    await page.goForward();
    await page.getByText("Step 1 of 3").waitFor();
    await page.goForward();
    await page.getByLabel("Order number").waitFor();
    await page.goForward();
    // A blank optional answer is a skipped one (it read "Please enter an answer." under "Optional").
    await page.getByLabel("Anything else?").fill(" ");
    await page.getByRole("button", { name: "Finish" }).click();
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
    const done = await eventually("the verification to complete", () => tenant.getVerification(v.id), (body) => body.status === "completed", 60_000);
    expect(done.captures.length).toBe(1);
    expect(done.answers?.order?.value).toBe("A-1001");
    expect(done.answers?.notes).toBeUndefined();

    // No step to go back to: one Back leaves, past the page's own entries, to where the link was opened from.
    await page.goBack();
    await page.waitForURL("about:blank");
  });

  // Probe of 2026-12-04: closing a duplicate tab marked the verification abandoned while the end user worked in the other.
  it("closing one of two tabs on the link is not leaving; leaving the last one is", async () => {
    const v = await tenant.createVerification({ steps: PHOTO_THEN_QUESTIONS });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByText("Step 1 of 3").waitFor();
    const duplicate = await phone.context.newPage();
    await duplicate.goto(pageUrl(v.id));
    await duplicate.getByRole("button", { name: "Start" }).waitFor();
    // The tabs learn of each other by a message each way; the duplicate's answer from the first tab
    // is a few milliseconds away on an idle machine, more under a loaded one.
    await duplicate.waitForTimeout(1_000);
    const abandons = (r: { url(): string; postData(): string | null }) => r.url().endsWith("/progress") && (r.postData() ?? "").includes('"abandoned"');
    const beaconed = phone.context.waitForEvent("request", { predicate: abandons, timeout: 3_000 }).then(
      () => true,
      () => false,
    );
    await duplicate.close({ runBeforeUnload: true });
    expect(await beaconed).toBe(false);
    expect((await tenant.getVerification(v.id)).status).toBe("pending");

    // The last tab going is leaving. It goes by navigating away: a closed tab's beacon is the browser's
    // best effort, and Chromium dropped it in 4 of 48 closes on a loaded machine although sendBeacon
    // had answered true (2026-12-07; the CI flake of 2026-12-07 06:47). docs/api.md says so.
    await page.goto("about:blank");
    await eventually("abandoned", () => tenant.getVerification(v.id), (body) => body.status === "abandoned");
  });

  it("a reload mid-flow resumes: the photo queued on the device is sent, the step is kept", async () => {
    const v = await tenant.createVerification({
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 1 },
        { key: "back", type: "image", description: "Back", min: 1, max: 1 },
      ],
    });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();

    // The connection drops for uploads: the photo stays queued and the page keeps retrying.
    await page.route("**/v1/uploads/**", (route) => route.abort("internetdisconnected"));
    await takeLivePhoto(page);
    await page.getByText("Step 2 of 2").waitFor();
    await page.getByText("Not sent yet: the connection or the service failed. Trying again shortly; what you captured is kept.").waitFor();
    await page.getByText("1 item waiting to upload").waitFor();
    await screenshot(page, "11-retrying");
    expect((await tenant.getVerification(v.id)).captures).toEqual([]);

    // Reload while it is still failing: the same step comes back, with the queued photo.
    await page.reload();
    await page.getByText("Step 2 of 2").waitFor();
    await page.getByText("1 item waiting to upload").waitFor();
    await screenshot(page, "12-resumed");
    const timeline = await tenant.api.GET("/v1/verifications/{id}/events", { params: { path: { id: v.id } } });
    const events = timeline.data!.events.map((e) => e.event_name);
    expect(events).toContain("verification.abandoned"); // the beacon of the page that was left
    // The reopened page is on screen, so the end user has not left (probe of 2026-12-04: it stayed abandoned).
    await eventually("the reopened page to bring it back", () => tenant.getVerification(v.id), (body) => body.status === "pending");

    // Back online: the queued photo arrives exactly once, then the flow finishes.
    await page.unroute("**/v1/uploads/**");
    await eventually(
      "the queued photo to be accepted",
      async () => (await tenant.getVerification(v.id)).captures.map((c) => c.step_key),
      (keys) => keys.length === 1,
    );
    await takeLivePhoto(page);
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
    const after = await tenant.getVerification(v.id);
    expect(after.captures.map((c) => c.step_key)).toEqual(["front", "back"]);
  });
});

/**
 * A slow device store: while `window[flag]` is set, an IndexedDB transaction that `method` marks
 * (`marks(value)` of its argument) reports completion only when the test calls `window[release]()`.
 */
function holdStoreScript(flag: string, release: string, method: "put" | "delete", marks: string): string {
  return `
(() => {
  const held = [];
  const slow = new WeakSet();
  window.${flag} = false;
  window.${release} = () => {
    window.${flag} = false;
    held.splice(0).forEach((complete) => complete());
  };
  const original = IDBObjectStore.prototype.${method};
  IDBObjectStore.prototype.${method} = function (value, ...rest) {
    if (window.${flag} && (${marks})(value)) slow.add(this.transaction);
    return original.call(this, value, ...rest);
  };
  const oncomplete = Object.getOwnPropertyDescriptor(IDBTransaction.prototype, "oncomplete");
  Object.defineProperty(IDBTransaction.prototype, "oncomplete", {
    configurable: true,
    get() { return oncomplete.get.call(this); },
    set(handler) {
      if (!slow.has(this) || typeof handler !== "function") return oncomplete.set.call(this, handler);
      oncomplete.set.call(this, (event) => held.push(() => handler.call(this, event)));
    },
  });
})();
`;
}

/**
 * The camera opens (its stream is granted and live) but the page hears of it only once the test calls
 * `window.releaseCamera()`: a phone slow to start its camera. Every stream handed out is kept in
 * `window.cameraStreams`.
 */
const HOLD_CAMERA = `
(() => {
  const media = navigator.mediaDevices;
  const real = media.getUserMedia.bind(media);
  let release;
  const held = new Promise((resolve) => (release = resolve));
  window.releaseCamera = () => release();
  window.cameraStreams = [];
  media.getUserMedia = async (constraints) => {
    const stream = await real(constraints);
    window.cameraStreams.push(stream);
    await held;
    return stream;
  };
})();
`;

/** Holds the write that queues a new photo (`holdStore` / `releaseStore`). */
const HOLD_NEW_CAPTURES_IN_STORE = holdStoreScript("holdStore", "releaseStore", "put", "(value) => value && value.kind === 'capture' && !value.image_key");
/** Holds a job's removal (`holdDeletes` / `releaseDeletes`). */
const HOLD_DELETES_IN_STORE = holdStoreScript("holdDeletes", "releaseDeletes", "delete", "() => true");

describe("a slow device store", () => {
  it("a photo accepted while its removal from the store is still pending counts at once: the next step follows, not the photo step again", async () => {
    const v = await tenant.createVerification({ steps: PHOTO_THEN_QUESTIONS });
    phone = await openPhone();
    const { page } = phone;
    await page.addInitScript(HOLD_DELETES_IN_STORE);
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await page.evaluate(() => ((window as unknown as { holdDeletes: boolean }).holdDeletes = true));
    await takeLivePhoto(page);
    // The server has the photo; the page's store has not finished forgetting it.
    await eventually("the photo to be accepted", () => tenant.getVerification(v.id), (body) => body.captures.length === 1);
    await page.getByLabel("Order number").fill("A-1001");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByLabel("Anything else?").waitFor();
    await page.evaluate(() => (window as unknown as { releaseDeletes: () => void }).releaseDeletes());
    await page.getByRole("button", { name: "Finish" }).click();
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
    const done = await eventually("the verification to complete", () => tenant.getVerification(v.id), (body) => body.status === "completed", 60_000);
    expect(done.captures).toHaveLength(1);
    expect(done.answers?.order?.value).toBe("A-1001");
  });
});

/** WCAG contrast ratio of two computed `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (css: string) => {
    const [r, g, bl] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => Number(v) / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}
