import { createHash } from "node:crypto";
import type { FakeRequest, FakeResponse } from "./server";

/*
 * What a provider fake received, kept per API key so a test can read back the exact request its
 * adapter sent (`GET <fake>/_requests/<key>`). A key is `scenario` or `scenario:anything`: the part
 * before the colon picks the fake's answer, the whole key keeps one test's requests apart.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Multipart fields (files as `{type, name, size, sha256}`) or a JSON body, when there is one. */
  body?: unknown;
  size: number;
  sha256: string;
}

export class RequestLog {
  private readonly byKey = new Map<string, RecordedRequest[]>();

  record(key: string, req: FakeRequest, body?: unknown) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
    const list = this.byKey.get(key) ?? [];
    list.push({ method: req.method, path: req.path, headers, ...(body === undefined ? {} : { body }), size: req.body.length, sha256: sha256(req.body) });
    this.byKey.set(key, list);
  }

  /** Answers `GET /_requests/<key>`, or null for any other request. */
  serve(req: FakeRequest): FakeResponse | null {
    const match = /^\/_requests\/(.+)$/.exec(req.path);
    if (!match || req.method !== "GET") return null;
    return { status: 200, body: JSON.stringify(this.byKey.get(decodeURIComponent(match[1]!)) ?? []) };
  }
}

export const scenarioOf = (key: string) => key.split(":")[0]!;

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A multipart body's fields, files described (type, name, size, hash) rather than copied. */
export async function formFields(req: FakeRequest): Promise<{ fields: Record<string, unknown>; files: Record<string, { blob: Blob; bytes: Uint8Array }> } | null> {
  const contentType = String(req.headers["content-type"] ?? "");
  if (!contentType.startsWith("multipart/form-data")) return null;
  const form = await new Request("http://fake/", { method: "POST", headers: { "content-type": contentType }, body: new Uint8Array(req.body) }).formData();
  const fields: Record<string, unknown> = {};
  const files: Record<string, { blob: Blob; bytes: Uint8Array }> = {};
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") fields[name] = value;
    else {
      const bytes = new Uint8Array(await value.arrayBuffer());
      files[name] = { blob: value, bytes };
      fields[name] = { type: value.type, name: (value as File).name, size: bytes.length, sha256: sha256(bytes) };
    }
  }
  return { fields, files };
}

/** Whether the bytes are the image type they are labelled (JPEG, PNG or WebP magic). */
export function isLabelled(bytes: Uint8Array, type: string): boolean {
  if (type === "image/jpeg") return bytes[0] === 0xff && bytes[1] === 0xd8;
  if (type === "image/png") return bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
  if (type === "image/webp") return String.fromCharCode(...bytes.subarray(0, 4)) === "RIFF" && String.fromCharCode(...bytes.subarray(8, 12)) === "WEBP";
  return false;
}
