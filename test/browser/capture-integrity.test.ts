import { inject } from "vitest";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildFixtures, type FIXTURES } from "../../scripts/capture-fixtures/build";
import { checkedFetch, pageUrl, tenantClient, workerLogTail } from "./helpers/api";
import { axeClean, openPhone, screenshot, type Phone } from "./helpers/browser";

/*
 * Issue 32 in Chromium: what is fed to the page as its camera decides the verdict's `depth`. A
 * still photo fed as the camera ends not verified with depth_anomaly, named by the device's own
 * name (Chromium names a file device by its path, a virtual camera by its product) and, renamed to
 * "Back Camera", by its frames alone. A phone's video held by hand (imageio's cockatoo.mp4 from
 * Debian's python3-imageio) ends verified; it is renamed "Back Camera" because Chromium would
 * otherwise name it by its file path, which is itself a virtual-camera cue.
 * Every verification uses the default signals (hosted page: screen, ai, reverse, depth).
 */

const tenant = tenantClient();
let fixtures: typeof FIXTURES;
let phone: Phone | undefined;

beforeAll(() => {
  fixtures = buildFixtures();
});

afterEach(async ({ task }) => {
  if (task.result?.state === "fail" && phone) console.error(`${task.name}: what the phone showed\n${await phone.diagnostics()}\n${workerLogTail()}`);
  await phone?.close();
  phone = undefined;
});

/** One live photo through the page with `video` as the camera; the finished verification and its capture. */
async function captureWith(name: string, options: { video?: string; renameCamera?: string }) {
  const v = await tenant.createVerification({ steps: [{ key: "front", type: "image", description: "The front of the parcel", min: 1, max: 1 }] });
  expect(v.config.signals_required).toEqual(["screen", "ai", "reverse", "depth"]);
  phone = await openPhone(options);
  const { page } = phone;
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

const codes = (capture: Record<string, any>) => (capture.analysis.signals.depth.evidence as Array<{ code: string }>).map((e) => e.code);

describe("capture integrity in Chromium: what is fed as the camera", () => {
  it("a still photo fed as the camera, under the device's own name: not verified, depth_anomaly (a virtual camera, a frozen stream)", async () => {
    const { done, capture, why } = await captureWith("still-own-name", { video: fixtures.still });
    expect(capture.capture_integrity.device.label).toBe(fixtures.still);
    expect(done.verdict, why).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    expect(codes(capture)).toEqual(expect.arrayContaining(["virtual_camera", "frozen_stream"]));
    expect(capture.capture_integrity.burst.identical_pairs).toBe(capture.capture_integrity.burst.frames - 1);
  });

  it('the same still renamed "Back Camera": the frames alone give it away (frozen stream, no virtual-camera name)', async () => {
    const { done, capture, why } = await captureWith("still-renamed", { video: fixtures.still2, renameCamera: "Back Camera" });
    expect(capture.capture_integrity.device.label).toBe("Back Camera");
    expect(done.verdict, why).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly" });
    expect(codes(capture), why).toContain("frozen_stream");
    expect(codes(capture), why).not.toContain("virtual_camera");
    expect(capture.capture_integrity.burst.frames).toBeGreaterThanOrEqual(5);
    expect(capture.capture_integrity.burst.duration_ms).toBeGreaterThanOrEqual(300);
  });

  it('a photo on a moving plane (simulated screen) renamed "Back Camera": noise and motion, but one plane: depth_anomaly', async () => {
    const { done, capture, why } = await captureWith("screen-renamed", { video: fixtures.screen, renameCamera: "Back Camera" });
    expect(capture.capture_integrity.burst.temporal_noise, why).toBeGreaterThan(0.5);
    expect(done.verdict, why).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly" });
    expect(codes(capture), why).toContain("planar_motion");
    expect(codes(capture), why).not.toContain("repeated_frames");
  });

  it("a real hand-held phone video fed as the camera (named as a phone's): verified, depth from the capture burst", async () => {
    const { done, capture, why } = await captureWith("genuine", { video: fixtures.genuine, renameCamera: "Back Camera" });
    expect(done.verdict, why).toMatchObject({ label: "verified", assessment: "complete", signals: { depth: { source: "capture_burst" } } });
    expect(capture.capture_integrity.burst.identical_pairs).toBe(0);
    expect(capture.capture_integrity.preview.repeated_frames).toBe(0);
    expect(codes(capture)).not.toEqual(expect.arrayContaining(["frozen_stream"]));
  });
});
