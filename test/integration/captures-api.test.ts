import { SCREEN_MOIRE_VERSION } from "../../src/analysis/signals/screen-moire";
import jpeg from "jpeg-js";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { settings } from "../../src/env";
import { signEvidenceUrl } from "../../src/storage/evidence-urls";
import { call, callJson, createVerification, seedTenant, type TestTenant } from "../helpers/api";
import { captureByKey, captureInline, hasVerdict, pollVerification, uploadDepthMap } from "../helpers/capture";
import { sha256Hex, unreadableJpeg } from "../helpers/images";
import { signIn } from "../helpers/session";
import { encodeDepthPng, encodeJpeg, encodePngRgb, naturalScene } from "../helpers/synth";
import { signingKey } from "../../src/lib/signing-keys";

/* GET /v1/verifications/{id}/captures, GET /v1/captures/{id} and the signed evidence URLs they carry. */

let t: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
  other = await seedTenant("Other");
});

async function fetchUrl(url: string, headers: Record<string, string> = {}) {
  const u = new URL(url);
  const res = await call(u.pathname + u.search, { headers });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** Image, upload and depth-map steps, captured to their max and analysed. */
async function analysedVerification() {
  const live = encodeJpeg(naturalScene(640, 480, 21), 90);
  const invoice = encodePngRgb(naturalScene(200, 100, 22));
  const withDepth = encodeJpeg(naturalScene(320, 240, 23), 88);
  const depthPng = encodeDepthPng(64, 48, (x, y) => 600 + 40 * Math.sin(x / 5) * Math.cos(y / 7));
  const v = await createVerification(t.key, {
    steps: [
      { key: "front", type: "image", description: "Front of the car", min: 1, max: 1 },
      { key: "invoice", type: "upload", min: 1, max: 1 },
      { key: "depth", type: "image", description: "With depth", min: 1, max: 1 },
    ],
    signals_required: ["screen", "ai", "reverse", "depth"],
    capture_channel: "api",
  });
  await captureInline(v.id, live, { step_key: "front", location: { lat: 40.4168, lng: -3.7038, accuracy_m: 12 }, attestation_token: "pass-1", client_captured_at: "2026-11-20T09:30:00.000Z" });
  await captureByKey(v.id, invoice, "image/png", { step_key: "invoice" });
  const depthKey = await uploadDepthMap(v.id, depthPng);
  await captureInline(v.id, withDepth, { step_key: "depth", forensic_buffer_key: depthKey });
  await pollVerification(t.key, v.id, hasVerdict);
  return { v, live, invoice, withDepth, depthPng };
}

describe("captures and their analysis", () => {
  let fixture: Awaited<ReturnType<typeof analysedVerification>>;
  beforeAll(async () => {
    fixture = await analysedVerification();
  });

  it("lists every capture in capture order across image, upload and depth steps, with its analysis", async () => {
    const { v, live, invoice, withDepth } = fixture;
    const res = await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const items = res.body.items;
    expect(items.map((c: any) => [c.step_key, c.source, c.media_type])).toEqual([
      ["front", "live", "image/jpeg"],
      ["invoice", "upload", "image/png"],
      ["depth", "live", "image/jpeg"],
    ]);
    const [front, upload, depth] = items;
    expect(front).toMatchObject({
      verification_id: v.id,
      size_bytes: live.length,
      sha256: await sha256Hex(live),
      width: 640,
      height: 480,
      client_captured_at: "2026-11-20T09:30:00.000Z",
      location: { source: "device", lat: 40.4168, lng: -3.7038, accuracy_m: 12, is_mock: false },
      attestation: { verdict: "pass", provider: "siteverify" },
    });
    expect(front.id).toMatch(/^cap_/);
    expect(upload).toMatchObject({ size_bytes: invoice.length, sha256: await sha256Hex(invoice), width: 200, height: 100 });
    expect(depth.sha256).toBe(await sha256Hex(withDepth));
    expect(front.depth_map_url).toBeUndefined();
    expect(depth.depth_map_url).toMatch(/\/v1\/evidence\//);

    for (const c of items) {
      // The object keys hold the verification id, the capture flow's credential: the URLs never do.
      for (const url of [c.image_url, c.thumbnail_url, c.depth_map_url, c.credentials_url].filter(Boolean)) {
        const token = url.slice(url.lastIndexOf("/") + 1).split(".")[0];
        expect(atob(token.replace(/-/g, "+").replace(/_/g, "/"))).not.toContain("vfy_");
      }
      expect(c.analysis.status).toBe("completed");
      expect(Object.keys(c.analysis.signals)).toEqual(["screen_detection", "ai_detection", "reverse_search", "depth"]);
      expect(c.image_url).toMatch(/^http:\/\/localhost:8787\/v1\/evidence\//);
      expect(c.thumbnail_url).toMatch(/^http:\/\/localhost:8787\/v1\/evidence\//);
    }
    // Uploaded content: every fraud signal is not applicable; live captures carry provider, version and codes.
    expect(Object.values(upload.analysis.signals)).toEqual(Array(4).fill({ status: "not_applicable", reason: "uploaded_content" }));
    expect(front.analysis.signals.screen_detection).toMatchObject({ status: "assessed", provider: "offline-moire", method_version: SCREEN_MOIRE_VERSION });
    expect(typeof front.analysis.signals.screen_detection.value.screen_detected).toBe("boolean");
    expect(depth.analysis.signals.depth).toMatchObject({ status: "assessed", value: { source: "forensic_buffer" } });
    expect(front.analysis.signals.depth).toMatchObject({ status: "not_assessed", reason: "no_depth_map" });
    // Searched in the service's own history (this deployment has no web search: the note says so).
    expect(front.analysis.signals.reverse_search).toMatchObject({ status: "assessed", value: { found_online: false, match_count: 0, sources: ["service_history"] } });
    expect(front.analysis.notes.map((n: any) => n.code)).toEqual(expect.arrayContaining(["web_search_not_configured", "no_depth_map"]));
    expect(front.analysis.notes.map((n: any) => n.code)).not.toContain("pixels_unavailable");
  });

  it("GET /v1/captures/{id} answers the same capture alone, to a key or a dashboard session", async () => {
    const list = (await callJson(`/v1/verifications/${fixture.v.id}/captures`, { key: t.key })).body.items;
    const { cookie } = await signIn(t.id);
    for (const c of list) {
      const one = await callJson(`/v1/captures/${c.id}`, { headers: { Cookie: cookie } });
      expect(one.status).toBe(200);
      const strip = ({ image_url: _i, thumbnail_url: _t, depth_map_url: _d, credentials_url: _c, ...rest }: any) => rest;
      expect(strip(one.body)).toEqual(strip(c));
    }
  });

  it("signed URLs serve the exact bytes with the evidence headers; thumbnails are ≤ 480 px JPEGs", async () => {
    const { v, live, invoice, depthPng } = fixture;
    const [front, upload, depth] = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items;

    const image = await fetchUrl(front.image_url);
    expect(image.res.status).toBe(200);
    expect(await sha256Hex(image.bytes)).toBe(await sha256Hex(live));
    expect(image.res.headers.get("Content-Type")).toBe("image/jpeg");
    expect(image.res.headers.get("ETag")).toBe(`"${front.sha256}"`);
    expect(image.res.headers.get("Cache-Control")).toMatch(/^private, max-age=(29\d|300)$/);
    expect(image.res.headers.get("Content-Disposition")).toBe(`inline; filename="${front.id}.jpg"`);
    expect(image.res.headers.get("Content-Length")).toBe(String(live.length));

    const png = await fetchUrl(upload.image_url);
    expect(png.res.headers.get("Content-Type")).toBe("image/png");
    expect(await sha256Hex(png.bytes)).toBe(await sha256Hex(invoice));

    const map = await fetchUrl(depth.depth_map_url);
    expect(map.res.headers.get("Content-Type")).toBe("image/png");
    expect(await sha256Hex(map.bytes)).toBe(await sha256Hex(depthPng));

    const thumb = await fetchUrl(front.thumbnail_url);
    expect(thumb.res.status).toBe(200);
    expect(thumb.res.headers.get("Content-Type")).toBe("image/jpeg");
    expect(thumb.res.headers.get("ETag")).toBe(`"${await sha256Hex(thumb.bytes)}"`);
    const decoded = jpeg.decode(thumb.bytes, { useTArray: true });
    expect([decoded.width, decoded.height]).toEqual([480, 360]);
    const smallThumb = jpeg.decode((await fetchUrl(depth.thumbnail_url)).bytes, { useTArray: true });
    expect([smallThumb.width, smallThumb.height]).toEqual([320, 240]);

    const again = await fetchUrl(front.image_url, { "If-None-Match": `"${front.sha256}"` });
    expect(again.res.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    // `*` matches any current representation, a weak tag the same bytes (RFC 9110 §13.1.2; probe of 2026-12-07: `*` was 200).
    for (const header of ["*", `W/"${front.sha256}"`, `"other", "${front.sha256}"`]) {
      expect((await fetchUrl(front.image_url, { "If-None-Match": header })).res.status, header).toBe(304);
    }
    expect((await fetchUrl(front.image_url, { "If-None-Match": `"${"0".repeat(64)}"` })).res.status).toBe(200);
  });

  it("an expired URL is 410 expired, an altered one 401 unauthorized, with the standard error body (never 403)", async () => {
    const [front] = (await callJson(`/v1/verifications/${fixture.v.id}/captures`, { key: t.key })).body.items;
    const s = settings(env);
    const stale = await signEvidenceUrl(await signingKey(env, "evidence_urls"), s.baseUrl, { captureId: front.id, variant: "image", sha256: front.sha256 }, Date.now() - 5 * 60 * 1000 - 1);
    const expired = await fetchUrl(stale);
    expect(expired.res.status).toBe(410);
    expect(JSON.parse(new TextDecoder().decode(expired.bytes))).toEqual({ error: { code: "expired", message: expect.stringMatching(/expired/) } });

    const token = front.image_url.slice(front.image_url.lastIndexOf("/") + 1);
    const [body, sig] = token.split(".");
    const mid = Math.floor(sig.length / 2);
    const flipped = `${body}.${sig.slice(0, mid)}${sig[mid] === "A" ? "B" : "A"}${sig.slice(mid + 1)}`;
    const payloadMid = Math.floor(body.length / 2);
    const otherBody = `${body.slice(0, payloadMid)}${body[payloadMid] === "A" ? "B" : "A"}${body.slice(payloadMid + 1)}.${sig}`;
    for (const bad of [flipped, otherBody, "garbage", `${body}.`]) {
      const res = await callJson(`/v1/evidence/${bad}`);
      expect(res.status, bad).toBe(401);
      expect(res.body.error).toEqual({ code: "unauthorized", message: "This evidence URL is not valid." });
    }
  });

  it("another tenant's captures are 404; a publishable key is 403; no credential is 401", async () => {
    const [front] = (await callJson(`/v1/verifications/${fixture.v.id}/captures`, { key: t.key })).body.items;
    expect((await callJson(`/v1/captures/${front.id}`, { key: other.key })).status).toBe(404);
    expect((await callJson(`/v1/verifications/${fixture.v.id}/captures`, { key: other.key })).status).toBe(404);
    const stranger = await signIn(other.id);
    expect((await callJson(`/v1/captures/${front.id}`, { headers: { Cookie: stranger.cookie } })).status).toBe(404);
    expect((await callJson(`/v1/captures/cap_NOTANID`, { key: t.key })).status).toBe(404);
    expect((await callJson(`/v1/captures/${front.id}`, { key: t.publishableKey })).status).toBe(403);
    expect((await callJson(`/v1/captures/${front.id}`)).status).toBe(401);
  });
});

describe("captures whose pixels cannot be decoded", () => {
  it("have no thumbnail, say why in the notes, and a verification whose every live capture is unreadable ends failed, with no verdict", async () => {
    const v = await createVerification(t.key, { max_captures: 1, signals_required: ["screen", "reverse"] });
    await captureInline(v.id, unreadableJpeg());
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.status).toBe("failed");
    expect(done.failure_reason).toBe("unreadable_evidence: no live capture is an image any decoder can read");
    expect(done.verdict).toBeUndefined();
    const timeline = (await callJson(`/v1/verifications/${v.id}/events`, { key: t.key })).body.events.map((e: any) => e.event_name);
    expect(timeline).toContain("verification.failed");
    expect(timeline).not.toContain("verification.completed");
    const [capture] = (await callJson(`/v1/verifications/${v.id}/captures`, { key: t.key })).body.items;
    expect(capture.analysis.status).toBe("completed");
    expect(capture.thumbnail_url).toBeUndefined();
    expect(capture.image_url).toBeDefined();
    expect([capture.width, capture.height]).toEqual([null, null]);
    expect(capture.analysis.notes[0].code).toBe("pixels_unavailable");
    expect(capture.analysis.notes[0].detail).toBeTruthy();
    for (const key of ["screen_detection", "reverse_search"]) {
      expect(capture.analysis.signals[key], key).toMatchObject({ status: "not_assessed", reason: "undecodable_image" });
      expect(capture.analysis.notes, key).toContainEqual(expect.objectContaining({ code: "undecodable_image" }));
    }
  });

  it("one readable live capture beside an unreadable one: a verdict, never verified, naming what was not assessed", async () => {
    const v = await createVerification(t.key, { max_captures: 2, signals_required: ["screen", "reverse"] });
    await captureInline(v.id, unreadableJpeg());
    await captureInline(v.id, encodeJpeg(naturalScene(96, 64, 7401)));
    const done = await pollVerification(t.key, v.id, hasVerdict);
    expect(done.status).toBe("completed");
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "not_assessed", assessment: "partial", not_assessed: ["screen_detection", "reverse_search"] });
  });
});
