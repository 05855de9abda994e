import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { uploads } from "../../src/db/schema";
import { CAPTURE_WINDOW_MS, SWEEP_GRACE_MS } from "../../src/model/verification/orphan-sweep";
import { UPLOAD_TTL_MS, type UploadSlot } from "../../src/model/verification/upload-slots";
import type { VerificationObject } from "../../src/durable-objects/verification-object";
import { verificationObject } from "../../src/durable-objects/verification-client";
import { call, callJson, createVerification, db, eventually, seedTenant, type TestTenant } from "../helpers/api";
import { callWithEnv } from "../helpers/app";
import { upload } from "../helpers/capture";
import { pngSignatureBytes, sha256Hex, uniqueJpeg } from "../helpers/images";
import { persisted } from "../helpers/snapshot";

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

const mint = (id: string, body: Record<string, unknown> = { content_type: "image/jpeg" }) =>
  callJson(`/v1/verifications/${id}/captures/upload-url`, { body });

const direct = {
  UPLOAD_MODE: "direct",
  R2_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
  R2_ACCESS_KEY_ID: "test-access-key",
  R2_SECRET_ACCESS_KEY: "test-secret-access-key",
  R2_BUCKET_NAME: "verification-evidence-local",
};

async function directUpload(v: { id: string }, bytes: Uint8Array) {
  const minted = await callWithEnv(direct, `/v1/verifications/${v.id}/captures/upload-url`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ content_type: "image/png" }),
  });
  expect(minted.status).toBe(200);
  expect(minted.body.upload_url).toMatch(/^https:\/\/0123456789abcdef0123456789abcdef\.r2\.cloudflarestorage\.com\//);
  // What the presigned PUT does: the bytes land in the bucket without passing through the Worker.
  await env.EVIDENCE.put(minted.body.image_key, bytes, { httpMetadata: { contentType: "image/png" } });
  return minted.body as { image_key: string };
}

async function setClock(id: string, at: number | null) {
  await runInDurableObject(verificationObject(env, id), (instance: VerificationObject) => {
    instance.clock = at === null ? () => Date.now() : () => at;
  });
}

describe("open upload URLs per verification: at most twice the captures it can still take", () => {
  // Probe of 2026-12-06: two uploads refused as not images kept counting for 65 minutes, so the end
  // user (the hosted page sends every photo through an upload URL) could not upload again.
  it("an upload whose bytes a capture refuses for what they are goes back to the cap, its bytes deleted", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    for (let i = 0; i < 3; i += 1) {
      const minted = await mint(v.id);
      expect(minted.status, `mint ${i}`).toBe(200);
      const junk = new TextEncoder().encode(`not an image at all ${i}`);
      const put = await call(new URL(minted.body.upload_url).pathname, { method: "PUT", rawBody: junk, headers: { "Content-Type": "image/jpeg" } });
      expect(put.status).toBe(200);
      await put.text();
      const refused = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: minted.body.image_key, image_sha256: await sha256Hex(junk) } });
      expect(refused.status).toBe(415);
      expect(refused.body.error.code).toBe("unsupported_media_type");
      expect(await env.EVIDENCE.head(minted.body.image_key)).toBeNull();
      // The key names nothing any more: a retry is refused as any unknown key.
      const again = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: minted.body.image_key, image_sha256: await sha256Hex(junk) } });
      expect(again.status).toBe(400);
      expect(again.body.error.fields).toHaveProperty("image_key");
    }
    expect((await persisted(v.id)).uploads).toHaveLength(0);
    // A good photo after three refused files goes through.
    const good = await upload(v.id);
    const captured = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: good.image_key, image_sha256: good.sha256 } });
    expect(captured.status).toBe(201);
  });

  it("refuses the next mint with 429 and Retry-After; each kind counts on its own; captures and expiry free slots", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const minted = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await mint(v.id);
      expect(res.status).toBe(200);
      minted.push(res.body);
    }
    const refused = await mint(v.id);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("too_many_requests");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(UPLOAD_TTL_MS / 1000 - 30); // the first URL's expiry
    expect(retryAfter).toBeLessThanOrEqual(UPLOAD_TTL_MS / 1000);
    expect((await persisted(v.id)).uploads).toHaveLength(4); // nothing written for the refusal

    // Forensic buffers have their own allowance.
    for (let i = 0; i < 4; i += 1) expect((await mint(v.id, { content_type: "image/png", kind: "forensic_buffer" })).status).toBe(200);
    expect((await mint(v.id, { content_type: "image/png", kind: "forensic_buffer" })).status).toBe(429);

    // Capturing one of them leaves 1 free slot: 2 open URLs allowed, 3 still open → refused.
    const bytes = uniqueJpeg();
    const put = await call(new URL(minted[0].upload_url).pathname, { method: "PUT", rawBody: bytes, headers: { "Content-Type": "image/jpeg" } });
    expect(put.status).toBe(200);
    await put.text();
    const captured = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: minted[0].image_key, image_sha256: await sha256Hex(bytes) } });
    expect(captured.status).toBe(201);
    expect((await mint(v.id)).status).toBe(429);

    // URLs that expired unused hold nothing (the Worker saw no PUT): they stop counting.
    for (const m of minted.slice(1)) {
      await db().update(uploads).set({ expiresAt: Date.now() - 1 }).where(eq(uploads.id, m.capture_id)).run();
    }
    expect((await mint(v.id)).status).toBe(200);
    expect((await mint(v.id)).status).toBe(200);
    expect((await mint(v.id)).status).toBe(429);
  });

  it("uploaded bytes not yet captured keep counting (they hold storage)", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    await upload(v.id);
    await upload(v.id);
    const rows = (await persisted(v.id)).uploads;
    for (const row of rows) await db().update(uploads).set({ expiresAt: Date.now() - 1 }).where(eq(uploads.id, row.id)).run();
    expect((await mint(v.id)).status).toBe(429);
  });

  it("concurrent mints cannot pass the cap together", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    const results = await Promise.all(Array.from({ length: 8 }, () => mint(v.id)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 429, 429, 429, 429, 429, 429]);
    expect((await persisted(v.id)).uploads).toHaveLength(2);
  });

  it("a verification with every slot used mints none (409 step_full)", async () => {
    const v = await createVerification(t.key, { max_captures: 1 });
    const up = await upload(v.id);
    expect((await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: up.image_key, image_sha256: up.sha256 } })).status).toBe(201);
    const res = await mint(v.id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("step_full");
  });
});

describe("direct-to-R2 uploads", () => {

  /** The real local bucket, with its operations and the object bytes read through it counted. */
  function countingBucket() {
    const counts = { get: 0, head: 0, bytesRead: 0 };
    const counting = () =>
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          counts.bytesRead += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
    const bucket = new Proxy(env.EVIDENCE, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          if (prop === "head") counts.head += 1;
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (prop !== "get" || !result) return result;
          counts.get += 1;
          const object = result as R2ObjectBody;
          // The body as the caller reads it: every byte taken from it is counted.
          const body = object.body.pipeThrough(counting());
          return new Proxy(object, { get: (o, p) => (p === "body" ? body : Reflect.get(o, p)) });
        };
      },
    });
    return { bucket, counts };
  }

  it("one R2 read per capture, the size checked from the object's metadata first: an oversized object's bytes are never read", async () => {
    const v = await createVerification(t.key, { steps: [{ key: "doc", type: "upload", min: 1, max: 1, max_size_bytes: 1000 }] });
    const bytes = pngSignatureBytes(5000);
    const key = (await directUpload(v, bytes)).image_key;
    const { bucket, counts } = countingBucket();
    const res = await callWithEnv({ ...direct, EVIDENCE: bucket }, `/v1/verifications/${v.id}/captures`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ image_key: key, image_sha256: await sha256Hex(bytes) }),
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(counts).toEqual({ get: 1, head: 0, bytesRead: 0 });
    expect(await env.EVIDENCE.head(key)).toBeNull(); // deleted

    const fits = pngSignatureBytes(900);
    const okKey = (await directUpload(v, fits)).image_key;
    const ok = countingBucket();
    const accepted = await callWithEnv({ ...direct, EVIDENCE: ok.bucket }, `/v1/verifications/${v.id}/captures`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ image_key: okKey, image_sha256: await sha256Hex(fits), step_key: "doc" }),
    });
    expect(accepted.status, accepted.text).toBe(201);
    // Read once, whole, and hashed as it streamed; what it learnt is recorded with the capture.
    expect(ok.counts).toEqual({ get: 1, head: 0, bytesRead: fits.length });
    expect(await db().select().from(uploads).where(eq(uploads.objectKey, okKey)).get()).toMatchObject({
      status: "uploaded",
      sizeBytes: fits.length,
      sha256: await sha256Hex(fits),
      sniffedType: "image/png",
    });
    // So the client's retry of the same capture reads nothing again.
    const retry = countingBucket();
    const replayed = await callWithEnv({ ...direct, EVIDENCE: retry.bucket }, `/v1/verifications/${v.id}/captures`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ image_key: okKey, image_sha256: await sha256Hex(fits), step_key: "doc" }),
    });
    expect(replayed.status, replayed.text).toBe(201);
    expect(retry.counts).toEqual({ get: 0, head: 0, bytesRead: 0 });
  });
});

describe("direct uploads: the verification's object keeps their slots", () => {
  /** The real local database, with the statements run through it counted. */
  function countingDb() {
    const counts = { prepare: 0, batch: 0, exec: 0 };
    const d1 = new Proxy(env.DB, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (prop === "prepare" || prop === "batch" || prop === "exec") counts[prop] += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    return { d1, counts };
  }
  const slotOf = (id: string, key: string) =>
    runInDurableObject(verificationObject(env, id), (_i: VerificationObject, state) => state.storage.kv.get<UploadSlot>(`upload:${key}`));
  const capture = (id: string, key: string, bytes: Uint8Array, overrides: Record<string, unknown> = {}) =>
    sha256Hex(bytes).then((sha) =>
      callWithEnv({ ...direct, ...overrides }, `/v1/verifications/${id}/captures`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ image_key: key, image_sha256: sha }),
      }),
    );

  it("a capture reads nothing in D1 in the Worker: the object answers what the key names", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    const bytes = pngSignatureBytes(700);
    const key = (await directUpload(v, bytes)).image_key;
    const { d1, counts } = countingDb();
    const res = await capture(v.id, key, bytes, { DB: d1 });
    expect(res.status, res.text).toBe(201);
    expect(counts).toEqual({ prepare: 0, batch: 0, exec: 0 });
    expect((await persisted(v.id)).captures.map((c) => c.imageKey)).toEqual([key]);
    // What the object answered from: the slot it kept when it minted the upload.
    expect(await slotOf(v.id, key)).toMatchObject({ id: key.split("/").pop(), verificationId: v.id, kind: "image", contentType: "image/png", status: "minted" });
  });

  it("an upload the object does not keep (minted before it kept slots) is read from D1", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    const bytes = pngSignatureBytes(800);
    const key = (await directUpload(v, bytes)).image_key;
    await runInDurableObject(verificationObject(env, v.id), (_i: VerificationObject, state) => state.storage.kv.delete(`upload:${key}`));
    const res = await capture(v.id, key, bytes);
    expect(res.status, res.text).toBe(201);
    // And so is its expiry: past the capture window, 409 upload_expired (410 is the dead link's).
    const late = pngSignatureBytes(900);
    const lateKey = (await directUpload(v, late)).image_key;
    await runInDurableObject(verificationObject(env, v.id), (_i: VerificationObject, state) => state.storage.kv.delete(`upload:${lateKey}`));
    await db().update(uploads).set({ expiresAt: Date.now() - CAPTURE_WINDOW_MS - 1 }).where(eq(uploads.objectKey, lateKey)).run();
    const refused = await capture(v.id, lateKey, late);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("upload_expired");
  });

  it("refuses from the kept slot as from the row: another verification's key 400, past the window 409 upload_expired, unknown id 404", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    const other = await createVerification(t.key, { max_captures: 3 });
    const bytes = pngSignatureBytes(600);
    const key = (await directUpload(v, bytes)).image_key;
    const foreign = await capture(other.id, key, bytes);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.fields).toHaveProperty("image_key");
    const unknown = await capture("vfy_00000000000000000000000000", key, bytes);
    expect(unknown.status).toBe(404);
    expect(await runInDurableObject(verificationObject(env, "vfy_00000000000000000000000000"), (_i: VerificationObject, state) => [...state.storage.kv.list()])).toEqual([]);

    const slot = (await slotOf(v.id, key))!;
    await setClock(v.id, slot.expiresAt + CAPTURE_WINDOW_MS);
    const expired = await capture(v.id, key, bytes);
    expect(expired.status).toBe(409);
    expect(expired.body.error.code).toBe("upload_expired");
    // The sweep then forgets the slot (and deletes the bytes).
    await runDurableObjectAlarm(verificationObject(env, v.id));
    expect(await slotOf(v.id, key)).toBeUndefined();
    expect((await persisted(v.id)).objectKeys).toEqual([]);
    await setClock(v.id, null);
  });

  it("a redacted verification's slots go with its final sweep", async () => {
    const v = await createVerification(t.key, { max_captures: 3 });
    const key = (await directUpload(v, pngSignatureBytes(500))).image_key;
    expect(await slotOf(v.id, key)).toMatchObject({ objectKey: key, status: "minted" }); // kept before the redaction
    expect((await callJson(`/v1/verifications/${v.id}/redact`, { method: "POST", key: t.key })).status).toBe(200);
    const sweep = await runInDurableObject(verificationObject(env, v.id), (_i: VerificationObject, state) => state.storage.get<number>("sweep_at"));
    await setClock(v.id, sweep!);
    await runDurableObjectAlarm(verificationObject(env, v.id));
    expect(await slotOf(v.id, key)).toBeUndefined();
    await setClock(v.id, null);
  });
});

describe("orphan sweeps", () => {
  const sweepAt = (id: string) => runInDurableObject(verificationObject(env, id), (_i: VerificationObject, state) => state.storage.get<number>("sweep_at"));

  it("an upload that lands after the terminal sweep is swept by the next one", async () => {
    const v = await createVerification(t.key, { max_captures: 1, expires_in_seconds: 1 });
    const late = await mint(v.id);
    expect(late.status).toBe(200);
    await eventually(async () => (await persisted(v.id)).row.status === "expired", "expired status");
    const first = await sweepAt(v.id);
    expect(first).toBeDefined();
    // A URL minted just before the end is still valid when the first sweep runs (in the object's clock).
    await db().update(uploads).set({ expiresAt: first! + 60_000 }).where(eq(uploads.id, late.body.capture_id)).run();
    await setClock(v.id, first!);
    await runDurableObjectAlarm(verificationObject(env, v.id));
    const second = await sweepAt(v.id);
    expect(second).toBe(first! + 60_000 + SWEEP_GRACE_MS);

    // The Worker's own upload URL takes nothing once the verification expired (issue 33)…
    const put = await call(new URL(late.body.upload_url).pathname, { method: "PUT", rawBody: uniqueJpeg(), headers: { "Content-Type": "image/jpeg" } });
    expect(put.status).toBe(410);
    await put.text();
    expect((await persisted(v.id)).objectKeys).toEqual([]);
    // …but bytes may still land after that sweep where the Worker does not see the PUT (a presigned
    // URL to R2 in direct mode, its expiry rounded up to a whole second, R2's clock ahead of ours).
    await env.EVIDENCE.put(late.body.image_key, uniqueJpeg(), { httpMetadata: { contentType: "image/jpeg" } });
    expect((await persisted(v.id)).objectKeys).toEqual([late.body.image_key]);

    await setClock(v.id, second!);
    await runDurableObjectAlarm(verificationObject(env, v.id));
    expect((await persisted(v.id)).objectKeys).toEqual([]);
    expect(await sweepAt(v.id)).toBeUndefined(); // nothing can land any more: no further sweeps
    await setClock(v.id, null);
  });

  it("while the verification is open, bytes never captured within the capture window are swept", async () => {
    const v = await createVerification(t.key, { max_captures: 2 });
    const kept = await upload(v.id);
    const row = (await persisted(v.id)).uploads[0]!;
    expect(await sweepAt(v.id)).toBe(row.expiresAt + CAPTURE_WINDOW_MS); // armed by the mint
    const armed = await runInDurableObject(verificationObject(env, v.id), async (_i: VerificationObject, state) => ({
      alarm: await state.storage.getAlarm(),
      markAt: state.storage.kv.get<number>("mark_at"),
    }));
    // Earlier than the verification's expiry. The object published nothing (the created event is the
    // Worker's, marked by the events consumer), so no outbox mark comes before the sweep.
    expect(armed.markAt).toBeUndefined();
    expect(armed.alarm).toBe(row.expiresAt + CAPTURE_WINDOW_MS);
    await runDurableObjectAlarm(verificationObject(env, v.id));
    const next = await runInDurableObject(verificationObject(env, v.id), (_i: VerificationObject, state) => state.storage.getAlarm());
    expect(next).toBe(row.expiresAt + CAPTURE_WINDOW_MS);
    expect((await persisted(v.id)).objectKeys).toEqual([kept.image_key]);

    // Just inside the window nothing goes: it may still be captured.
    await setClock(v.id, row.expiresAt + CAPTURE_WINDOW_MS - 1_000);
    await runInDurableObject(verificationObject(env, v.id), (_i: VerificationObject, state) => state.storage.put("sweep_at", 0));
    await runDurableObjectAlarm(verificationObject(env, v.id));
    expect((await persisted(v.id)).objectKeys).toEqual([kept.image_key]);

    await setClock(v.id, row.expiresAt + CAPTURE_WINDOW_MS);
    await runDurableObjectAlarm(verificationObject(env, v.id));
    expect((await persisted(v.id)).objectKeys).toEqual([]);
    expect((await persisted(v.id)).row.status).toBe("pending"); // still open
    await setClock(v.id, null);

    // A capture naming an upload past its window is refused: 409 upload_expired (the link is live).
    await db().update(uploads).set({ expiresAt: Date.now() - CAPTURE_WINDOW_MS - 1 }).where(eq(uploads.id, row.id)).run();
    const late = await callJson(`/v1/verifications/${v.id}/captures`, { body: { image_key: kept.image_key, image_sha256: kept.sha256 } });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("upload_expired");
  });
});
