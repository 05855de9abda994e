import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { Page } from "playwright-core";
import { eventually, tenantClient } from "./helpers/api";
import { captureOnPhone, DESKTOP, openConsole, shoot, signInAsDev, type ConsoleBrowser } from "./helpers/console";

/*
 * What people typed, shown to operators (console probe of 2026-12-04): tenant metadata, a review
 * note, a narrative. It must neither widen the page nor reorder the console's own words around it,
 * and a session that ended while it was typed must not throw it away.
 */

const tenant = tenantClient();
let ui: ConsoleBrowser;

beforeAll(async () => {
  ui = await openConsole();
  await signInAsDev(ui.page);
});

afterAll(async () => {
  await ui?.close();
});

const TWO_PHOTOS = [
  { key: "front", type: "image" as const, description: "Front", min: 1, max: 1 },
  { key: "rear", type: "image" as const, description: "Rear", min: 1, max: 1 },
];
/** A verification captured on a phone, with its verdict: the console no longer polls it. */
async function finishedCase() {
  const v = await tenant.createVerification({ steps: TWO_PHOTOS });
  await captureOnPhone(v.capture_url, 2);
  await eventually("the verdict", () => tenant.getVerification(v.id), (body) => body.verdict !== undefined, 60_000);
  return v;
}

const detailUrl = (id: string) => `${inject("baseUrl")}/console/verifications/${id}`;

async function review(page: Page, decision: "Approve" | "Reject", note: string): Promise<void> {
  const panel = page.getByRole("region", { name: "Review", exact: true });
  await panel.getByLabel(decision).check();
  await panel.getByLabel("Note").fill(note);
  await panel.getByRole("button", { name: "Record the review" }).click();
}

/** A finished case open on the console's page, and `decision` recorded on it in another tab (closed since) that page has not heard of. */
async function reviewedInAnotherTab(decision: "Approve" | "Reject", note: string, onTimeline: RegExp) {
  const v = await finishedCase();
  const { page } = ui;
  await page.goto(detailUrl(v.id));
  await page.getByRole("region", { name: "Review", exact: true }).waitFor();
  const other = await ui.context.newPage();
  try {
    await other.goto(detailUrl(v.id));
    await review(other, decision, note);
    await other.getByRole("region", { name: "Timeline" }).getByText(onTimeline).waitFor();
  } finally {
    await other.close();
  }
  return { v, page };
}

describe("typed text in the console", () => {
  it("a 500-character metadata value wraps in the heading, and a note's bidi override cannot move the reviewer's name", async () => {
    const v = await tenant.createVerification({ max_captures: 1, metadata: { claim: "C-77", long: "x".repeat(500) } });
    const { page } = ui;
    await page.goto(detailUrl(v.id));
    await page.getByRole("heading", { level: 1, name: /claim C-77/ }).waitFor();
    // No certificate before the verdict: the header offered one that led to "nothing to share".
    expect(await page.getByRole("link", { name: "Open certificate" }).count()).toBe(0);
    // It widened the page to about 7 800 px at desktop widths.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

    // Nothing judged yet: there is nothing to approve (console probe of 2026-12-07: it read "Review: Approved").
    expect(await page.getByRole("region", { name: "Review", exact: true }).getByLabel("Approve").isDisabled()).toBe(true);
    // U+202E reverses everything after it up to the end of its paragraph: "(by you)" read ")uoy yb(" inside the quotes.
    const note = "Looks fine \u202E)lareneg-ycilop yb( ";
    await review(page, "Reject", note);
    const entry = page.getByRole("region", { name: "Timeline" }).getByRole("listitem").filter({ hasText: "Reviewed" });
    await entry.getByText(/\(by you\)$/).waitFor();
    const layout = await entry.evaluate((li) => {
      const typed = li.querySelector(".event-detail bdi")!;
      const walker = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
      let attribution: Text | null = null;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) if (node.textContent?.includes("(by ")) attribution = node as Text;
      const range = document.createRange();
      range.selectNodeContents(attribution!);
      return { typed: typed.textContent, typedRight: typed.getBoundingClientRect().right, attributionLeft: range.getBoundingClientRect().left, outside: !typed.contains(attribution) };
    });
    expect(layout.typed).toBe(note.trim());
    expect(layout.outside).toBe(true);
    // Drawn after the note, left to right, as the words say.
    expect(layout.attributionLeft).toBeGreaterThanOrEqual(layout.typedRight - 1);
    await shoot(ui, "30-typed-text");
    expect(ui.accessibility).toEqual([]);
  });

  it("a key named with one 100-character word wraps: its row's Revoke button stays on screen", async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${inject("baseUrl")}/console/developers`);
    const name = `Claims-${"k".repeat(93)}`;
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("button", { name: "Done" }).click();
    const revoke = page.getByRole("button", { name: `Revoke ${name}` });
    // The table scrolled sideways inside its card, the button half cut off (it ended at x = 1 357 in a 1 280 px window).
    const fit = await revoke.evaluate((button) => {
      const wrap = button.closest(".table-wrap")!;
      return { overflow: wrap.scrollWidth - wrap.clientWidth, past: button.getBoundingClientRect().right - wrap.getBoundingClientRect().right };
    });
    expect(fit.overflow).toBeLessThanOrEqual(0);
    expect(fit.past).toBeLessThanOrEqual(0);
    await revoke.click();
    await page.getByRole("dialog", { name: `Revoke ${name}?` }).getByRole("button", { name: "Revoke the key" }).click();
    await page.getByRole("row").filter({ hasText: name }).getByText(/revoked/).waitFor();
    await page.setViewportSize(DESKTOP);
  });

  it("a certificate link made with an API key: the key's id wraps in the By column, the table stays in its card", async () => {
    const v = await finishedCase();
    const made = await tenant.api.POST("/v1/verifications/{id}/certificate-link", { params: { path: { id: v.id } } });
    expect(made.response.status).toBe(201);
    const { page } = ui;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(detailUrl(v.id));
    const table = page.getByRole("table", { name: "Certificate links" });
    await table.getByText(/^an API key \(key_/).waitFor();
    // "an API key (key_0NW8…)" unbroken pushed the table 88 px past its card at 1 280 px.
    const overflow = await table.evaluate((t) => {
      const wrap = t.closest(".table-wrap")!;
      return wrap.scrollWidth - wrap.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize(DESKTOP);
  });

  it("signed out everywhere while a note is typed: the note stays, the page says how to go on, and pressing again records it", async () => {
    // A finished case: the page reads nothing on its own, so only the write meets the ended session.
    const v = await finishedCase();
    const { page } = ui;
    await page.goto(detailUrl(v.id));
    const note = "Plate matches the policy; the dent is where the narrative says.";
    // The draft outlives the page (a reload, or the sign-in round trip a read's 401 starts).
    await page.getByRole("region", { name: "Review", exact: true }).getByLabel("Note").fill(note);
    await page.reload();
    expect(await page.getByRole("region", { name: "Review", exact: true }).getByLabel("Note").inputValue()).toBe(note);

    // Another tab of the same browser signs every member out.
    const other = await ui.context.newPage();
    try {
      await other.goto(`${inject("baseUrl")}/console/settings`);
      await other.getByRole("button", { name: "Sign everyone out" }).click();
      await other.getByRole("dialog", { name: "Sign every member out, everywhere?" }).getByRole("button", { name: "Sign everyone out" }).click();
      await other.waitForURL(/\/console\/sign-in/);

      // It used to leave for the sign-in page at once and come back with the note empty.
      await review(page, "Approve", note);
      await page.getByText(/^The review was not recorded.*You were signed out/).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/console/verifications/${v.id}`);
      expect(await page.getByRole("region", { name: "Review", exact: true }).getByLabel("Note").inputValue()).toBe(note);
    } finally {
      // Signed in again whatever happened above: the tests after this one share the browser's session.
      await signInAsDev(other);
      await other.close();
    }
    await page.getByRole("region", { name: "Review", exact: true }).getByRole("button", { name: "Record the review" }).click();
    await page.getByRole("region", { name: "Timeline" }).getByText(`approved: “${note}” (by you)`).waitFor();
    // Recorded: the draft is gone.
    await page.reload();
    expect(await page.getByRole("region", { name: "Review", exact: true }).getByLabel("Note").inputValue()).toBe("");
  });

  it("a decision made on a page that missed a colleague's review is refused, and the page then shows that review", async () => {
    // Console probe of 2026-12-07: the stale page's approval silently replaced the newer rejection.
    const { v, page } = await reviewedInAnotherTab("Reject", "The odometer photo shows a screen.", /^rejected: “The odometer photo/);
    // The first page never heard of it (no focus came back to it) and approves.
    await review(page, "Approve", "Looks right to me.");
    await page.getByText(/^The review was not recorded.*Another review was recorded/).waitFor();
    await page.getByRole("region", { name: "Review", exact: true }).getByText("The odometer photo shows a screen.").waitFor();
    await shoot(ui, "31-review-conflict");
    await page.setViewportSize(DESKTOP);
    expect((await tenant.getVerification(v.id)).review).toMatchObject({ decision: "rejected" });
    // Decided again beside the review now on screen, it is recorded.
    await page.getByRole("region", { name: "Review", exact: true }).getByRole("button", { name: "Record the review" }).click();
    await page.getByRole("region", { name: "Timeline" }).getByText(/^approved: “Looks right to me/).waitFor();
  });

  it("a tab the operator comes back to shows the review another tab recorded meanwhile", async () => {
    // A finished case is not polled: the first tab kept showing no review (console probe of 2026-12-04, F7).
    const { page } = await reviewedInAnotherTab("Approve", "Checked on the phone with the claimant.", /^approved: “Checked on the phone/);
    // Headless Chromium neither hides a background tab nor moves the window's focus between tabs
    // (bringToFront fires neither event), so the focus a real switch back gives is sent here.
    await page.bringToFront();
    await page.evaluate(() => window.dispatchEvent(new FocusEvent("focus")));
    await page.getByRole("region", { name: "Review", exact: true }).getByText("Checked on the phone with the claimant.").waitFor({ timeout: 10_000 });
    await page.getByRole("region", { name: "Timeline" }).getByText(/^approved: “Checked on the phone/).waitFor();
  });

  it("finalizing a case another tab finalized meanwhile shows that case, not a failure", async () => {
    // With its verdict in, the stale tab does not poll: it learns of the other tab's finalize only from its own.
    const v = await finishedCase();
    const { page } = ui;
    const other = await ui.context.newPage();
    try {
      for (const p of [page, other]) {
        await p.goto(detailUrl(v.id));
        await p.getByLabel("Narrative").waitFor();
      }
      const finalize = async (p: Page, narrative: string) => {
        await p.getByLabel("Narrative").fill(narrative);
        await p.getByRole("button", { name: "Finalize and analyse the case" }).click();
        await p.getByRole("dialog", { name: "Finalize this case?" }).getByRole("button", { name: "Finalize" }).click();
      };
      await finalize(other, "Reversed into a bollard in the car park.");
      await other.locator("blockquote.narrative").getByText("Reversed into a bollard in the car park.").waitFor({ timeout: 60_000 });

      await finalize(page, "A narrative typed in the stale tab.");
      await page.locator("blockquote.narrative").getByText("Reversed into a bollard in the car park.").waitFor();
      expect(await page.getByRole("dialog").count()).toBe(0);
      expect(await page.getByText(/Finalize failed/).count()).toBe(0);
    } finally {
      await other.close();
    }
  });
});
