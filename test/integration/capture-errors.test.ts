import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { captures, uploads } from "../../src/db/schema";
import { analysesOf } from "../../src/db/analyses";
import { receiveUpload } from "../../src/domain/capture/uploads";
import { uploadDesks, verificationObject } from "../../src/durable-objects/verification-client";
import { STALE_CLAIM_MS } from "../../src/model/verification/upload-slots";
import { UploadSlots } from "../../src/durable-objects/verification/upload-slots";
import { ApiError } from "../../src/lib/errors";
import { signToken } from "../../src/lib/crypto";
import { call, callJson, createVerification, db, eventually, seedTenant, type TestTenant } from "../helpers/api";
import { tamperSignature } from "../helpers/tamper";
import { inlineCapture, upload } from "../helpers/capture";
import { pngSignatureBytes, sha256Hex, toBase64, uniqueJpeg } from "../helpers/images";
import { footprint } from "../helpers/snapshot";
import { signingKey } from "../../src/lib/signing-keys";

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

const steps = [
  { key: "front", type: "image", description: "Front", min: 1, max: 1 },
  { key: "docs", type: "upload", min: 0, max: 2, accept: ["image/png"], max_size_bytes: 200 },
  { key: "plate", type: "text", required: true, validation: { max_length: 8, format: "alphanumeric_id" } },
];

/** When the claim holding an upload's slot was made (the object's kept slot), if one holds it. */
async function claimOf(verificationId: string, objectKey: string): Promise<number | undefined> {
  const slot = await runInDurableObject(verificationObject(env, verificationId), (_instance, state) => new UploadSlots(state.storage.kv).kept(objectKey));
  return slot?.status === "uploading" ? (slot.claimedAt ?? undefined) : undefined;
}

/** Waits until every accepted capture's analysis has written what it writes (its thumbnail), so a footprint taken now stays still. */
async function analysed(verificationId: string) {
  await eventually(async () => {
    const [stored, done] = await Promise.all([db().select({ id: captures.id }).from(captures).where(eq(captures.verificationId, verificationId)), analysesOf(db(), verificationId)]);
    return done.length === stored.length;
  }, "the accepted captures' analyses");
}

/** Runs a refused request and asserts its status/code and that nothing was persisted. */
async function refused(verificationId: string, request: () => Promise<{ status: number; body: any }>, status: number, code: string) {
  await analysed(verificationId);
  const before = await footprint(verificationId);
  const res = await request();
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
  // Only invalid_request names fields; every other error says it all in its message.
  if (code !== "invalid_request") expect(res.body.error).not.toHaveProperty("fields");
  expect(await footprint(verificationId)).toEqual(before);
  return res;
}

describe("capture refusals persist nothing", () => {
  it("unknown_step for unknown keys, text steps and keyless captures without image steps", async () => {
    const v = await createVerification(t.key, { steps });
    await refused(v.id, () => inlineCapture(v.id, { step_key: "nope" }), 400, "unknown_step");
    await refused(v.id, () => inlineCapture(v.id, { step_key: "plate" }), 400, "unknown_step");
    const uploadsOnly = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] });
    await refused(uploadsOnly.id, () => inlineCapture(uploadsOnly.id), 400, "unknown_step");
  });

  it("unknown_step also when every slot is full: a text step or an unknown key is 400 on both paths, never 409", async () => {
    const v = await createVerification(t.key, { steps });
    // An upload made while there was room, for a key-reference capture once there is none.
    const kept = await upload(v.id);
    const png = () => pngSignatureBytes(40 + Math.floor(Math.random() * 40));
    expect((await inlineCapture(v.id, { step_key: "front" })).status).toBe(201);
    expect((await inlineCapture(v.id, { step_key: "docs" }, png())).status).toBe(201);
    expect((await inlineCapture(v.id, { step_key: "docs" }, png())).status).toBe(201);
    for (const stepKey of ["plate", "nope"]) {
      await refused(v.id, () => inlineCapture(v.id, { step_key: stepKey }), 400, "unknown_step");
      await refused(v.id, () => callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: kept.image_key, image_sha256: kept.sha256, step_key: stepKey } }), 400, "unknown_step");
    }
    await refused(v.id, () => inlineCapture(v.id, { step_key: "front" }), 409, "step_full");
  });

  it("step_full for a full image step, a full upload step, and a keyless capture when every image step is full", async () => {
    const v = await createVerification(t.key, { steps });
    expect((await inlineCapture(v.id)).status).toBe(201);
    await refused(v.id, () => inlineCapture(v.id), 409, "step_full");
    await refused(v.id, () => inlineCapture(v.id, { step_key: "front" }), 409, "step_full");
    const png = () => pngSignatureBytes(40 + Math.floor(Math.random() * 40));
    expect((await inlineCapture(v.id, { step_key: "docs" }, png())).status).toBe(201);
    expect((await inlineCapture(v.id, { step_key: "docs" }, png())).status).toBe(201);
    await refused(v.id, () => inlineCapture(v.id, { step_key: "docs" }, png()), 409, "step_full");
  });

  it("404 not_found for unknown verifications", async () => {
    const res = await inlineCapture("vfy_01M82BB9AB26PZRT0D1PRV3Y8W");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });

  it("400 on invalid bodies", async () => {
    const v = await createVerification(t.key, { steps });
    await refused(v.id, () => callJson(`/v1/verifications/${v.id}/captures`, { body: {} }), 400, "invalid_request");
    await refused(v.id, () => callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: "!!notbase64!!" } }), 400, "invalid_request");
    await refused(
      v.id,
      () => callJson(`/v1/verifications/${v.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()), image_key: "x", image_sha256: "0".repeat(64) } }),
      400,
      "invalid_request",
    );
    await refused(v.id, () => callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: "x" } }), 400, "invalid_request");
    await refused(
      v.id,
      () => callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: `verifications/${v.id}/cap_x`, image_sha256: "0".repeat(64) } }),
      400,
      "invalid_request",
    );
    await refused(v.id, () => inlineCapture(v.id, { location: { lat: 91, lng: 0 } }), 400, "invalid_request");
    await refused(v.id, () => inlineCapture(v.id, { client_captured_at: "yesterday" }), 400, "invalid_request");
  });

  it("400 checksum_mismatch when the stored bytes do not match image_sha256", async () => {
    const v = await createVerification(t.key, { steps });
    const up = await upload(v.id);
    const wrong = await sha256Hex(uniqueJpeg());
    await refused(v.id, () => callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: up.image_key, image_sha256: wrong } }), 400, "checksum_mismatch");
  });

  it("413 for inline images over 6 MB and for upload steps over max_size_bytes", async () => {
    const v = await createVerification(t.key, { steps });
    const big = new Uint8Array(6 * 1024 * 1024 + 1);
    big.set([0xff, 0xd8, 0xff]);
    await refused(v.id, () => inlineCapture(v.id, {}, big), 413, "payload_too_large");
    await refused(v.id, () => inlineCapture(v.id, { step_key: "docs" }, pngSignatureBytes(300)), 413, "payload_too_large");
    const exactly = new Uint8Array(6 * 1024 * 1024);
    exactly.set([0xff, 0xd8, 0xff]);
    expect((await inlineCapture(v.id, {}, exactly)).status).toBe(201);
  });

  it("415 when the bytes are not an image, or not a type the upload step accepts", async () => {
    const v = await createVerification(t.key, { steps });
    await refused(v.id, () => inlineCapture(v.id, {}, new TextEncoder().encode("GIF89a not really")), 415, "unsupported_media_type");
    await refused(v.id, () => inlineCapture(v.id, { step_key: "docs" }), 415, "unsupported_media_type");
  });

  it("after expires_at, 410 expired comes before the body's size, type or checksum, and the upload URL's PUT stores nothing", async () => {
    const v = await createVerification(t.key, { steps, expires_in_seconds: 3 });
    // Made while it was open: an upload URL not used yet, and bytes uploaded but not captured.
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } });
    expect(minted.status).toBe(200);
    expect(Date.parse(minted.body.expires_at)).toBeLessThanOrEqual(Date.parse(v.expires_at));
    const stored = await upload(v.id);
    await eventually(async () => (await footprint(v.id)).status === "expired", "the expiry alarm");

    const tooBig = new Uint8Array(6 * 1024 * 1024 + 1);
    tooBig.set([0xff, 0xd8, 0xff]);
    await refused(v.id, () => inlineCapture(v.id, {}, tooBig), 410, "expired");
    await refused(v.id, () => inlineCapture(v.id, {}, new TextEncoder().encode("GIF89a not really")), 410, "expired");
    await refused(v.id, () => inlineCapture(v.id, { step_key: "docs" }, pngSignatureBytes(300)), 410, "expired");
    await refused(v.id, () => callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: stored.image_key, image_sha256: "0".repeat(64) } }), 410, "expired");
    await refused(v.id, () => callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: stored.image_key, image_sha256: stored.sha256 } }), 410, "expired");
    const put = await refused(
      v.id,
      () => callJson(new URL(minted.body.upload_url).pathname, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } }),
      410,
      "expired",
    );
    expect(put.body.error.message).toMatch(/expired/);
    expect(await env.EVIDENCE.head(minted.body.image_key)).toBeNull();
  });

  it("410 expired once expires_at passed (the alarm has moved it to expired)", async () => {
    const v = await createVerification(t.key, { max_captures: 1, expires_in_seconds: 1 });
    await eventually(async () => (await footprint(v.id)).status === "expired", "the expiry alarm");
    await refused(v.id, () => inlineCapture(v.id), 410, "expired");
    await refused(v.id, () => callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } }), 410, "expired");
    const read = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
    expect(read.body.status).toBe("expired");
  });
});

describe("answers, submit and progress refusals persist nothing", () => {
  it("answers: unknown or non-text step 400 unknown_step; a value failing validation 400 with fields.value", async () => {
    const v = await createVerification(t.key, { steps });
    const answer = (body: unknown) => () => callJson(`/v1/verifications/${v.id}/answers`, { body });
    await refused(v.id, answer({ step_key: "front", value: "x" }), 400, "unknown_step");
    await refused(v.id, answer({ step_key: "zzz", value: "x" }), 400, "unknown_step");
    const invalid = await refused(v.id, answer({ step_key: "plate", value: "AB 12" }), 400, "invalid_request");
    expect(invalid.body.error.fields).toHaveProperty("value");
    await refused(v.id, answer({ step_key: "plate", value: "ABCDEFGHI" }), 400, "invalid_request");
    await refused(v.id, answer({ step_key: "plate", value: "" }), 400, "invalid_request");
    await refused(v.id, answer({ step_key: "plate", value: "x".repeat(2001) }), 400, "invalid_request");
    await refused(v.id, answer({ step_key: "plate" }), 400, "invalid_request");
  });

  it("submit before the minimums is 409 invalid_state", async () => {
    const v = await createVerification(t.key, { steps });
    await refused(v.id, () => callJson(`/v1/verifications/${v.id}/submit`, { method: "POST" }), 409, "invalid_state");
    await inlineCapture(v.id);
    await refused(v.id, () => callJson(`/v1/verifications/${v.id}/submit`, { method: "POST" }), 409, "invalid_state");
  });

  it("progress with a bad body is 400", async () => {
    const v = await createVerification(t.key, { steps });
    const progress = (body: unknown) => () => callJson(`/v1/verifications/${v.id}/progress`, { body });
    await refused(v.id, progress({ schema_version: 2, kind: "step_reached", step: "landing", elapsed_ms: 1 }), 400, "invalid_request");
    await refused(v.id, progress({ schema_version: 1, kind: "left", step: "landing", elapsed_ms: 1 }), 400, "invalid_request");
    await refused(v.id, progress({ schema_version: 1, kind: "step_reached", step: "nowhere", elapsed_ms: 1 }), 400, "invalid_request");
    await refused(v.id, progress({ schema_version: 1, kind: "step_reached", step: "landing", elapsed_ms: -1 }), 400, "invalid_request");
    await refused(v.id, progress({ schema_version: 1, kind: "camera_permission", step: "ready", elapsed_ms: 1, camera_permission: "maybe" }), 400, "invalid_request");
  });
});

describe("upload URLs", () => {
  it("are single use, bound to one content type, size-limited, and expire", async () => {
    const v = await createVerification(t.key, { steps });
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } });
    expect(minted.status).toBe(200);
    expect(minted.body.capture_id).toMatch(/^cap_/);
    expect(Date.parse(minted.body.expires_at) - Date.now()).toBeGreaterThan(290_000);
    expect(Date.parse(minted.body.expires_at) - Date.now()).toBeLessThanOrEqual(300_000);
    const path = new URL(minted.body.upload_url).pathname;
    const wrongType = await callJson(path, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/png" } });
    expect(wrongType.status).toBe(415);
    // The runtime hands a compressed body over as it came: refused before the URL is used, never stored as the photo.
    const gzipped = await new Response(new Blob([uniqueJpeg()]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
    const compressed = await callJson(path, { method: "PUT", rawBody: gzipped, headers: { "Content-Type": "image/jpeg", "Content-Encoding": "gzip" } });
    expect(compressed.status).toBe(415);
    expect(compressed.body.error.message).toBe("Content-Encoding gzip is not supported: send the body uncompressed.");
    const first = await callJson(path, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
    expect(first.status).toBe(200);
    expect(first.body.image_key).toBe(minted.body.image_key);
    const second = await callJson(path, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
    expect(second.status).toBe(409);

    const tampered = await callJson(tamperSignature(path), { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
    expect(tampered.status).toBe(404);

    const expiredToken = await signToken(await signingKey(env, "upload_urls"), "upload", { id: minted.body.capture_id, exp: Date.now() - 1 });
    const expired = await callJson(`/v1/uploads/${expiredToken}`, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe("expired");
  });

  it("an upload stuck in \"uploading\" (its attempt died) can be retried after 60 s, not before", async () => {
    const v = await createVerification(t.key, { steps });
    const mintOne = async () => (await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } })).body;
    const put = (url: string) => callJson(new URL(url).pathname, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
    // The claim an attempt leaves behind when its isolate dies between claiming the upload and storing it.
    const stuckSince = async (uploadId: string, ageMs: number) => {
      const claim = await verificationObject(env, v.id).claimUpload(v.id, { uploadId, fits: { contentType: "image/jpeg", sizeBytes: 1_000 }, now: Date.now() - ageMs });
      expect(claim).toMatchObject({ ok: true, claimed: true });
    };

    const recent = await mintOne();
    await stuckSince(recent.capture_id, 10_000);
    const early = await put(recent.upload_url);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe("invalid_state");

    const abandoned = await mintOne();
    await stuckSince(abandoned.capture_id, STALE_CLAIM_MS + 1_000);
    const retried = await put(abandoned.upload_url);
    expect(retried.status).toBe(200);
    expect(retried.body.image_key).toBe(abandoned.image_key);
    expect(await db().select().from(uploads).where(eq(uploads.id, abandoned.capture_id)).get()).toMatchObject({ status: "uploaded", sha256: retried.body.sha256 });
    expect((await put(abandoned.upload_url)).status).toBe(409); // uploaded: single use again
  });

  it("an upload URL minted before its object kept slots, and before URLs named their verification, still works once (by its row)", async () => {
    const v = await createVerification(t.key, { steps });
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } });
    // As minted before 2026-12-06: the row only, no slot in the object, a token of {id, exp}.
    await runInDurableObject(verificationObject(env, v.id), (_instance, state) => new UploadSlots(state.storage.kv).drop(minted.body.image_key));
    const exp = Date.now() + 60_000;
    const legacy = await signToken(await signingKey(env, "upload_urls"), "upload", { id: minted.body.capture_id, exp });
    const stored = await callJson(`/v1/uploads/${legacy}`, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
    expect(stored.status).toBe(200);
    expect(stored.body.image_key).toBe(minted.body.image_key);
    expect((await callJson(`/v1/uploads/${legacy}`, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } })).status).toBe(409);
    const captured = await callJson(`/v1/verifications/${v.id}/captures`, { body: { step_key: "front", image_key: minted.body.image_key, image_sha256: stored.body.sha256 } });
    expect(captured.status).toBe(201);
    const unknown = await signToken(await signingKey(env, "upload_urls"), "upload", { id: `${minted.body.capture_id}x`, exp });
    expect((await callJson(`/v1/uploads/${unknown}`, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } })).status).toBe(404);
  });

  it("refuse more bytes than the verification's largest slot", async () => {
    const v = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1, max_size_bytes: 1000 }] });
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/png" } });
    const path = new URL(minted.body.upload_url).pathname;
    const tooBig = await callJson(path, { method: "PUT", rawBody: pngSignatureBytes(1000), headers: { "Content-Type": "image/png" } });
    expect(tooBig.status).toBe(413);
    const fits = await callJson(path, { method: "PUT", rawBody: pngSignatureBytes(992), headers: { "Content-Type": "image/png" } });
    expect(fits.status).toBe(200);
  });

  it("R2 failing during an upload fails it (the storage's error, not the client's) without hanging, and the URL stays usable", async () => {
    const v = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] });
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/png" } });
    const token = new URL(minted.body.upload_url).pathname.split("/").pop()!;
    const bytes = pngSignatureBytes(200_000);
    for (let at = 8; at < bytes.length; at += 65_536) crypto.getRandomValues(bytes.subarray(at, Math.min(bytes.length, at + 65_536)));
    // The real local bucket, its put() refusing at once (an outage): nobody reads the body any more.
    const outage = new Error("bucket unavailable (injected)");
    const failing = new Proxy(env.EVIDENCE, {
      get: (target, prop) => (prop === "put" ? () => Promise.reject(outage) : (Reflect.get(target, prop) as unknown)),
    });
    const refused = await receiveUpload(failing, uploadDesks(env), {
      token,
      secret: await signingKey(env, "upload_urls"),
      contentType: "image/png",
      contentLength: String(bytes.length),
      body: new Response(bytes).body!,
      now: Date.now(),
    }).catch((err: unknown) => err);
    expect(refused).toBe(outage);
    // The claim's release failing too (the object unreachable) does not hide the storage's error.
    const unreleasable = { ...uploadDesks(env), at: (id: string) => ({ ...uploadDesks(env).at(id), release: () => Promise.reject(new Error("object unreachable (injected)")) }) };
    const both = await receiveUpload(failing, unreleasable, { token, secret: await signingKey(env, "upload_urls"), contentType: "image/png", contentLength: String(bytes.length), body: new Response(bytes).body!, now: Date.now() }).catch((err: unknown) => err);
    expect(both).toBe(outage);
    await verificationObject(env, v.id).releaseClaim(v.id, minted.body.image_key, (await claimOf(v.id, minted.body.image_key))!);
    const fits = await callJson(`/v1/uploads/${token}`, { method: "PUT", rawBody: bytes, headers: { "Content-Type": "image/png" } });
    expect(fits.status).toBe(200);
    expect(fits.body).toMatchObject({ size_bytes: bytes.length, sha256: await sha256Hex(bytes) });
    // What R2 holds is the body, byte for byte (it was forwarded in several chunks, each hashed first).
    const stored = await env.EVIDENCE.get(minted.body.image_key);
    expect(await sha256Hex(new Uint8Array(await stored!.arrayBuffer()))).toBe(await sha256Hex(bytes));
  });

  it("a PUT to a verification redacted after its URL was minted is 410 before anything is stored or claimed", async () => {
    const v = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] });
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/png" } });
    expect((await callJson(`/v1/verifications/${v.id}/redact`, { key: t.key, method: "POST" })).status).toBe(200);
    const refused = await callJson(new URL(minted.body.upload_url).pathname, { method: "PUT", rawBody: pngSignatureBytes(500), headers: { "Content-Type": "image/png" } });
    expect(refused.status).toBe(410);
    expect(refused.body.error.code).toBe("redacted");
    expect(await env.EVIDENCE.head(minted.body.image_key)).toBeNull();
    const slot = await runInDurableObject(verificationObject(env, v.id), (_instance, state) => new UploadSlots(state.storage.kv).kept(minted.body.image_key));
    expect(slot?.status).not.toBe("uploading");
  });

  it("a PUT to a verification a verdict, a failure or a submit closed after its URL was minted is 409 invalid_state, and nothing is stored", async () => {
    // Security probe of 2026-12-07: such a PUT stored its bytes and answered 200 with a receipt no capture could take.
    const mintJpeg = async (id: string) => (await callJson(`/v1/verifications/${id}/captures/upload-url`, { body: { content_type: "image/jpeg" } })).body;
    const putRefused = async (id: string, minted: { upload_url: string; image_key: string }, status: string) => {
      const res = await callJson(new URL(minted.upload_url).pathname, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: "invalid_state", message: expect.stringContaining(status) });
      expect(await env.EVIDENCE.head(minted.image_key)).toBeNull();
    };

    const completed = await createVerification(t.key, { max_captures: 1 });
    const early = await mintJpeg(completed.id);
    expect((await inlineCapture(completed.id)).status).toBe(201);
    await eventually(async () => (await footprint(completed.id)).status === "completed", "the verdict");
    await putRefused(completed.id, early, "completed");

    const failed = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 0, max: 1 }] });
    const beforeSubmit = await mintJpeg(failed.id);
    expect((await callJson(`/v1/verifications/${failed.id}/submit`, { method: "POST" })).status).toBe(200);
    await eventually(async () => (await footprint(failed.id)).status === "failed", "no evidence: failed");
    await putRefused(failed.id, beforeSubmit, "failed");

    const submitted = await createVerification(t.key, { steps: [{ key: "photos", type: "image", description: "Photos", min: 1, max: 2 }] });
    const minted = await mintJpeg(submitted.id);
    expect((await inlineCapture(submitted.id)).status).toBe(201);
    expect((await callJson(`/v1/verifications/${submitted.id}/submit`, { method: "POST" })).status).toBe(200);
    const res = await callJson(new URL(minted.upload_url).pathname, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("invalid_state");
    expect(await env.EVIDENCE.head(minted.image_key)).toBeNull();
  });

  it("a PUT whose verification is redacted while its bytes stream is 410 redacted, and its slot is forgotten", async () => {
    const v = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] });
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/png" } });
    const desk = uploadDesks(env).at(v.id);
    const at = Date.now();
    expect(await desk.claim({ uploadId: minted.body.capture_id, fits: { contentType: "image/png", sizeBytes: 500 }, now: at })).toMatchObject({ ok: true, claimed: true });
    expect((await callJson(`/v1/verifications/${v.id}/redact`, { key: t.key, method: "POST" })).status).toBe(200);
    const finished = await desk.finish({ objectKey: minted.body.image_key, claimedAt: at, digest: { sizeBytes: 500, sha256: "ab".repeat(32), sniffedType: "image/png" }, now: at });
    expect(finished).toMatchObject({ ok: false, error: { code: "redacted" } });
    const slot = await runInDurableObject(verificationObject(env, v.id), (_instance, state) => new UploadSlots(state.storage.kv).kept(minted.body.image_key));
    expect(slot).toBeUndefined();
  });

  it("a body of another length than its Content-Length is refused (400) and the URL stays usable", async () => {
    // HTTP framing makes this impossible on the wire, so the upload is received directly with a
    // stream that ends early or runs long.
    const v = await createVerification(t.key, { steps: [{ key: "docs", type: "upload", min: 1, max: 1 }] });
    const minted = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/png" } });
    const token = new URL(minted.body.upload_url).pathname.split("/").pop()!;
    const bytes = pngSignatureBytes(500);
    const secret = await signingKey(env, "upload_urls");
    const receive = (declared: number) =>
      receiveUpload(env.EVIDENCE, uploadDesks(env), {
        token,
        secret,
        contentType: "image/png",
        contentLength: String(declared),
        body: new Response(bytes).body!,
        now: Date.now(),
      });
    for (const declared of [bytes.length + 100, bytes.length - 100]) {
      const refused = await receive(declared).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ status: 400, fields: { body: "The body does not match its Content-Length." } });
    }
    expect(await env.EVIDENCE.head(minted.body.image_key)).toBeNull();
    const fits = await callJson(`/v1/uploads/${token}`, { method: "PUT", rawBody: bytes, headers: { "Content-Type": "image/png" } });
    expect(fits.status).toBe(200);
    expect(fits.body).toMatchObject({ size_bytes: bytes.length, sha256: await sha256Hex(bytes) });
  });

  it("mint refuses unsupported media types (415) and bad kinds (400)", async () => {
    const v = await createVerification(t.key, { steps });
    const gif = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/gif" } });
    expect(gif.status).toBe(415);
    const depthJpeg = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg", kind: "forensic_buffer" } });
    expect(depthJpeg.status).toBe(415);
    const kind = await callJson(`/v1/verifications/${v.id}/captures/upload-url`, { body: { content_type: "image/jpeg", kind: "video" } });
    expect(kind.status).toBe(400);
    const missing = await callJson(`/v1/verifications/vfy_01M82BB9AB26PZRT0D1PRV3Y8W/captures/upload-url`, { body: { content_type: "image/jpeg" } });
    expect(missing.status).toBe(404);
  });

  it("a key-reference capture must name an image_key minted for this verification and uploaded", async () => {
    const a = await createVerification(t.key, { steps });
    const b = await createVerification(t.key, { steps });
    const up = await upload(a.id);
    const foreign = await callJson(`/v1/verifications/${b.id}/captures`, { body: { image_key: up.image_key, image_sha256: up.sha256 } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.fields).toHaveProperty("image_key");
    const minted = await callJson(`/v1/verifications/${a.id}/captures/upload-url`, { body: { content_type: "image/jpeg" } });
    const notUploaded = await callJson(`/v1/verifications/${a.id}/captures`, { body: { image_key: minted.body.image_key, image_sha256: up.sha256 } });
    expect(notUploaded.status).toBe(400);
    const unsupportedBytes = await upload(a.id, new TextEncoder().encode("not an image at all"), "image/jpeg");
    const res = await callJson(`/v1/verifications/${a.id}/captures`, { body: { image_key: unsupportedBytes.image_key, image_sha256: unsupportedBytes.sha256 } });
    expect(res.status).toBe(415);
    await call("/", {}).then((r) => r.text());
  });
});
