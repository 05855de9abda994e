import { afterEach, describe, expect, it } from "vitest";
import type { Page, Request } from "playwright-core";
import type { CreateVerificationRequest } from "../../clients/typescript/src/index";
import { eventually, pageUrl, tenantClient } from "./helpers/api";
import { axeClean, closePhone, jpegFromPage, openPhone, screenshot, type Phone } from "./helpers/browser";

/*
 * No end user is ever stuck (issue 42): the page sends submit only when the server says it would
 * take it (`ready_for_submit`), a refusal of submit or of a photo's upload ends on a screen the end
 * user can act on, and 429s are waited out a bounded number of times. Never an endless "Sending…".
 */

const tenant = tenantClient();

const ALL_OPTIONAL: CreateVerificationRequest["steps"] = [
  { key: "front", type: "image", description: "Front", min: 0, max: 1 },
  { key: "papers", type: "upload", description: "Papers", min: 0, max: 1, accept: ["image/jpeg"], max_size_bytes: 2_000_000 },
  { key: "notes", type: "text", required: false, description: "Anything else?", validation: { max_length: 200, format: "free_text" } },
];

let phone: Phone | undefined;
afterEach(async ({ task }) => {
  const open = phone;
  phone = undefined;
  await closePhone(task, open);
});

/** The first request to `glob` gets the standard error body `error` with `status`; the rest reach the Worker. */
async function refuseFirst(page: Page, glob: string, status: number, error: { code: string; message: string }): Promise<void> {
  let refused = false;
  await page.route(glob, async (route) => {
    if (refused) return route.continue();
    refused = true;
    await route.fulfill({ status, contentType: "application/json", body: JSON.stringify({ error }) });
  });
}

/** Every request to `glob` gets the service's 429 (standard body, `Retry-After: 1`) until unrouted. */
async function throttle(page: Page, glob: string, message: string): Promise<void> {
  await page.route(glob, (route) =>
    route.fulfill({ status: 429, contentType: "application/json", headers: { "Retry-After": "1" }, body: JSON.stringify({ error: { code: "too_many_requests", message } }) }),
  );
}

/** The POSTs the page made to a capture-flow path ending in `suffix`. */
function posts(page: Page, suffix: string): string[] {
  const seen: string[] = [];
  page.on("request", (req: Request) => {
    if (req.method() === "POST" && new URL(req.url()).pathname.endsWith(suffix)) seen.push(req.url());
  });
  return seen;
}

/** Through the three optional steps without giving anything, then Finish. */
async function skipEverything(page: Page): Promise<void> {
  await page.getByText("Step 1 of 3").waitFor();
  await page.getByRole("button", { name: "Skip" }).click();
  await page.getByText("Step 2 of 3").waitFor();
  await page.getByRole("button", { name: "Skip" }).click();
  await page.getByLabel("Anything else?").waitFor();
  await page.getByRole("button", { name: "Finish" }).click();
}

async function takeLivePhoto(page: Page): Promise<void> {
  const shutter = page.getByRole("button", { name: "Take photo" });
  await shutter.waitFor();
  await page.locator("video").evaluate((v: HTMLVideoElement) => new Promise((r) => (v.readyState >= 2 ? r(null) : v.addEventListener("loadeddata", () => r(null)))));
  await shutter.click();
  await page.getByRole("img", { name: "The photo you took" }).waitFor();
  await page.getByRole("button", { name: "Use this photo" }).click();
}

describe("the capture page never leaves the end user on “Sending…”", () => {
  it("every step optional and all skipped: submit is taken, the page says it was sent with nothing to check, the verification is failed (no_evidence)", async () => {
    const v = await tenant.createVerification({ steps: ALL_OPTIONAL });
    phone = await openPhone();
    const { page } = phone;
    const submits = posts(page, "/submit");
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await skipEverything(page);

    await page.getByRole("heading", { name: "Sent" }).waitFor({ timeout: 30_000 });
    await page.getByText("What you sent has no photo or file, so there is nothing to check.").waitFor();
    expect(await page.getByRole("heading", { name: "Sending…" }).count()).toBe(0);
    expect(submits).toHaveLength(1);
    await screenshot(page, "15-sent-without-evidence");
    await axeClean(page, "sent without evidence");

    const done = await tenant.getVerification(v.id);
    expect(done).toMatchObject({ status: "failed", failure_reason: "no_evidence", captures_count: 0 });
    expect(done.submitted_at).toBeDefined();
    expect(done.verdict).toBeUndefined();
    // Nothing more went out after the end.
    await page.waitForTimeout(1_500);
    expect(submits).toHaveLength(1);
  });

  it("a refused submit is not sent again on its own: the page says it was not sent and leads back through the steps", async () => {
    const v = await tenant.createVerification({ steps: ALL_OPTIONAL });
    phone = await openPhone();
    const { page } = phone;
    const submits = posts(page, "/submit");
    // The server refuses the first submit (as it did before the fifth release, when it required a capture).
    await refuseFirst(page, "**/v1/verifications/*/submit", 409, { code: "invalid_state", message: "The verification cannot be submitted yet." });
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await skipEverything(page);

    await page.getByRole("heading", { name: "Not sent yet" }).waitFor({ timeout: 30_000 });
    await page.waitForTimeout(3_000);
    expect(submits).toHaveLength(1); // no loop: it waits for the end user
    await screenshot(page, "16-not-sent");
    await axeClean(page, "not sent");

    await page.getByRole("button", { name: "Review the steps" }).click();
    await skipEverything(page);
    await page.getByRole("heading", { name: "Sent" }).waitFor({ timeout: 30_000 });
    expect(submits).toHaveLength(2);
    expect((await tenant.getVerification(v.id)).status).toBe("failed");
  });

  it("429 on submit: waited out per Retry-After a few times, then a screen with Try again; trying again sends it", async () => {
    const v = await tenant.createVerification({ steps: ALL_OPTIONAL });
    phone = await openPhone();
    const { page } = phone;
    const submits = posts(page, "/submit");
    await throttle(page, "**/v1/verifications/*/submit", "Too many writes into this verification; retry later.");
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await skipEverything(page);

    await page.getByRole("heading", { name: "Too many attempts" }).waitFor({ timeout: 30_000 });
    // The first try and three waits of Retry-After (1 s each), then it stops.
    expect(submits).toHaveLength(4);
    await page.waitForTimeout(2_500);
    expect(submits).toHaveLength(4);
    await screenshot(page, "17-too-many-attempts");
    await axeClean(page, "too many attempts");

    await page.unroute("**/v1/verifications/*/submit");
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("heading", { name: "Sent" }).waitFor({ timeout: 30_000 });
    expect(submits).toHaveLength(5);
    expect((await tenant.getVerification(v.id)).failure_reason).toBe("no_evidence");
  });

  // Probe of 2026-12-06: a 429 on the page's first read showed "Something went wrong. Please reload"
  // at once and ignored Retry-After.
  it("429 on the first load: a busy screen waits out Retry-After a few times, then Try again; trying again opens the landing", async () => {
    const v = await tenant.createVerification({ steps: ALL_OPTIONAL });
    phone = await openPhone();
    const { page } = phone;
    const reads: string[] = [];
    page.on("request", (req: Request) => {
      if (req.method() === "GET" && new URL(req.url()).pathname.startsWith("/v1/verify/")) reads.push(req.url());
    });
    await throttle(page, "**/v1/verify/*", "Too many requests from this network; try again later.");
    await page.goto(pageUrl(v.id));
    await page.getByRole("heading", { name: "The service is busy" }).waitFor();
    await screenshot(page, "23-busy-first-load");
    await axeClean(page, "busy at first load");
    expect(await page.getByText("Something went wrong").count()).toBe(0);

    await page.getByRole("heading", { name: "Too many attempts" }).waitFor({ timeout: 30_000 });
    // The first read and three waits of Retry-After (1 s each), then it stops.
    expect(reads).toHaveLength(4);
    await page.waitForTimeout(2_500);
    expect(reads).toHaveLength(4);

    await page.unroute("**/v1/verify/*");
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("button", { name: "Start" }).waitFor();
    expect(reads).toHaveLength(5);
  });

  it("a photo past its upload's window (409 upload_expired) goes back to its step to be taken again, never “link expired”", async () => {
    const v = await tenant.createVerification({ steps: [{ key: "front", type: "image", description: "Front", min: 1, max: 1 }] });
    phone = await openPhone();
    const { page } = phone;
    // The Worker's clock cannot be moved from this suite: its answer past the window (the workers
    // suite gets it from the server: test/integration/submit-and-upload-window.test.ts) is given to
    // the page for the first capture; the upload before it is real.
    await refuseFirst(page, "**/v1/verifications/*/captures", 409, {
      code: "upload_expired",
      message: "This image_key was not captured within an hour of its upload URL's expiry; upload the image again with a new upload URL.",
    });
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await takeLivePhoto(page);

    await page.getByText("A photo waited too long on this device before it could be sent. Please take or choose it again.").waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Take photo" }).waitFor();
    expect(await page.getByRole("heading", { name: "This link has expired" }).count()).toBe(0);
    await screenshot(page, "18-upload-expired");
    await axeClean(page, "upload expired");
    expect((await tenant.getVerification(v.id)).submitted_at).toBeUndefined(); // the queued submit went with the photo

    await takeLivePhoto(page);
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
    const after = await eventually("the photo to be accepted", () => tenant.getVerification(v.id), (body) => body.captures.length === 1);
    expect(after.captures.map((c) => c.step_key)).toEqual(["front"]);
  });
  it("a file the server refuses (415) is named with its reason on its step, and nothing is submitted before the end user finishes", async () => {
    const v = await tenant.createVerification({
      steps: [{ key: "receipts", type: "upload", description: "Receipts", min: 1, max: 2, accept: ["image/jpeg", "image/png"], max_size_bytes: 2_000_000 }],
    });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    const jpeg = await jpegFromPage(page);
    const picker = page.locator("input[type=file]");
    await picker.setInputFiles({ name: "receipt.jpg", mimeType: "image/jpeg", buffer: jpeg });
    await page.getByText("1 of 2 added").waitFor();
    await eventually("the first file", () => tenant.getVerification(v.id), (body) => body.captures_count === 1);
    // The page screens type and size from the bytes as the server does, so the server's refusal of the
    // second file (the one that fills the step, so the page is finishing) comes from this route.
    await refuseFirst(page, "**/captures", 415, { code: "unsupported_media_type", message: "The uploaded bytes are image/gif, not the declared image/jpeg." });
    await picker.setInputFiles({ name: "receipt-2.jpg", mimeType: "image/jpeg", buffer: jpeg });
    await page.getByText("A file could not be used: The uploaded bytes are image/gif, not the declared image/jpeg.").waitFor({ timeout: 30_000 });
    expect(await page.getByRole("heading", { name: "Thank you!" }).count()).toBe(0);
    await screenshot(page, "20-file-refused");
    await axeClean(page, "file refused");
    expect((await tenant.getVerification(v.id)).submitted_at).toBeUndefined();

    await page.getByRole("button", { name: "Finish" }).click();
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
    const after = await eventually("the submit", () => tenant.getVerification(v.id), (body) => body.submitted_at !== undefined);
    expect(after.captures.map((c) => c.step_key)).toEqual(["receipts"]);
  });

  it("an answer refused as changed too often (409 answer_limit) says so in the page's words, never as a photo refused", async () => {
    const v = await tenant.createVerification({
      steps: [
        { key: "policy", type: "text", description: "Policy number", required: true, validation: { max_length: 40, format: "free_text" } },
        { key: "front", type: "image", description: "Front", min: 1, max: 1 },
      ],
    });
    phone = await openPhone();
    const { page } = phone;
    // Ten revisions cannot be typed on this page (it has no way back to a step): the server's own
    // refusal of an eleventh (test/integration/answers-and-seal.test.ts) is given to the page for its answer.
    await refuseFirst(page, "**/v1/verifications/*/answers", 409, {
      code: "answer_limit",
      message: 'The answer to step "policy" was changed 9 times already and cannot be changed again.',
    });
    await page.goto(pageUrl(v.id));
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByLabel("Policy number").fill("POL-1");
    await page.getByRole("button", { name: "Continue" }).click();

    await page.getByText("This answer was changed too many times, so the last one saved is kept.").waitFor({ timeout: 30_000 });
    expect(await page.getByText("A photo could not be used").count()).toBe(0);
    await screenshot(page, "19-answer-limit");
    await axeClean(page, "answer limit");
  });
});

describe("a request the sender withdrew (redacted) says so, never “expired” or a live request", () => {
  const redact = async (id: string) => {
    const { response } = await tenant.api.POST("/v1/verifications/{id}/redact", { params: { path: { id } } });
    expect(response.status).toBe(200);
  };

  it("opened after the redaction: the withdrawn screen, and no step is offered", async () => {
    const v = await tenant.createVerification({ max_captures: 1 });
    await redact(v.id);
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("heading", { name: "This request was withdrawn" }).waitFor();
    expect(await page.getByRole("button", { name: "Start" }).count()).toBe(0);
    await screenshot(page, "21-withdrawn");
    await axeClean(page, "withdrawn");
  });

  it("redacted while the page is open: the next file sent ends on the withdrawn screen; an upload-only landing names files, not the camera", async () => {
    const v = await tenant.createVerification({
      steps: [{ key: "receipts", type: "upload", description: "Receipts", min: 1, max: 1, accept: ["image/jpeg"], max_size_bytes: 2_000_000 }],
    });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("heading", { name: "A file is needed" }).waitFor();
    await page.getByText("Your camera and your location are not used.", { exact: false }).waitFor();
    expect(await page.getByText("Photos are taken live").count()).toBe(0);
    await page.getByRole("button", { name: "Start" }).click();
    const jpeg = await jpegFromPage(page);
    await redact(v.id);
    await page.locator("input[type=file]").setInputFiles({ name: "receipt.jpg", mimeType: "image/jpeg", buffer: jpeg });
    await page.getByRole("heading", { name: "This request was withdrawn" }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole("heading", { name: "This link has expired" }).count()).toBe(0);
    expect((await tenant.getVerification(v.id)).captures_count).toBe(0);
  });
});

describe("audit mode: existing content fills the image steps (SPEC), so the page asks for files, not the camera", () => {
  it("the landing names files, the step offers a file picker and no camera, and the file is received", async () => {
    const v = await tenant.createVerification({ mode: "audit", steps: [{ key: "receipt", type: "image", description: "The receipt", min: 1, max: 1 }] });
    phone = await openPhone();
    const { page } = phone;
    await page.goto(pageUrl(v.id));
    await page.getByRole("heading", { name: "A file is needed" }).waitFor();
    expect(await page.locator(".checklist li").allTextContents()).toEqual(["1 image file — The receipt"]);
    expect(await page.getByText("Photos are taken live").count()).toBe(0);
    await page.getByRole("button", { name: "Start" }).click();
    const picker = page.locator("input[type=file]");
    await picker.waitFor({ state: "attached" });
    expect(await picker.getAttribute("capture")).toBeNull();
    expect(await page.getByRole("button", { name: "Take photo" }).count()).toBe(0);
    await screenshot(page, "22-audit-file");
    await axeClean(page, "audit file step");
    await picker.setInputFiles({ name: "receipt.jpg", mimeType: "image/jpeg", buffer: await jpegFromPage(page) });
    await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
    const after = await eventually("the capture", () => tenant.getVerification(v.id), (body) => body.captures_count === 1);
    expect(after.captures.map((c) => c.step_key)).toEqual(["receipt"]);
  });
});

describe("a step another device filled", () => {
  it("a photo taken on a stale page for a step already full is said not to be added, and the page moves on", async () => {
    const v = await tenant.createVerification({
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 1 },
        { key: "back", type: "image", description: "Back", min: 1, max: 1 },
      ],
    });
    await afterTheOtherDevicesPhoto(v.id, async (here) => {
      await here.getByText("This step already had everything it needs (sent from another tab or device), so this one was not added.").waitFor({ timeout: 30_000 });
      await here.getByText("Step 2 of 2").waitFor();
      expect((await tenant.getVerification(v.id)).captures_count).toBe(1);
      await screenshot(here, "23-step-full-elsewhere");
      await axeClean(here, "step full elsewhere");
    });
  });

  it("an answer refused because another device finished first is not called received: the page says it was already done", async () => {
    // The page took any completion it met while finishing for its own submit, so the second device
    // read "Everything was received" while the service kept only the first device's answer (probe of 2026-12-04).
    const v = await tenant.createVerification({
      steps: [
        { key: "front", type: "image", description: "Front", min: 1, max: 1 },
        { key: "policy", type: "text", description: "Policy number", required: true, validation: { max_length: 40, format: "free_text" } },
      ],
    });
    await afterTheOtherDevicesPhoto(v.id, async (here, other) => {
      await here.getByText("Step 2 of 2").waitFor({ timeout: 30_000 });
      await other.getByRole("textbox").fill("from the other device");
      await other.getByRole("button", { name: "Finish" }).click();
      await other.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 30_000 });
      await eventually("completed", () => tenant.getVerification(v.id), (body) => body.status === "completed");

      await here.getByRole("textbox").fill("from this device");
      await here.getByRole("button", { name: "Finish" }).click();
      await here.getByRole("heading", { name: "Already done" }).waitFor({ timeout: 30_000 });
      expect(await here.getByRole("heading", { name: "Thank you!" }).count()).toBe(0);
      expect((await tenant.getVerification(v.id)).answers).toMatchObject({ policy: { value: "from the other device" } });
      await screenshot(here, "24-finished-elsewhere");
      await axeClean(here, "finished elsewhere");
    });
  });
});

/**
 * Two devices open the link and start on the first step; the other device's photo is received
 * first, then this device takes its own. `then` goes on with both pages.
 */
async function afterTheOtherDevicesPhoto(id: string, then: (here: Page, other: Page) => Promise<void>): Promise<void> {
  const other = await openPhone();
  try {
    phone = await openPhone();
    for (const page of [phone.page, other.page]) {
      await page.goto(pageUrl(id));
      await page.getByRole("button", { name: "Start" }).click();
    }
    await takeLivePhoto(other.page);
    await eventually("the other device's photo", () => tenant.getVerification(id), (body) => body.captures_count === 1);
    await takeLivePhoto(phone.page);
    await then(phone.page, other.page);
  } finally {
    await other.close();
  }
}
