import { inject } from "vitest";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import path from "node:path";
import { BROWSER_FIXTURES, buildFixtures, type FIXTURES } from "../../scripts/capture-fixtures/build";
import { videoToY4m } from "../../scripts/capture-fixtures/video";
import { cachePath, readManifest } from "../../scripts/eval/capture-footage/sources";
import { checkedFetch, pageUrl, tenantClient } from "./helpers/api";
import { axeClean, closePhone, openPhone, screenshot, type Phone } from "./helpers/browser";

/*
 * Issues 32 and 41 in Chromium: what is fed to the page as its camera decides the verdict's
 * `depth`, from the frames the page sends and the service measures. A still photo fed as the camera
 * ends not verified with depth_anomaly, named by the device's own name (Chromium names a file device
 * by its path, a virtual camera by its product) and, renamed to "Back Camera", by its frames alone.
 * Hand-held videos of real scenes (imageio's cockatoo.mp4 from Debian's python3-imageio; dlib's
 * BoBoT frames from libdlib19.1) end verified; they are renamed "Back Camera" because Chromium would
 * otherwise name them by their file path, which is itself a virtual-camera cue. A phone's screen
 * filmed by a camera (npm jsartoolkit5's sample video) is measured the same way and, as docs/signals.md
 * publishes for displays filmed by hand (the ladder's rung 6), not flagged. Hand-held distant scenes
 * come only from public repositories, which CI cannot reach: they run where the footage
 * evaluation's cache holds them.
 * Every verification uses the default signals (hosted page: screen, ai, reverse, depth).
 */

const tenant = tenantClient();
let fixtures: typeof FIXTURES;
let phone: Phone | undefined;

beforeAll(() => {
  fixtures = buildFixtures();
});

afterEach(async ({ task }) => {
  const open = phone;
  phone = undefined;
  await closePhone(task, open);
});

/** One live photo through the page with `video` as the camera; the finished verification and its capture. */
async function captureWith(name: string, options: { video?: string; renameCamera?: string; beforeStart?: (page: Phone["page"]) => Promise<unknown> }) {
  const v = await tenant.createVerification({ steps: [{ key: "front", type: "image", description: "The front of the parcel", min: 1, max: 1 }] });
  expect(v.config.signals_required).toEqual(["screen", "ai", "reverse", "depth"]);
  phone = await openPhone(options);
  const { page } = phone;
  await options.beforeStart?.(page);
  await page.goto(pageUrl(v.id));
  await page.getByRole("button", { name: "Start" }).click();
  const shutter = page.getByRole("button", { name: "Take photo" });
  await shutter.waitFor();
  await page.locator("video").evaluate((el: HTMLVideoElement) => new Promise((r) => (el.readyState >= 2 ? r(null) : el.addEventListener("loadeddata", () => r(null)))));
  // Aiming takes a person a moment: the preview runs (and is watched) before the shutter.
  await page.waitForTimeout(2500);
  await screenshot(page, `integrity-${name}-camera`);
  await axeClean(page, `${name} camera`);
  await shutter.click();
  await page.getByRole("button", { name: "Use this photo" }).click();
  await page.getByRole("heading", { name: "Thank you!" }).waitFor({ timeout: 60_000 });
  const done = await tenant.waitForVerification(v.id, { timeoutMs: 60_000 });
  const res = await checkedFetch(new Request(`${inject("baseUrl")}/v1/verifications/${v.id}/captures`, { headers: { Authorization: `Bearer ${inject("apiKey")}` } }));
  const [capture] = ((await res.json()) as { items: Array<Record<string, any>> }).items;
  // What a failing expectation prints: the verdict, the capture's depth signal and the record.
  const why = JSON.stringify({ verdict: done.verdict, depth: capture!.analysis.signals.depth, record: capture!.capture_integrity });
  return { done, capture: capture!, why };
}

/** A value of the depth signal's evidence. */
const valueOf = (capture: Record<string, any>, code: string) => (capture.analysis.signals.depth.evidence as Array<{ code: string; value?: number }>).find((e) => e.code === code)?.value;

const codes = (capture: Record<string, any>) => (capture.analysis.signals.depth.evidence as Array<{ code: string }>).map((e) => e.code);

describe("capture integrity in Chromium: what is fed as the camera", () => {
  it("a still photo fed as the camera, under the device's own name: not verified, depth_anomaly (a virtual camera, a frozen stream)", async () => {
    const { done, capture, why } = await captureWith("still-own-name", { video: fixtures.still });
    expect(capture.capture_integrity.device.label).toBe(fixtures.still);
    expect(done.verdict, why).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    expect(codes(capture)).toEqual(expect.arrayContaining(["virtual_camera", "frozen_stream"]));
    // The page sent the frames themselves (version 2), with the nonce the service issued.
    expect(capture.capture_integrity).toMatchObject({ schema_version: 2, frames: { width: 160, height: 120 }, patches: { side: 64 } });
    expect(capture.capture_integrity.frames.count).toBeGreaterThanOrEqual(6);
    expect(codes(capture)).not.toEqual(expect.arrayContaining(["burst_nonce_invalid", "burst_photo_mismatch"]));
  });

  it('the same still renamed "Back Camera": the frames alone give it away (frozen stream, no virtual-camera name)', async () => {
    const { done, capture, why } = await captureWith("still-renamed", { video: fixtures.still2, renameCamera: "Back Camera" });
    expect(capture.capture_integrity.device.label).toBe("Back Camera");
    expect(done.verdict, why).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly" });
    expect(codes(capture), why).toContain("frozen_stream");
    expect(codes(capture), why).not.toContain("virtual_camera");
    const times = capture.capture_integrity.frames.times_ms as number[];
    expect(capture.capture_integrity.frames.count).toBeGreaterThanOrEqual(5);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(300);
  });

  it('a still photo with noise added to every frame (rung 2), renamed "Back Camera": white noise, depth_anomaly', async () => {
    const { done, capture, why } = await captureWith("noisy-renamed", { video: fixtures.noisy, renameCamera: "Back Camera" });
    expect(valueOf(capture, "sensor_noise"), why).toBeGreaterThan(0.5);
    expect(done.verdict, why).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly" });
    expect(codes(capture), why).toContain("white_noise");
    expect(codes(capture), why).not.toContain("repeated_frames");
  });

  it.each([
    ["genuine", "a phone's hand-held video of a cockatoo (near 3-D)"],
    ["near3d", "a table of boxes and mugs walked around by hand (BoBoT)"],
    ["flat", "a wall with printed markers filmed by a phone held by hand (AR.js): one moving plane"],
  ] as const)("a real hand-held video fed as the camera, named as a phone's (%s: %s): verified, measured by the service", async (fixture, _what) => {
    const { done, capture, why } = await captureWith(fixture, { video: fixtures[fixture], renameCamera: "Back Camera" });
    expect(done.verdict, why).toMatchObject({ label: "verified", assessment: "complete", signals: { depth: { source: "capture_burst" } } });
    expect(capture.capture_integrity.preview.repeated_frames).toBe(0);
    expect(codes(capture), why).toContain("burst_photo_agreement");
    // The photo is the frame at the shutter, one of the frames the page sent (the JPEG and the two
    // reductions differ by a grey level or so): far above the 0.9 the service asks of it.
    expect(valueOf(capture, "burst_photo_agreement"), why).toBeGreaterThanOrEqual(0.98);
    // The first native patch is cut from the drawing the photo is encoded from (capture-burst/8).
    expect(valueOf(capture, "burst_patch_agreement"), why).toBeGreaterThanOrEqual(0.98);
    expect(codes(capture)).not.toEqual(expect.arrayContaining(["frozen_stream", "white_noise", "burst_nonce_invalid"]));
    console.log(`${fixture}: depth evidence ${codes(capture).join(", ")}; agreement ${valueOf(capture, "burst_photo_agreement")}, patch ${valueOf(capture, "burst_patch_agreement")}, noise correlation ${valueOf(capture, "noise_correlation")}, strips ${capture.capture_integrity.frames.bytes} + ${capture.capture_integrity.patches.bytes} bytes`);
  });

  // A distant scene filmed by hand: neither Debian nor npm holds one (docs/signals.md), so CI cannot
  // run this. It runs where the footage evaluation's cache holds the clip (a public repository's,
  // held out of the thresholds' fitting: `npx tsx scripts/eval/capture-footage/build.ts`).
  const distant = readManifest().filter((c) => c.category === "distant" && c.camera === "hand-held" && c.split === "test");
  it.skipIf(distant.some((c) => !existsSync(cachePath(c)))).each(distant.map((c) => [c.name, c.description] as const))(
    "a hand-held distant scene, held out of the thresholds (%s: %s; run where the evaluation's cache holds it), renamed: verified",
    async (name) => {
      const clip = distant.find((c) => c.name === name)!;
      const video = path.join(BROWSER_FIXTURES, `${clip.name}.y4m`);
      if (!existsSync(video)) videoToY4m(cachePath(clip), video, { start: 2, seconds: 10 });
      const { done, capture, why } = await captureWith(clip.name, { video, renameCamera: "Back Camera" });
      expect(done.verdict, why).toMatchObject({ label: "verified", assessment: "complete", signals: { depth: { source: "capture_burst" } } });
      expect(valueOf(capture, "burst_photo_agreement"), why).toBeGreaterThanOrEqual(0.98);
      expect(valueOf(capture, "burst_patch_agreement"), why).toBeGreaterThanOrEqual(0.98);
      console.log(`${clip.name}: depth evidence ${codes(capture).join(", ")}; frame chain ${valueOf(capture, "frame_chain")}`);
    },
  );

  it("a phone's screen filmed up close by a moving camera (jsartoolkit5's sample video), renamed: measured from its frames, and a known miss (rung 6)", async () => {
    const { done, capture, why } = await captureWith("display", { video: fixtures.display, renameCamera: "Back Camera" });
    // The frames are the display's and the photo's own: the burst is measured, as for any live camera.
    expect(valueOf(capture, "burst_photo_agreement"), why).toBeGreaterThanOrEqual(0.98);
    expect(valueOf(capture, "burst_patch_agreement"), why).toBeGreaterThanOrEqual(0.98);
    expect(done.verdict, why).toMatchObject({ signals: { depth: { source: "capture_burst" } } });
    // docs/signals.md, the ladder's rung 6: no screen cue separates a display filmed by hand from
    // genuine footage (a few per cent of such presses flagged). This one is not: when a cue ships
    // that catches it, this expectation and the published rate change together.
    expect(done.verdict, why).toMatchObject({ label: "verified" });
    console.log(`display: depth evidence ${codes(capture).join(", ")}; screen ${JSON.stringify(done.verdict?.signals.screen_detection)}`);
  });

  it("a burst the server refuses does not cost the end user the photo: it is sent again without, and depth reads not assessed", async () => {
    let refused = 0;
    const { done, capture, why } = await captureWith("burst-refused", {
      video: fixtures.near3d,
      renameCamera: "Back Camera",
      // As a server would answer a burst it cannot take (the page's own bug, a budget it outgrew): once.
      beforeStart: (page) =>
        page.route("**/v1/verifications/*/captures", async (route) => {
          const body = route.request().postDataJSON() as { capture_integrity?: unknown } | null;
          if (body?.capture_integrity && refused === 0) {
            refused += 1;
            await route.fulfill({ status: 400, contentType: "application/json", body: JSON.stringify({ error: { code: "invalid_request", message: "The request is invalid.", fields: { "capture_integrity.frames.png_base64": "At most 229376 bytes decoded." } } }) });
            return;
          }
          await route.continue();
        }),
    });
    expect(refused).toBe(1);
    expect(capture.capture_integrity, why).toBeUndefined();
    // Never verified without its frames (the reason may be another finding's: the fixture's earlier photos are in the tenant's history).
    expect(done.verdict, why).toMatchObject({ label: "suspicious", not_assessed: expect.arrayContaining(["depth"]), signals: { depth: { status: "not_assessed", reason: "no_capture_integrity" } } });
  });
});
