import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { mintApiKey, revokeApiKey } from "../../src/domain/tenants/api-keys";
import { call, callJson, createVerification, db, seedTenant, withVision, type TestTenant } from "../helpers/api";
import { tamperSignature } from "../helpers/tamper";
import { toBase64, uniqueJpeg } from "../helpers/images";

let t: TestTenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("Idempotency-Key", () => {
  it("replays the first response for the same key and body, also concurrently", async () => {
    const headers = { "Idempotency-Key": `order-${crypto.randomUUID()}` };
    const body = { max_captures: 2, metadata: { a: "1", b: "2" } };
    const first = await callJson("/v1/verifications", { key: t.key, body, headers });
    expect(first.status).toBe(201);
    const again = await callJson("/v1/verifications", { key: t.key, body: { metadata: { b: "2", a: "1" }, max_captures: 2 }, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");

    const racing = { "Idempotency-Key": `race-${crypto.randomUUID()}` };
    const results = await Promise.all(Array.from({ length: 6 }, () => callJson("/v1/verifications", { key: t.key, body, headers: racing })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  });

  it("the same key with another body is 409 idempotency_conflict and creates nothing", async () => {
    const headers = { "Idempotency-Key": `k-${crypto.randomUUID()}` };
    await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1 }, headers });
    const before = await callJson("/v1/verifications?limit=100", { key: t.key });
    const conflict = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 3 }, headers });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe("idempotency_conflict");
    const after = await callJson("/v1/verifications?limit=100", { key: t.key });
    expect(after.body.items.length).toBe(before.body.items.length);
  });

  it("a publishable key has a namespace of its own: it can neither replay, pre-empt nor probe a back-end's key", async () => {
    const body = { max_captures: 1 };
    const backendKey = { "Idempotency-Key": `claim-${crypto.randomUUID()}` };
    const backend = await callJson("/v1/verifications", { key: t.key, body, headers: backendKey });
    expect(backend.status).toBe(201);
    // The app's key holder guesses the back-end's key: a new verification of their own, never the back-end's.
    const guessed = await callJson("/v1/verifications", { key: t.publishableKey, body, headers: backendKey });
    expect(guessed.status).toBe(201);
    expect(guessed.headers.get("Idempotent-Replayed")).toBeNull();
    expect(guessed.body.id).not.toBe(backend.body.id);
    // Nor does another body tell them a key the back-end used was used (no 409).
    const probe = { "Idempotency-Key": `claim-${crypto.randomUUID()}` };
    await callJson("/v1/verifications", { key: t.key, body, headers: probe });
    expect((await callJson("/v1/verifications", { key: t.publishableKey, body: { max_captures: 2 }, headers: probe })).status).toBe(201);

    // Created first from the app, the back-end's later request gets its own verification.
    const preempted = { "Idempotency-Key": `claim-${crypto.randomUUID()}` };
    const planted = await callJson("/v1/verifications", { key: t.publishableKey, body, headers: preempted });
    const later = await callJson("/v1/verifications", { key: t.key, body, headers: preempted });
    expect(later.status).toBe(201);
    expect(later.headers.get("Idempotent-Replayed")).toBeNull();
    expect(later.body.id).not.toBe(planted.body.id);

    // Within a namespace a replay still holds: the publishable key's own retry, and the back-end's with another full key.
    const again = await callJson("/v1/verifications", { key: t.publishableKey, body, headers: preempted });
    expect(again.body.id).toBe(planted.body.id);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    const rotated = await mintApiKey(db(), { tenantId: t.id, environment: "test", scope: "full" });
    expect((await callJson("/v1/verifications", { key: rotated.plaintext, body, headers: preempted })).body.id).toBe(later.body.id);
  });

  it("keys are scoped per tenant, and must be 1..255 characters", async () => {
    const other = await seedTenant("Other");
    const headers = { "Idempotency-Key": `shared-${crypto.randomUUID()}` };
    const a = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1 }, headers });
    const b = await callJson("/v1/verifications", { key: other.key, body: { max_captures: 1 }, headers });
    expect(a.body.id).not.toBe(b.body.id);
    const long = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1 }, headers: { "Idempotency-Key": "k".repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body.error.fields).toHaveProperty(["idempotency-key"]);
    const ok = await callJson("/v1/verifications", { key: t.key, body: { max_captures: 1 }, headers: { "Idempotency-Key": "k".repeat(255) } });
    expect(ok.status).toBe(201);
  });
});

describe("listing", () => {
  it("pages newest first across several pages with no duplicates or gaps", async () => {
    const tenant = await seedTenant("Lister");
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) ids.push((await createVerification(tenant.key, { max_captures: 1 })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await callJson(`/v1/verifications?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: tenant.key });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((v: any) => v.id));
      cursor = res.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  it("filters by status and creation time; refuses bad parameters and tampered cursors", async () => {
    const tenant = await seedTenant("Filters");
    const a = await createVerification(tenant.key, { max_captures: 1 });
    const b = await createVerification(tenant.key, { max_captures: 2 });
    await callJson(`/v1/verifications/${b.id}/captures`, { body: { image_base64: toBase64(uniqueJpeg()) } });
    const partial = await callJson("/v1/verifications?status=partially_captured", { key: tenant.key });
    expect(partial.body.items.map((v: any) => v.id)).toEqual([b.id]);
    const since = await callJson(`/v1/verifications?created_gte=${encodeURIComponent(b.created_at)}`, { key: tenant.key });
    expect(since.body.items.map((v: any) => v.id)).toEqual([b.id]);
    const before = await callJson(`/v1/verifications?created_lt=${encodeURIComponent(b.created_at)}`, { key: tenant.key });
    expect(before.body.items.map((v: any) => v.id)).toEqual([a.id]);
    // RFC 3339 allows the `T` and the `Z` in lower case (§5.6).
    const lower = await callJson(`/v1/verifications?created_gte=${encodeURIComponent(b.created_at.toLowerCase())}`, { key: tenant.key });
    expect(lower.body.items?.map((v: any) => v.id)).toEqual([b.id]);

    // Lapsed before its alarm wrote `expired`: listed as it reads, under `expired` and not under the stored status.
    const lapsed = await createVerification(tenant.key, { max_captures: 1 });
    await env.DB.prepare("UPDATE verifications SET expires_at = ?, version = version + 1 WHERE id = ?").bind(Date.now() - 1, lapsed.id).run();
    const ids = async (query: string) => (await callJson(`/v1/verifications?${query}`, { key: tenant.key })).body.items.map((v: any) => [v.id, v.status]);
    expect(await ids("status=pending")).toEqual([[a.id, "pending"]]);
    expect(await ids("status=expired")).toEqual([[lapsed.id, "expired"]]);
    expect(await ids("status=partially_captured")).toEqual([[b.id, "partially_captured"]]);

    for (const query of ["limit=0", "limit=101", "limit=abc", "status=done", "created_gte=yesterday"]) {
      const res = await callJson(`/v1/verifications?${query}`, { key: tenant.key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    // Probe of 2026-12-04: Number() read these as 5, 100 and 5 where the document says integer.
    for (const query of ["limit=%205", "limit=1e2", "limit=5.0", "limit=0x5", "limit="]) {
      const res = await callJson(`/v1/verifications?${query}`, { key: tenant.key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.fields.limit, query).toBe("Must be a whole number written in digits, 1..100.");
    }
    const page = await callJson("/v1/verifications?limit=1", { key: tenant.key });
    const cursor: string = page.body.next_cursor;
    const [payload, sig] = cursor.split(".");
    const forged = btoa(JSON.stringify({ after: "vfy_7ZZZZZZZZZZZZZZZZZZZZZZZZZ" })).replace(/=+$/, "");
    for (const bad of [tamperSignature(`${payload}.${sig}`), `${forged}.${sig}`, "garbage", ""]) {
      const res = await callJson(`/v1/verifications?cursor=${encodeURIComponent(bad)}`, { key: tenant.key });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.fields).toHaveProperty("cursor");
    }
  });

  // Probe of 2026-12-04: a cursor passed with other filters, or by another tenant, answered a page of
  // a query nobody asked for.
  it("a cursor is bound to its query: with other filters or another tenant's key it is 400, with another limit it pages on", async () => {
    const tenant = await seedTenant("Cursor owner");
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createVerification(tenant.key, { max_captures: 1, metadata: { claim: `C-${i}` } }));
    const first = await callJson("/v1/verifications?limit=1&status=pending", { key: tenant.key });
    const cursor = encodeURIComponent(first.body.next_cursor);
    for (const query of ["", "&status=completed", "&status=pending&q=C-1", "&status=pending&has_review=false"]) {
      const res = await callJson(`/v1/verifications?limit=1&cursor=${cursor}${query}`, { key: tenant.key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.fields.cursor, query).toBe("This cursor belongs to another query: send it with the same filters as the request whose page returned it.");
    }
    const intruder = await seedTenant("Cursor thief");
    expect((await callJson(`/v1/verifications?limit=1&status=pending&cursor=${cursor}`, { key: intruder.key })).status).toBe(400);
    const next = await callJson(`/v1/verifications?limit=5&status=pending&cursor=${cursor}`, { key: tenant.key });
    expect(next.status).toBe(200);
    expect(next.body.items.map((v: { id: string }) => v.id)).toEqual([made[1]!.id, made[0]!.id]);
  });
});

describe("authentication and tenancy", () => {
  it("another tenant's key gets 404 for reads and never sees the record in lists", async () => {
    const v = await createVerification(t.key);
    const other = await seedTenant("Intruder");
    for (const path of [`/v1/verifications/${v.id}`, `/v1/verifications/${v.id}/events`]) {
      const res = await callJson(path, { key: other.key });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    const list = await callJson("/v1/verifications", { key: other.key });
    expect(list.body.items.map((x: any) => x.id)).not.toContain(v.id);
  });

  it("missing, malformed, unknown, revoked and wrong-environment keys are all the same 401", async () => {
    const tenant = await seedTenant("Revoked");
    const { row, plaintext } = await mintApiKey(db(), { tenantId: tenant.id, environment: "test", scope: "full" });
    expect((await callJson("/v1/verifications", { key: plaintext })).status).toBe(200);
    await revokeApiKey(db(), tenant.id, row.id);
    const live = await mintApiKey(db(), { tenantId: tenant.id, environment: "live", scope: "full" });
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: `Bearer ${plaintext}` },
      { Authorization: `Bearer ${live.plaintext}` },
      { Authorization: "Bearer pk_test_short" },
      { Authorization: `Bearer pk_test_${"A".repeat(43)}` },
      { Authorization: `Basic ${btoa("user:pass")}` },
      { Authorization: "Bearer" },
      { Authorization: `Bearer ${plaintext} extra` },
    ];
    for (const headers of attempts) {
      const res = await callJson("/v1/verifications", { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
      const create = await callJson("/v1/verifications", { headers, body: { max_captures: 1 } });
      expect(create.status).toBe(401);
    }
  });

  it("production accepts pk_live_ keys and refuses pk_test_ keys", async () => {
    const tenant = await seedTenant("Prod");
    const live = await mintApiKey(db(), { tenantId: tenant.id, environment: "live", scope: "full" });
    const prodEnv = { ...env, ENVIRONMENT: "production", PUBLIC_BASE_URL: "https://verify.example.com" };
    const ask = async (key: string) => (await callJson("/v1/verifications", { key, env: prodEnv })).status;
    expect(await ask(live.plaintext)).toBe(200);
    expect(await ask(tenant.key)).toBe(401);
  });

  it("a publishable key may only create verifications", async () => {
    const created = await callJson("/v1/verifications", { key: t.publishableKey, body: { max_captures: 1 } });
    expect(created.status).toBe(201);
    for (const path of [`/v1/verifications/${created.body.id}`, "/v1/verifications", `/v1/verifications/${created.body.id}/events`]) {
      const res = await callJson(path, { key: t.publishableKey });
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
  });

  it("a publishable key may not set webhook_url, notify_email, metadata or context (403 naming the field); a full key may", async () => {
    const restricted = {
      webhook_url: `${env.FAKES_URL}/webhooks/publishable`,
      notify_email: "anyone@example.com",
      metadata: { note: "Click here to claim your prize" },
      context: { kind: "car", summary: "A blue car" },
    };
    const own = await seedTenant();
    for (const [field, value] of Object.entries(restricted)) {
      const res = await callJson("/v1/verifications", { key: own.publishableKey, body: { max_captures: 1, [field]: value } });
      expect(res.status, field).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
      expect(res.body.error.message).toContain(field);
      // `fields` belongs to invalid_request only: a 403 says everything in its message.
      expect(res.body.error).not.toHaveProperty("fields");
    }
    const all = await callJson("/v1/verifications", { key: own.publishableKey, body: { max_captures: 1, ...restricted } });
    expect(all.status).toBe(403);
    for (const field of Object.keys(restricted)) expect(all.body.error.message).toContain(field);
    expect(all.body.error).not.toHaveProperty("fields");
    expect((await callJson("/v1/verifications", { key: own.key })).body.items).toEqual([]);

    // (A context is cross-checked by the context signal, which needs a vision provider.)
    const full = await callJson("/v1/verifications", { key: own.key, body: { max_captures: 1, ...restricted }, env: withVision() });
    expect(full.status).toBe(201);
    expect(full.body.config).toMatchObject(restricted);
  });

  it("malformed and unknown ids are 404, never 500", async () => {
    for (const id of ["garbage", "vfy_", "vfy_01M82BB9AB26PZRT0D1PRV3Y8W", "vfy_01m82bb9ab26pzrt0d1prv3y8w", "%00", "x".repeat(3000), "vfy_01M82BB9AB26PZRT0D1PRV3Y8W%27--"]) {
      for (const path of [`/v1/verifications/${id}`, `/v1/verifications/${id}/events`]) {
        const res = await callJson(path, { key: t.key });
        expect(res.status, path).toBe(404);
      }
      const pub = await callJson(`/v1/verifications/${id}/public`);
      expect(pub.status).toBe(404);
      const verify = await callJson(`/v1/verify/${id}`);
      expect(verify.status).toBe(404);
    }
  });
});

describe("projections", () => {
  const secrets = {
    metadata: { claim_ref: "SECRET-META-VALUE" },
    webhook_url: `${env.FAKES_URL}/webhooks/SECRET-HOOK`,
    notify_email: "secret-ops@example.com",
  };

  it("the public projection shows only the verdict label and no private field", async () => {
    const v = await createVerification(t.key, {
      steps: [
        { key: "photo", type: "image", description: "d", min: 1, max: 1 },
        { key: "plate", type: "text", required: false, validation: { max_length: 30, format: "free_text" } },
      ],
      ...secrets,
    });
    await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "plate", value: "SECRET-ANSWER" } });
    const pub = await callJson(`/v1/verifications/${v.id}/public`);
    expect(pub.status).toBe(200);
    expect(Object.keys(pub.body).sort()).toEqual(["captures_count", "created_at", "id", "status", "tenant"]);
    expect(pub.body.tenant.display_name).toMatch(/^Acme Insurance/);
    const text = JSON.stringify(pub.body);
    for (const needle of ["SECRET", "answers", "signals", "metadata", "webhook", "email", "config"]) expect(text).not.toContain(needle);
  });

  it("the capture-flow read shows steps and counts but never answers, metadata, webhook or email", async () => {
    const v = await createVerification(t.key, {
      steps: [
        { key: "photo", type: "image", description: "Front", min: 1, max: 2 },
        { key: "plate", type: "text", required: true, validation: { max_length: 30, format: "free_text" } },
      ],
      ...secrets,
    });
    await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "plate", value: "SECRET-ANSWER" } });
    const res = await callJson(`/v1/verify/${v.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: v.id,
      status: "pending",
      tenant: { display_name: expect.stringMatching(/^Acme/) },
      steps: [
        { key: "photo", type: "image", captured: 0, min: 1, max: 2 },
        { key: "plate", type: "text", answered: true },
      ],
      attestation: { site_key: "test-site-key" },
    });
    const text = JSON.stringify(res.body);
    for (const needle of ["SECRET", "answers", "signals", "verdict", "metadata", "webhook", "email"]) expect(text).not.toContain(needle);
    const answerResponse = await callJson(`/v1/verifications/${v.id}/answers`, { body: { step_key: "plate", value: "OTHER" } });
    const captureView = JSON.stringify(answerResponse.body);
    for (const needle of ["SECRET-META", "SECRET-HOOK", "secret-ops"]) expect(captureView).not.toContain(needle);
  });
});

describe("routing and documentation", () => {
  it("unknown routes are 404 and wrong methods 405 with Allow, in the standard error body", async () => {
    const missing = await callJson("/v1/nothing-here");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    const wrong = await call("/v1/verifications", { method: "DELETE", key: t.key });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("Allow")).toContain("POST");
    expect((await wrong.json() as any).error.code).toBe("method_not_allowed");
    const wrongOnItem = await callJson("/v1/verifications/vfy_01M82BB9AB26PZRT0D1PRV3Y8W/public", { method: "POST" });
    expect(wrongOnItem.status).toBe(405);
    // A GET route answers HEAD too, so Allow says so (probe of 2026-12-07: "Allow: GET").
    expect(wrongOnItem.headers.get("Allow")!.split(", ").sort()).toEqual(["GET", "HEAD"]);
    // A trailing slash is another path, which no operation has: 404, never a 405 whose Allow lists the method asked.
    for (const method of ["GET", "POST"]) {
      const slashed = await call("/v1/verifications/", { method, key: t.key });
      expect(slashed.status).toBe(404);
      expect(slashed.headers.get("Allow")).toBeNull();
      expect((await slashed.json() as any).error.code).toBe("not_found");
    }
  });

  it("serves the OpenAPI 3.1 document generated from the validating schemas, and /docs", async () => {
    const doc = await callJson("/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(["/v1/verifications", "/v1/verifications/{id}", "/v1/verify/{token}", "/v1/verifications/{token}/captures"]),
    );
    // Every /v1 write documents the 415 that jsonBodies answers for a non-JSON body.
    for (const [path, item] of Object.entries<any>(doc.body.paths)) {
      for (const method of ["post", "put", "patch", "delete"]) {
        if (item[method] && path.startsWith("/v1/")) expect(Object.keys(item[method].responses), `${method} ${path}`).toContain("415");
      }
    }
    expect(doc.body.paths["/v1/auth/logout-everywhere"].post.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/SignedOutEverywhere");
    const createSchema = doc.body.components.schemas.CreateVerificationRequest;
    expect(createSchema.properties.max_captures).toMatchObject({ minimum: 1, maximum: 20 });
    const docs = await call("/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("Content-Type")).toContain("text/html");
    // Only this Worker's own assets: no script from a CDN on the session cookie's origin.
    const csp = docs.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).not.toMatch(/https?:|\*|unsafe-inline|unsafe-eval/);
    const html = await docs.text();
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual(['<script src="/docs/reference.js">']);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toContain('<link rel="stylesheet" href="/docs/reference.css">');
  });
});

describe("no input produces a 500", () => {
  const values: unknown[] = [null, true, 0, -1, 1e308, "", "x".repeat(5000), [], [null], {}, { a: { b: { c: [] } } }, "\u0000", "💥", NaN];
  const shapes = (v: unknown): unknown[] => [
    v,
    { max_captures: v },
    { steps: v },
    { steps: [v] },
    { steps: [{ key: v, type: "image", description: "", min: 0, max: 1 }] },
    { steps: [{ key: "k", type: "text", required: v, validation: v }] },
    { max_captures: 1, context: v },
    { max_captures: 1, metadata: v },
    { max_captures: 1, webhook_url: v },
    { max_captures: 1, condition_aspects: v },
    { image_base64: v },
    { image_key: v, image_sha256: v },
    { image_base64: "AAAA", capture_integrity: v },
    { image_base64: "AAAA", capture_integrity: { schema_version: 1, device: v, burst: v, preview: v } },
    { step_key: v, value: v },
    { content_type: v, kind: v },
    { schema_version: v, kind: v, step: v, elapsed_ms: v },
  ];

  it("fuzzed bodies, headers and paths stay below 500", async () => {
    const v = await createVerification(t.key);
    const paths = [
      "/v1/verifications",
      `/v1/verifications/${v.id}/captures`,
      `/v1/verifications/${v.id}/captures/upload-url`,
      `/v1/verifications/${v.id}/answers`,
      `/v1/verifications/${v.id}/progress`,
      `/v1/verifications/${v.id}/submit`,
    ];
    for (const value of values) {
      for (const body of shapes(value)) {
        for (const path of paths) {
          const res = await call(path, { key: t.key, rawBody: JSON.stringify(body) ?? "undefined", method: "POST", headers: { "Content-Type": "application/json" } });
          expect(res.status, `${path} ${JSON.stringify(body)?.slice(0, 200)}`).toBeLessThan(500);
          await res.text();
        }
      }
    }
    const headerCases: Array<Record<string, string>> = [
      { "Idempotency-Key": "" },
      { "Idempotency-Key": "\u00e9\u00e9" },
      { "Content-Type": "multipart/form-data; boundary=x" },
      { "Content-Type": "application/json; charset=utf-16" },
      { Authorization: "Bearer \u00ff" },
      { Authorization: `Bearer ${"pk_test_".padEnd(5000, "a")}` },
    ];
    for (const headers of headerCases) {
      const res = await call("/v1/verifications", { key: headers.Authorization ? undefined : t.key, headers: { "Content-Type": "application/json", ...headers }, rawBody: '{"max_captures":1}', method: "POST" });
      expect(res.status, JSON.stringify(headers)).toBeLessThan(500);
      await res.text();
    }
    for (const path of ["/v1/verifications/%ZZ", "/v1/verify/%", "/v1/verifications?cursor=%E0%A4%A", "/v1/uploads/abc", "/c/../../etc/passwd", "/v1//verifications"]) {
      const res = await call(path, { key: t.key });
      expect(res.status, path).toBeLessThan(500);
      await res.text();
    }
  });
});
