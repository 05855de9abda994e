import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, createVerification, seedTenant, type TestTenant } from "../helpers/api";
import { captureByKey, captureInline, hasVerdict, inlineCapture, pollVerification, upload } from "../helpers/capture";
import { frozenRecord, genuineRecord } from "../helpers/capture-integrity";
import { encodeJpeg, naturalScene } from "../helpers/synth";
import { rng } from "../helpers/synth";

/*
 * The capture-integrity record (issue 32): sent with a live capture on both capture paths, bounded
 * and validated (400 naming the field, nothing stored), stored on the capture and served by the
 * evidence API, its device label removed by redaction, and on hosted-page verifications the `depth`
 * signal decided from it: a record's absence is not assessed, a frozen stream is depth_anomaly.
 */

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

const photo = (seed: number) => encodeJpeg(naturalScene(480, 360, seed), 90);

describe("capture-integrity record", () => {
  it("a hosted-page verification requires depth by default; GET /v1/capabilities says depth is assessed there", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    expect(v.config.signals_required).toEqual(["screen", "ai", "reverse", "depth"]);
    const api = await createVerification(t.key, { max_captures: 1, capture_channel: "api" });
    expect(api.config.signals_required).toEqual(["screen", "ai", "reverse"]);
    const caps = await callJson("/v1/capabilities", { key: t.key });
    expect(caps.status).toBe(200);
    expect(caps.body.signals.depth.channels.hosted_page).toMatchObject({ available: true });
    expect(caps.body.signals.depth.channels.hosted_page.reason).toContain("capture-integrity record");
    expect(caps.body.defaults).toEqual({ signals_required: ["screen", "ai", "reverse", "depth"], capture_channel: "hosted_page" });
    // Requiring depth on the hosted page is no longer refused.
    const required = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1, signals_required: ["depth"] } });
    expect(required.status).toBe(201);
  });

  it("key-reference path: a genuine record is stored, served by the evidence API, and depth reads capture_burst: verified", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    const record = genuineRecord();
    await captureByKey(v.id, photo(3201), "image/jpeg", { capture_integrity: record });
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict).toMatchObject({ label: "verified", assessment: "complete", signals: { depth: { source: "capture_burst", confidence: expect.any(Number) } } });
    expect(done.verdict.signals.depth.confidence).toBeGreaterThanOrEqual(0.9);
    const list = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
    expect(list.status).toBe(200);
    expect(list.body.items[0].capture_integrity).toEqual(record);
    expect(list.body.items[0].analysis.signals.depth).toMatchObject({ status: "assessed", value: { source: "capture_burst" } });
    const one = await callJson(`/v1/captures/${list.body.items[0].id}`, { key: t.key });
    expect(one.body.capture_integrity).toEqual(record);
  });

  it("inline path: a still through a virtual camera renamed Back Camera reads suspicious with depth_anomaly", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    await captureInline(v.id, photo(3202), { capture_integrity: frozenRecord() });
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "depth_anomaly", signals: { depth: { source: "capture_burst", confidence: 0.05 } } });
    const list = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
    const evidence = list.body.items[0].analysis.signals.depth.evidence.map((e: { code: string }) => e.code);
    expect(evidence).toContain("frozen_stream");
    expect(evidence).not.toContain("virtual_camera");
  });

  it("a script posting a live capture without the record: depth not assessed (no_capture_integrity), never verified", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    await captureInline(v.id, photo(3203));
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict).toMatchObject({
      label: "suspicious",
      reason_code: "not_assessed",
      assessment: "partial",
      not_assessed: ["depth"],
      signals: { depth: { status: "not_assessed", reason: "no_capture_integrity" } },
    });
  });

  it("the api channel is unchanged: depth comes from the depth map, the record is stored but not read for it", async () => {
    const v = await createVerification(t.key, { max_captures: 1, capture_channel: "api", signals_required: ["depth"] });
    await captureInline(v.id, photo(3204), { capture_integrity: genuineRecord() });
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.verdict.signals.depth).toEqual({ status: "not_assessed", reason: "no_depth_map" });
    const list = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
    expect(list.body.items[0].capture_integrity).toEqual(genuineRecord());
  });

  it("an invalid or oversized record is 400 naming the field, on both paths, and nothing is stored", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const uploaded = await upload(v.id);
    const bad: Array<[string, unknown]> = [
      ["capture_integrity.schema_version", { ...genuineRecord(), schema_version: 2 }],
      ["capture_integrity.device.label", { ...genuineRecord(), device: { ...genuineRecord().device, label: "x".repeat(257) } }],
      ["capture_integrity.device.controls", { ...genuineRecord(), device: { ...genuineRecord().device, controls: Array.from({ length: 25 }, () => "zoom") } }],
      ["capture_integrity.device.controls.0", { ...genuineRecord(), device: { ...genuineRecord().device, controls: ["<script>"] } }],
      ["capture_integrity.burst.frames", { ...genuineRecord(), burst: { ...genuineRecord().burst, frames: 121 } }],
      ["capture_integrity.burst.temporal_noise", { ...genuineRecord(), burst: { ...genuineRecord().burst, temporal_noise: -1 } }],
      ["capture_integrity.burst.parallax.residual_px", { ...genuineRecord(), burst: { ...genuineRecord().burst, parallax: { blocks: 1, baseline_px: 1, residual_px: 1e9 } } }],
      ["capture_integrity.preview.extra", { ...genuineRecord(), preview: { ...genuineRecord().preview, extra: 1 } }],
      ["capture_integrity.burst", { ...genuineRecord(), burst: undefined }],
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
  });

  it("fuzzed records (seeded): every answer is 201 or a 400 naming a capture_integrity field, never a 500", async () => {
    const v = await createVerification(t.key, { max_captures: 20 });
    const random = rng(32);
    const hostile: unknown[] = [null, true, -1, 1e308, "", "x".repeat(300), "💥".repeat(200), [], Array.from({ length: 200 }, () => 1), {}, { a: { b: { c: [] } } }, 0.5, 2 ** 53];
    const paths = [["schema_version"], ["device"], ["device", "label"], ["device", "kind"], ["device", "settings"], ["device", "settings", "frame_rate"], ["device", "controls"], ["burst"], ["burst", "frames"], ["burst", "parallax"], ["burst", "parallax", "blocks"], ["preview"], ["preview", "repeated_frames"]];
    let accepted = 0;
    for (let i = 0; i < 60; i += 1) {
      const record = structuredClone(genuineRecord()) as unknown as Record<string, unknown>;
      const path = paths[Math.floor(random() * paths.length)]!;
      let node = record;
      for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
      node[path.at(-1)!] = hostile[Math.floor(random() * hostile.length)];
      const res = await inlineCapture(v.id, { capture_integrity: record }, photo(3300 + i));
      expect(res.status, `${path.join(".")} = ${JSON.stringify(node[path.at(-1)!])?.slice(0, 80)}`).toBeOneOf([201, 400]);
      if (res.status === 400) expect(Object.keys(res.body.error.fields).every((f: string) => f.startsWith("capture_integrity"))).toBe(true);
      else accepted += 1;
    }
    const after = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
    expect(after.body.captures_count).toBe(accepted);
  });

  it("redaction removes the device label and keeps the measures", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    await captureInline(v.id, photo(3205), { capture_integrity: genuineRecord() });
    await pollVerification(t.key, v.id, hasVerdict);
    const redacted = await call(`/v1/verifications/${v.id}/redact`, { key: t.key, method: "POST" });
    expect(redacted.status).toBe(200);
    await redacted.text();
    const list = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
    const { label: _label, ...device } = genuineRecord().device;
    expect(list.body.items[0].capture_integrity).toEqual({ ...genuineRecord(), device });
    const stored = await env.DB.prepare("SELECT capture_integrity AS c FROM captures WHERE verification_id = ?").bind(v.id).first<{ c: string }>();
    expect(stored!.c).not.toContain("Back Camera");
  });
});
