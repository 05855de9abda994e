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

export async function keyedCapture(verificationId: string, extra: Record<string, unknown> = {}, bytes?: Uint8Array) {
  const up = await upload(verificationId, bytes);
  return { upload: up, res: await callJson(`/v1/verifications/${verificationId}/captures`, { body: { image_key: up.image_key, image_sha256: up.sha256, ...extra } }) };
}
