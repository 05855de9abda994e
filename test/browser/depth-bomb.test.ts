import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { depthBomb } from "../helpers/bombs";
import { encodeDepthPng, encodeJpeg, naturalScene } from "../helpers/synth";
import { checkedFetch, eventually, workerLogTail } from "./helpers/api";

/*
 * Issue 33, from outside the process: a crafted depth map (a 16-bit grey PNG claiming 8192 × 8192,
 * about 130 KB that inflate to 128 MiB) sent over HTTP to the running Workers (as `npm start` runs them: the
 * API Worker and the analysis Worker, each in a workerd process of its own) the way an app integrating the
 * capture API sends a forensic buffer: upload-url, PUT, capture with `forensic_buffer_key`. The
 * analysis refuses it from its header; the verification gets its verdict, and the evidence API says
 * why its depth was not assessed.
 */

const base = () => inject("baseUrl");

async function json(path: string, init: { method?: string; body?: unknown; key?: boolean } = {}): Promise<{ status: number; body: any }> {
  const headers = new Headers();
  if (init.key) headers.set("Authorization", `Bearer ${inject("apiKey")}`);
  if (init.body !== undefined) headers.set("Content-Type", "application/json");
  const res = await checkedFetch(new Request(`${base()}${path}`, { method: init.method ?? (init.body !== undefined ? "POST" : "GET"), headers, body: init.body !== undefined ? JSON.stringify(init.body) : null }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** upload-url of kind forensic_buffer, then the PUT of the bytes: the key a capture names. */
async function uploadDepthMap(id: string, png: Uint8Array): Promise<string> {
  const minted = await json(`/v1/verifications/${id}/captures/upload-url`, { body: { content_type: "image/png", kind: "forensic_buffer" } });
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  const put = await checkedFetch(new Request(minted.body.upload_url, { method: "PUT", headers: { "Content-Type": "image/png" }, body: new Blob([png as Uint8Array<ArrayBuffer>]) }));
  expect(put.status, await put.clone().text()).toBe(200);
  await put.text();
  return minted.body.image_key as string;
}

describe("a depth-map bomb sent to the running Workers", () => {
  it("is refused from its header in the analysis: depth not assessed with the reason, the verdict written, the genuine map read", async () => {
    const bomb = depthBomb(8_192, 8_192);
    expect(bomb.length).toBeLessThan(140_000);
    const created = await json("/v1/verifications", {
      key: true,
      body: { steps: [{ key: "photos", type: "image", description: "The car", min: 2, max: 2 }], signals_required: ["screen", "depth"], capture_channel: "api" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const genuine = encodeDepthPng(160, 120, (x, y) => 900 + y * 2 - Math.max(0, 35 - Math.hypot(x - 80, y - 60)) * 9);
    for (const [seed, png] of [[341, bomb], [342, genuine]] as const) {
      const key = await uploadDepthMap(id, png);
      const photo = encodeJpeg(naturalScene(256, 192, seed), 90);
      const captured = await json(`/v1/verifications/${id}/captures`, { body: { image_base64: Buffer.from(photo).toString("base64"), forensic_buffer_key: key } });
      expect(captured.status, JSON.stringify(captured.body)).toBe(201);
    }

    let done: any;
    try {
      done = await eventually("the verdict", async () => (await json(`/v1/verifications/${id}`, { key: true })).body, (v) => v.verdict !== undefined || v.status === "failed", 90_000);
    } catch (err) {
      console.error(workerLogTail());
      throw err;
    }
    expect(done.status).toBe("completed");
    expect(done.verdict).toMatchObject({ label: "suspicious", reason_code: "not_assessed", not_assessed: ["depth"] });
    const captures = (await json(`/v1/verifications/${id}/captures`, { key: true })).body.items as any[];
    const digest = createHash("sha256").update(bomb).digest("hex");
    const refused = captures.find((c) => c.analysis.signals.depth.status === "not_assessed");
    expect(refused.analysis.signals.depth).toEqual({ status: "not_assessed", reason: "depth_map_unreadable" });
    expect(refused.analysis.notes).toContainEqual({ code: "depth_map_unreadable", signal: "depth", detail: expect.stringMatching(/^image_too_large: PNG frame of 8192x8192 .*over the 50 MP ceiling/) });
    expect(captures.find((c) => c !== refused).analysis.signals.depth).toMatchObject({ status: "assessed", value: { source: "forensic_buffer", anomaly: false } });
    // The map itself was kept as sent, byte for byte: its signed URL serves exactly the crafted file.
    const kept = await fetch(refused.depth_map_url);
    expect(kept.status).toBe(200);
    expect(createHash("sha256").update(new Uint8Array(await kept.arrayBuffer())).digest("hex")).toBe(digest);
  }, 180_000);
});
