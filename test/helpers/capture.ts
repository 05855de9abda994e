import { call, callJson } from "./api";
import { sha256Hex, toBase64 } from "./images";

/** Submits an inline capture and returns the response (201 expected). */
export async function captureInline(verificationId: string, bytes: Uint8Array, extra: Record<string, unknown> = {}) {
  const res = await callJson(`/v1/verifications/${verificationId}/captures`, { body: { image_base64: toBase64(bytes), ...extra } });
  if (res.status !== 201) throw new Error(`capture failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Uploads a forensic buffer (16-bit PNG depth map) and returns its key for `forensic_buffer_key`. */
export async function uploadDepthMap(verificationId: string, png: Uint8Array): Promise<string> {
  const minted = await callJson(`/v1/verifications/${verificationId}/captures/upload-url`, { body: { content_type: "image/png", kind: "forensic_buffer" } });
  if (minted.status !== 200) throw new Error(`upload-url failed: ${minted.status} ${JSON.stringify(minted.body)}`);
  const put = await call(new URL(minted.body.upload_url).pathname, { method: "PUT", rawBody: png, headers: { "Content-Type": "image/png" } });
  await put.text();
  if (put.status !== 200) throw new Error(`PUT failed: ${put.status}`);
  return minted.body.image_key;
}

/** Uploads image bytes through the upload URL and captures them by key reference. */
export async function captureByKey(verificationId: string, bytes: Uint8Array, contentType: string, extra: Record<string, unknown> = {}) {
  const minted = await callJson(`/v1/verifications/${verificationId}/captures/upload-url`, { body: { content_type: contentType } });
  const put = await call(new URL(minted.body.upload_url).pathname, { method: "PUT", rawBody: bytes, headers: { "Content-Type": contentType } });
  await put.text();
  const res = await callJson(`/v1/verifications/${verificationId}/captures`, {
    body: { image_key: minted.body.image_key, image_sha256: await sha256Hex(bytes), ...extra },
  });
  if (res.status !== 201) throw new Error(`capture failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls the tenant read until `done` holds (the analysis runs on the real local queue consumer). */
export async function pollVerification(key: string, id: string, done: (v: any) => boolean, timeoutMs = 25_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const res = await callJson(`/v1/verifications/${id}`, { key });
    last = res.body;
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`verification ${id} did not settle in time: ${JSON.stringify(last)}`);
}

export const hasVerdict = (v: any) => v?.verdict !== undefined || v?.status === "failed";
