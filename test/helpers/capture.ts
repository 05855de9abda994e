import { call, callJson } from "./api";
import { sha256Hex, toBase64, uniqueJpeg } from "./images";

export function inlineCapture(verificationId: string, extra: Record<string, unknown> = {}, bytes: Uint8Array = uniqueJpeg()) {
  return callJson(`/v1/verifications/${verificationId}/captures`, { body: { image_base64: toBase64(bytes), ...extra } });
}

/** upload-url → PUT → returns what a key-reference capture needs. */
export async function upload(verificationId: string, bytes: Uint8Array = uniqueJpeg(), contentType = "image/jpeg", kind?: string) {
  const minted = await callJson(`/v1/verifications/${verificationId}/captures/upload-url`, {
    body: { content_type: contentType, ...(kind ? { kind } : {}) },
  });
  if (minted.status !== 200) throw new Error(`upload-url failed: ${minted.status} ${JSON.stringify(minted.body)}`);
  const put = await call(new URL(minted.body.upload_url).pathname, { method: "PUT", rawBody: bytes, headers: { "Content-Type": contentType } });
  const receipt = await put.text();
  if (put.status !== 200) throw new Error(`PUT failed: ${put.status} ${receipt}`);
  return { ...minted.body, sha256: await sha256Hex(bytes) } as { upload_url: string; image_key: string; capture_id: string; expires_at: string; sha256: string };
}

export async function keyedCapture(verificationId: string, extra: Record<string, unknown> = {}, bytes?: Uint8Array, contentType?: string) {
  const up = await upload(verificationId, bytes, contentType);
  return { upload: up, res: await callJson(`/v1/verifications/${verificationId}/captures`, { body: { image_key: up.image_key, image_sha256: up.sha256, ...extra } }) };
}

function expectCreated(res: { status: number; body: any }) {
  if (res.status !== 201) throw new Error(`capture failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Submits an inline capture that must be accepted; returns the verification. */
export async function captureInline(verificationId: string, bytes: Uint8Array, extra: Record<string, unknown> = {}) {
  return expectCreated(await inlineCapture(verificationId, extra, bytes));
}

/** Uploads image bytes and captures them by key reference; must be accepted. */
export async function captureByKey(verificationId: string, bytes: Uint8Array, contentType: string, extra: Record<string, unknown> = {}) {
  return expectCreated((await keyedCapture(verificationId, extra, bytes, contentType)).res);
}

/** Uploads a forensic buffer (16-bit PNG depth map) and returns its key for `forensic_buffer_key`. */
export async function uploadDepthMap(verificationId: string, png: Uint8Array): Promise<string> {
  return (await upload(verificationId, png, "image/png", "forensic_buffer")).image_key;
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
