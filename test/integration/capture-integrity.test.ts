import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, createVerification, seedTenant, type TestTenant } from "../helpers/api";
import { burstNonce, sentIntegrity, stripLies, syntheticCapture, withChunkCrcs, type SyntheticCapture } from "../helpers/bursts";
import { captureByKey, captureInline, hasVerdict, inlineCapture, pollVerification, upload } from "../helpers/capture";
import { genuineRecord } from "../helpers/capture-integrity";
import { encodeJpeg, naturalScene, rng } from "../helpers/synth";

/*
 * The live capture measured by the service (CONTRACT.md, fifth release; issue 41): the capture page
 * sends the burst's frames with a nonce the service issued; the analysis measures the frames, checks
 * the nonce, its single use, replays and the photo's agreement, and decides `depth` from that alone.
 * A script's typed-up record (version 1) is the client's claim and never reads verified. Every
 * verification uses the default signals (hosted page: screen, ai, reverse, depth).
 */

let t: TestTenant;
let genuine: SyntheticCapture;
beforeAll(async () => {
  t = await seedTenant();
  genuine = await syntheticCapture("scene3d", 4101);
});

const depthOf = async (verificationId: string) => {
  const list = await callJson(`/v1/verifications/${verificationId}/captures`, { key: t.key });
  expect(list.status).toBe(200);
  return list.body.items.map((c: any) => ({ capture: c, depth: c.analysis.signals.depth, codes: (c.analysis.signals.depth.evidence ?? []).map((e: { code: string }) => e.code) as string[] }));
};

async function liveOnce(capture: SyntheticCapture, extra: Record<string, unknown> = {}, key = t.key) {
  const v = await createVerification(key, { max_captures: 1 });
  await captureInline(v.id, capture.photo, { capture_integrity: await sentIntegrity(v.id, capture), ...extra });
  const done = await pollVerification(key, v.id, hasVerdict);
  return { v, done };
}

describe("the live capture measured by the service", () => {
  it("key-reference path: the page's burst with its nonce is stored without its bytes, measured, and reads verified", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    expect(v.config.signals_required).toEqual(["screen", "ai", "reverse", "depth"]);
    const integrity = await sentIntegrity(v.id, genuine);
    await captureByKey(v.id, genuine.photo, "image/jpeg", { capture_integrity: integrity });
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict).toMatchObject({ label: "verified", assessment: "complete", signals: { depth: { source: "capture_burst" } } });
    const [{ capture, depth, codes }] = await depthOf(v.id);
    expect(depth).toMatchObject({ status: "assessed", value: { source: "capture_burst", anomaly: false }, method_version: "capture-burst/12" });
    expect(codes).toEqual(expect.arrayContaining(["burst_photo_agreement", "sensor_noise", "camera_motion", "parallax"]));
    const { png_base64: _f, ...frames } = integrity.frames;
    const { png_base64: _p, ...patches } = integrity.patches;
    expect(capture.capture_integrity).toMatchObject({ schema_version: 2, nonce: integrity.nonce, device: integrity.device, frames: { ...frames, count: frames.times_ms.length }, patches: { ...patches, count: patches.times_ms.length } });
    expect(capture.capture_integrity.frames.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(capture.capture_integrity)).not.toContain("png_base64");
    // The strips are evidence: in R2 beside the photo.
    const listed = await env.EVIDENCE.list({ prefix: `verifications/${v.id}/` });
    expect(listed.objects.map((o) => o.key).filter((k) => k.endsWith(".png"))).toHaveLength(2);
  });

  it("a script's typed-up record (version 1: 12 frames, noise 1.4, parallax 0.9 px, Back Camera) and no frames never reads verified", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    const typed = genuineRecord();
    await captureInline(v.id, encodeJpeg(naturalScene(480, 360, 4102), 90), { capture_integrity: typed });
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "not_assessed", not_assessed: ["depth"], signals: { depth: { status: "not_assessed", reason: "no_burst_frames" } } });
    const [{ capture, codes }] = await depthOf(v.id);
    expect(codes).toEqual(["client_claim_only"]);
    expect(capture.capture_integrity).toEqual(typed);
    // The certificate says depth was not assessed, never that it was checked.
    const cert = await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key });
    expect(JSON.stringify(cert.body)).not.toContain("capture_burst");
  });

  it("no record at all: depth not assessed (no_capture_integrity), never verified", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    await captureInline(v.id, encodeJpeg(naturalScene(480, 360, 4103), 90));
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "not_assessed", signals: { depth: { status: "not_assessed", reason: "no_capture_integrity" } } });
  });

  it("an injected still (renamed Back Camera): the frames the service measured are frozen", async () => {
    const { done, v } = await liveOnce(await syntheticCapture("still", 4104));
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    const [{ codes }] = await depthOf(v.id);
    expect(codes).toContain("frozen_stream");
  });

  // capture-burst/6: each of these, made by a script from one picture with no noise, read verified
  // under /5 (outside probe of 2026-12-05), the brightness ramp certified as a scene with depth.
  it.each([
    ["the picture moved by whole pixels", "shifted", "still_patches", 4120],
    ["the still with its levels ramped", "ramp", "frozen_stream", 4121],
    ["the still with a corner blinking", "blink", "still_patches", 4122],
  ] as const)("a noiseless forged burst, %s: depth_anomaly (%s)", async (_what, scene, code, seed) => {
    const { done, v } = await liveOnce(await syntheticCapture(scene, seed));
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    const [{ codes }] = await depthOf(v.id);
    expect(codes).toContain(code);
    expect(codes).not.toContain("parallax");
  });

  // capture-burst/7: the picture moved by whole pixels with ±1 on one pixel in twelve read verified
  // under /6 as a flat scene (the trimmed noise measure took each change for an edge).
  it("the picture moved by whole pixels with sparse noise added: depth_anomaly (white_noise)", async () => {
    const { done, v } = await liveOnce(await syntheticCapture("sparse", 4123));
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    const [{ codes }] = await depthOf(v.id);
    expect(codes).toContain("white_noise");
    expect(codes).not.toContain("still_patches");
  });

  it("one moving plane (a document, a wall) passes as a flat scene, and the certificate says so", async () => {
    const { done, v } = await liveOnce(await syntheticCapture("plane", 4105));
    expect(done.verdict).toMatchObject({ label: "verified" });
    const [{ depth, codes }] = await depthOf(v.id);
    expect(codes).toContain("planar_motion");
    expect(depth.confidence).toBeLessThanOrEqual(0.4);
    const cert = await callJson(`/v1/verifications/${v.id}/certificate`, { key: t.key });
    expect(cert.status).toBe(200);
    expect(JSON.stringify(cert.body)).toContain("capture_burst_flat_scene");
  });

  // capture-burst/8: under /7 the patches were tied to nothing, so a real camera's crops of anything
  // beside frames made from the photo made the noise rules see a camera (0 of 144 caught).
  it("a photo and its frames sent with another recording's native patches: burst_patch_mismatch", async () => {
    const forged = await syntheticCapture("plane", 4124);
    const recording = await syntheticCapture("scene3d", 4125);
    const { done, v } = await liveOnce({ photo: forged.photo, integrity: { ...forged.integrity, patches: recording.integrity.patches } });
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    const [{ codes }] = await depthOf(v.id);
    expect(codes).toContain("burst_patch_mismatch");
    expect(codes).toContain("burst_photo_agreement");
  });

  // capture-burst/8: patches moved further between frames than the ±8 px their alignment searched
  // read every edge of the picture as a camera's noise under /7 (0 of 144 such forgeries caught).
  it("a forged burst whose native patches are the photo's centre moved 12 px a frame, no noise: depth_anomaly (still_patches)", async () => {
    const { done, v } = await liveOnce(await syntheticCapture("jumping", 4126));
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    const [{ codes }] = await depthOf(v.id);
    expect(codes).toContain("still_patches");
    expect(codes).toContain("burst_patch_agreement");
  });

  // capture-burst/9 (outside probe of 2026-12-06): one native patch is no pair, so no noise rule
  // ran and the picture moved by whole pixels read verified as a flat scene.
  it("a forged burst with a single native patch (the picture moved by whole pixels, no noise): no noise to read, depth not assessed", async () => {
    const { done, v } = await liveOnce(await syntheticCapture("single", 4127));
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "not_assessed", not_assessed: ["depth"], signals: { depth: { status: "not_assessed", reason: "capture_burst_incomplete" } } });
    const [{ codes }] = await depthOf(v.id);
    expect(codes).toContain("capture_burst_incomplete");
    expect(codes).not.toContain("sensor_noise");
  });

  // capture-burst/9 (outside probe of 2026-12-06): a gain ramp multiplies the levels, so it changes
  // every edge and reads as noise spread like a camera's, where an added ramp of levels did not.
  it.each([
    ["gain", 4128, "the photo repeated, its gain ramped 1.5 % a frame"],
    ["gainShifted", 4129, "the photo moved by whole pixels, its gain ramped 1.5 % a frame"],
  ] as const)("a forged burst of %s (%i: %s), no noise: depth_anomaly", async (scene, seed, _what) => {
    const { done, v } = await liveOnce(await syntheticCapture(scene, seed));
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    const [{ codes }] = await depthOf(v.id);
    expect(codes).toEqual(expect.arrayContaining([scene === "gain" ? "frozen_stream" : "still_patches"]));
  });

  it("a photo sent beside real frames of another scene: burst_photo_mismatch", async () => {
    const other = await syntheticCapture("scene3d", 4106);
    const { done, v } = await liveOnce({ photo: encodeJpeg(naturalScene(480, 360, 4107), 92), integrity: other.integrity });
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly" });
    const [{ codes }] = await depthOf(v.id);
    expect(codes).toContain("burst_photo_mismatch");
  });

  it("nonces: one this service did not issue, one of another verification, and one carried twice never read as a pass", async () => {
    // A nonce typed by the script (with frames never sent before: a replay would trip first).
    const a = await createVerification(t.key, { max_captures: 1 });
    const typed = await syntheticCapture("scene3d", 4116);
    await captureInline(a.id, typed.photo, { capture_integrity: { ...typed.integrity, nonce: "A".repeat(51) } });
    const doneA = await pollVerification(t.key, a.id, hasVerdict);
    expect(doneA.verdict).toMatchObject({ label: "suspicious", signals: { depth: { status: "not_assessed", reason: "burst_nonce_invalid" } } });
    // A nonce issued to another verification.
    const b = await createVerification(t.key, { max_captures: 1 });
    const elsewhere = await burstNonce((await createVerification(t.key, { max_captures: 1 })).id);
    const capture = await syntheticCapture("scene3d", 4108);
    await captureInline(b.id, capture.photo, { capture_integrity: await sentIntegrity(b.id, capture, elsewhere) });
    expect((await pollVerification(t.key, b.id, hasVerdict)).verdict.signals.depth).toMatchObject({ status: "not_assessed", reason: "burst_nonce_invalid" });
    // One nonce carried by two captures of one verification.
    const c = await createVerification(t.key, { max_captures: 2 });
    const once = await burstNonce(c.id);
    const first = await syntheticCapture("scene3d", 4109);
    const second = await syntheticCapture("scene3d", 4110);
    await captureInline(c.id, first.photo, { capture_integrity: { ...first.integrity, nonce: once } });
    await captureInline(c.id, second.photo, { capture_integrity: { ...second.integrity, nonce: once } });
    const doneC = await pollVerification(t.key, c.id, hasVerdict);
    expect(doneC.verdict).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly" });
    for (const { codes } of await depthOf(c.id)) expect(codes).toContain("burst_nonce_reused");
  });

  it("a burst already received (same tenant, another verification) is a replay; another tenant's is not looked at", async () => {
    const replayed = await syntheticCapture("scene3d", 4111);
    const first = await liveOnce(replayed);
    expect(first.done.verdict.label).toBe("verified");
    const again = await liveOnce(replayed);
    expect(again.done.verdict).toMatchObject({ label: "suspicious" });
    const [{ codes }] = await depthOf(again.v.id);
    expect(codes).toContain("burst_replayed");
    const other = await seedTenant("Other Insurer");
    const elsewhere = await liveOnce(replayed, {}, other.key);
    const list = await callJson(`/v1/verifications/${elsewhere.v.id}/captures`, { key: other.key });
    expect(list.body.items[0].analysis.signals.depth.evidence.map((e: { code: string }) => e.code)).not.toContain("burst_replayed");
  });

  it("an attestation token bound to the burst's nonce passes; one bound to another value is attestation_not_bound", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const bound = await syntheticCapture("scene3d", 4112);
    const integrity = await sentIntegrity(v.id, bound);
    await captureInline(v.id, bound.photo, { capture_integrity: integrity, attestation_token: `pass-1~${integrity.nonce}` });
    const stray = await syntheticCapture("scene3d", 4113);
    await captureInline(v.id, stray.photo, { capture_integrity: await sentIntegrity(v.id, stray), attestation_token: "pass-2~somethingelse" });
    await pollVerification(t.key, v.id, hasVerdict);
    const [one, two] = await depthOf(v.id);
    expect(one.capture.attestation).toMatchObject({ verdict: "pass", cdata: integrity.nonce });
    expect(one.codes).not.toContain("attestation_not_bound");
    expect(two.codes).toContain("attestation_not_bound");
  });

  it("the nonce endpoint: 404 for an unknown link, 409 once no capture can be taken, 410 for a dead one, and never cached", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    const res = await call(`/v1/verifications/${v.id}/captures/burst-nonce`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = (await res.json()) as { nonce: string; expires_at: string };
    expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(29 * 60_000);
    expect((await callJson("/v1/verifications/vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z/captures/burst-nonce", { method: "POST" })).status).toBe(404);
    // Probe of 2026-12-05: nonces were issued for a verification that takes no more captures.
    await captureInline(v.id, genuine.photo, { capture_integrity: await sentIntegrity(v.id, genuine) });
    await pollVerification(t.key, v.id, hasVerdict);
    const full = await callJson(`/v1/verifications/${v.id}/captures/burst-nonce`, { method: "POST" });
    expect(full.status).toBe(409);
    expect(full.body.error.code).toBe("step_full");
    const redacted = await call(`/v1/verifications/${v.id}/redact`, { key: t.key, method: "POST" });
    await redacted.text();
    const dead = await callJson(`/v1/verifications/${v.id}/captures/burst-nonce`, { method: "POST" });
    expect(dead.status).toBe(410);
  });

  it("the api channel is unchanged: depth comes from the depth map, the burst is stored but not read for it", async () => {
    const v = await createVerification(t.key, { max_captures: 1, capture_channel: "api", signals_required: ["depth"] });
    await captureInline(v.id, genuine.photo, { capture_integrity: await sentIntegrity(v.id, genuine) });
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict.signals.depth).toEqual({ status: "not_assessed", reason: "no_depth_map" });
  });

  it("a malformed or oversized burst is 400 naming the field, on both paths, and nothing is stored", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const uploaded = await upload(v.id);
    const nonce = await burstNonce(v.id);
    const good = { ...genuine.integrity, nonce };
    const other = await syntheticCapture("plane", 4114);
    const bad: Array<[string, unknown]> = [
      ["capture_integrity.nonce", { ...good, nonce: undefined }],
      ["capture_integrity.nonce", { ...good, nonce: "bad nonce!" }],
      ["capture_integrity.schema_version", { ...good, schema_version: 3 }],
      ["capture_integrity.frames.png_base64", { ...good, frames: { ...good.frames, png_base64: "!!!!" } }],
      ["capture_integrity.frames.png_base64", { ...good, frames: { ...good.frames, png_base64: "A".repeat(400_000) } }],
      ["capture_integrity.frames.png_base64", { ...good, frames: { ...good.frames, png_base64: btoa("not a png at all") } }],
      // The strip holds 16 frames' rows, the times name 15.
      ["capture_integrity.frames.png_base64", { ...good, frames: { ...good.frames, times_ms: good.frames.times_ms.slice(1) } }],
      ["capture_integrity.frames.png_base64", { ...good, frames: { ...good.frames, png_base64: other.integrity.patches.png_base64 } }],
      // Whole chunks up to an IEND that ends the file (forge probe of 2026-12-04: an IDAT claiming 4 GiB was stored and measured),
      // each with its CRC (probe of 2026-12-05: a corrupted strip was stored and read verified).
      ...stripLies(good.frames.png_base64).map((png_base64): [string, unknown] => ["capture_integrity.frames.png_base64", { ...good, frames: { ...good.frames, png_base64 } }]),
      ["capture_integrity.frames.times_ms", { ...good, frames: { ...good.frames, times_ms: [...good.frames.times_ms].reverse() } }],
      ["capture_integrity.frames.times_ms", { ...good, frames: { ...good.frames, times_ms: Array.from({ length: 17 }, (_, i) => i) } }],
      ["capture_integrity.frames.width", { ...good, frames: { ...good.frames, width: 4000 } }],
      ["capture_integrity.patches.side", { ...good, patches: { ...good.patches, side: 32 } }],
      ["capture_integrity.patches", { ...good, patches: undefined }],
      ["capture_integrity.device.label", { ...good, device: { ...good.device, label: "x".repeat(257) } }],
      ["capture_integrity.preview.extra", { ...good, preview: { ...good.preview, extra: 1 } }],
    ];
    for (const [field, record] of bad) {
      const inline = await inlineCapture(v.id, { capture_integrity: record });
      expect(inline.status, field).toBe(400);
      expect(inline.body.error.code).toBe("invalid_request");
      expect(Object.keys(inline.body.error.fields), field).toContain(field);
      const keyed = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: uploaded.image_key, image_sha256: uploaded.sha256, capture_integrity: record } });
      expect(keyed.status, field).toBe(400);
      expect(Object.keys(keyed.body.error.fields), field).toContain(field);
    }
    const after = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
    expect(after.body.captures_count).toBe(0);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM captures WHERE verification_id = ?").bind(v.id).first<{ n: number }>();
    expect(rows!.n).toBe(0);
    const stored = await env.EVIDENCE.list({ prefix: `verifications/${v.id}/` });
    expect(stored.objects.filter((o) => o.key.endsWith(".png"))).toHaveLength(0);
  });

  it("a strip whose chunks and CRCs are right but whose data does not inflate: accepted (no decoder at the door), depth not assessed (burst_unreadable)", async () => {
    const capture = await syntheticCapture("scene3d", 4117);
    const png = Uint8Array.from(atob(capture.integrity.frames.png_base64), (c) => c.charCodeAt(0));
    png.fill(0xff, 60, Math.min(png.length - 20, 400));
    png.set(withChunkCrcs(png));
    let bin = "";
    for (const b of png) bin += String.fromCharCode(b);
    const { v, done } = await liveOnce({ photo: capture.photo, integrity: { ...capture.integrity, frames: { ...capture.integrity.frames, png_base64: btoa(bin) } } });
    expect(done.verdict).toMatchObject({ label: "suspicious", signals: { depth: { status: "not_assessed", reason: "burst_unreadable" } } });
    const [{ codes }] = await depthOf(v.id);
    expect(codes).toContain("burst_unreadable");
  });

  it("fuzzed records (seeded): every answer is 201 or a 400 naming a capture_integrity field, never a 500", async () => {
    const v = await createVerification(t.key, { max_captures: 20 });
    const random = rng(41);
    const hostile: unknown[] = [null, true, -1, 1e308, "", "x".repeat(300), "💥".repeat(200), [], Array.from({ length: 200 }, () => 1), {}, { a: { b: { c: [] } } }, 0.5, 2 ** 53, "AAAA", "iVBORw0KGgo="];
    const paths = [["schema_version"], ["nonce"], ["device"], ["device", "label"], ["device", "controls"], ["preview"], ["preview", "repeated_frames"], ["frames"], ["frames", "width"], ["frames", "height"], ["frames", "times_ms"], ["frames", "png_base64"], ["patches"], ["patches", "times_ms"], ["patches", "png_base64"]];
    let accepted = 0;
    for (let i = 0; i < 60; i += 1) {
      const record = structuredClone(await sentIntegrity(v.id, genuine)) as unknown as Record<string, unknown>;
      const path = paths[Math.floor(random() * paths.length)]!;
      let node = record;
      for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
      node[path.at(-1)!] = hostile[Math.floor(random() * hostile.length)];
      const res = await inlineCapture(v.id, { capture_integrity: record }, encodeJpeg(naturalScene(96, 72, 4200 + i), 85));
      expect(res.status, `${path.join(".")} = ${JSON.stringify(node[path.at(-1)!])?.slice(0, 80)}`).toBeOneOf([201, 400]);
      if (res.status === 400) expect(Object.keys(res.body.error.fields).every((f: string) => f.startsWith("capture_integrity"))).toBe(true);
      else accepted += 1;
    }
    const after = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
    expect(after.body.captures_count).toBe(accepted);
  });

  it("redaction removes the device label and the burst's strips, and keeps the record's shape", async () => {
    const { v } = await liveOnce(await syntheticCapture("scene3d", 4115));
    const redacted = await call(`/v1/verifications/${v.id}/redact`, { key: t.key, method: "POST" });
    expect(redacted.status).toBe(200);
    await redacted.text();
    const list = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
    expect(list.body.items[0].capture_integrity.device.label).toBeUndefined();
    expect(list.body.items[0].capture_integrity.schema_version).toBe(2);
    const stored = await env.DB.prepare("SELECT capture_integrity AS c FROM captures WHERE verification_id = ?").bind(v.id).first<{ c: string }>();
    expect(stored!.c).not.toContain("Back Camera");
    const left = await env.EVIDENCE.list({ prefix: `verifications/${v.id}/` });
    expect(left.objects).toHaveLength(0);
    const index = await env.DB.prepare("SELECT count(*) AS n FROM burst_frames WHERE verification_id = ?").bind(v.id).first<{ n: number }>();
    expect(index!.n).toBe(0);
  });
});
