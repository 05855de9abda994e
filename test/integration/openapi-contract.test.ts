import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { call, callJson, createVerification, seedTenant, type TestTenant } from "../helpers/api";
import { BASE, servedContract } from "../helpers/contract-fetch";
import { ContractViolation, type Contract, type Exchange } from "../helpers/openapi-contract";
import committed from "../../clients/typescript/openapi.json";

// The checker every test request goes through (test/helpers/contract-fetch.ts): it must accept what
// the Worker really answers and refuse each way a response can depart from the served document.

let t: TestTenant;
let contract: Contract;
let verifyBody: any;
let verificationId: string;

beforeAll(async () => {
  t = await seedTenant();
  contract = await servedContract();
  const v = await createVerification(t.key, {
    steps: [
      { key: "front", type: "image", description: "Front", min: 1, max: 1 },
      { key: "plate", type: "text", required: true, validation: { max_length: 10, format: "alphanumeric_id" } },
      { key: "invoice", type: "upload", min: 0, max: 1 },
    ],
  });
  verificationId = v.id;
  const read = await callJson(`/v1/verify/${v.id}`);
  expect(read.status).toBe(200);
  verifyBody = read.body;
});

const json = (body: unknown) => JSON.stringify(body);
const headers = (contentType = "application/json; charset=UTF-8", extra: Record<string, string> = {}) =>
  new Headers({ "Content-Type": contentType, ...extra });

function exchange(over: Partial<Exchange> & { path: string }): Exchange {
  return { method: "GET", url: `${BASE}${over.path}`, status: 200, headers: headers(), body: "", ...over };
}

function refuses(ex: Exchange, message: RegExp): void {
  expect(() => contract.check(ex)).toThrow(ContractViolation);
  expect(() => contract.check(ex)).toThrow(message);
}

describe("OpenAPI contract checker", () => {
  it("accepts the capture-flow read the Worker serves, steps of every type included", () => {
    expect(verifyBody.steps.map((s: any) => s.type)).toEqual(["image", "text", "upload"]);
    expect(() => contract.check(exchange({ path: `/v1/verify/${verificationId}`, body: json(verifyBody) }))).not.toThrow();
  });

  it("refuses a deliberately wrong body: a wrong type, a missing field, a bad format, an undocumented field", () => {
    const path = `/v1/verify/${verificationId}`;
    const wrongType = structuredClone(verifyBody);
    wrongType.steps[0].captured = "none";
    refuses(exchange({ path, body: json(wrongType) }), /\/steps\/0\/captured must be integer/);

    const { ready_for_submit: _dropped, ...missing } = verifyBody;
    refuses(exchange({ path, body: json(missing) }), /must have required property 'ready_for_submit'/);

    refuses(exchange({ path, body: json({ ...verifyBody, expires_at: "next tuesday" }) }), /\/expires_at must match format "date-time"/);

    refuses(exchange({ path, body: json({ ...verifyBody, webhook_url: "https://leak.example" }) }), /undocumented property "webhook_url"/);
    const nested = structuredClone(verifyBody);
    nested.tenant.id = t.id;
    refuses(exchange({ path, body: json(nested) }), /\/tenant .*undocumented property "id"/);
  });

  it("refuses a status, a media type or a body the operation does not document", () => {
    const path = `/v1/verifications/${verificationId}`;
    refuses(exchange({ path, status: 418, body: json({ error: { code: "teapot", message: "no" } }) }), /status 418 is not documented for GET \/v1\/verifications\/\{id\}/);
    refuses(exchange({ path, headers: headers("text/plain"), body: "hello" }), /media type "text\/plain" is not documented/);
    refuses(exchange({ path, body: "" }), /documents a body for 200, but none was sent/);
    refuses(exchange({ path, body: "{not json" }), /not valid JSON/);
    refuses(
      exchange({ path: `/v1/verifications/${verificationId}/progress`, method: "POST", status: 204, body: json({ ok: true }) }),
      /documents no body for 204/,
    );
  });

  it("error responses must be the standard error body", () => {
    const path = `/v1/verifications/${verificationId}`;
    expect(() => contract.check(exchange({ path, status: 404, body: json({ error: { code: "not_found", message: "No such verification." } }) }))).not.toThrow();
    refuses(exchange({ path, status: 404, body: json({ error: "not_found" }) }), /\/error must be object/);
    refuses(exchange({ path, status: 404, body: json({ message: "No such verification." }) }), /required property 'error'/);
  });

  it("undocumented routes may only answer the standard 404, and undocumented methods the standard 405 with Allow", () => {
    const notFound = json({ error: { code: "not_found", message: "No such route." } });
    expect(() => contract.check(exchange({ path: "/v1/nowhere", status: 404, body: notFound }))).not.toThrow();
    refuses(exchange({ path: "/v1/nowhere", status: 200, body: json({ ok: true }) }), /no documented operation has this path/);
    refuses(exchange({ path: "/v1/nowhere", status: 404, body: json({ error: "not_found" }) }), /standard error body/);

    const wrongMethod = json({ error: { code: "method_not_allowed", message: "DELETE is not allowed here; use GET." } });
    const path = `/v1/verify/${verificationId}`;
    expect(() => contract.check(exchange({ path, method: "DELETE", status: 405, headers: headers(undefined, { Allow: "GET" }), body: wrongMethod }))).not.toThrow();
    refuses(exchange({ path, method: "DELETE", status: 405, body: wrongMethod }), /must list the allowed methods in Allow/);
    refuses(exchange({ path, method: "DELETE", status: 200, body: json(verifyBody) }), /DELETE is not documented for this path/);
  });

  it("webhook bodies are checked against the document's webhooks section", async () => {
    const v = (await callJson(`/v1/verifications/${verificationId}`, { key: t.key })).body;
    const event = { id: "evt_01JD2Y4N9M6Q8R0S2T4V6W8X0Z", type: "verification.created", created_at: "2026-11-22T10:00:00.000Z", data: { object: v } };
    expect(() => contract.checkWebhook(json(event), "/verification-event")).not.toThrow();
    expect(() => contract.checkWebhook(json({ ...event, type: "verification.updated" }), "/verification-event")).toThrow(/\/type must be equal to one of the allowed values/);
    expect(() => contract.checkWebhook(json({ ...event, data: { object: { id: v.id } } }), "/verification-event")).toThrow(/\/data\/object must have required property 'status'/);
  });

  it("every request helper goes through the checker, each redirect hop included", async () => {
    const check = vi.spyOn(contract, "check");
    try {
      await callJson(`/v1/verify/${verificationId}`);
      await callJson("/v1/verifications", { key: t.key, env: { ...env } });
      await call("/v1/auth/dev/login", { redirect: "follow" }).then((r) => r.text());
      const seen = check.mock.calls.map(([ex]) => `${ex.method} ${new URL(ex.url).pathname} ${ex.status}`);
      expect(seen).toEqual([
        `GET /v1/verify/${verificationId} 200`,
        "GET /v1/verifications 200",
        "GET /v1/auth/dev/login 302",
        expect.stringMatching(/^GET \/v1\/auth\/dev\/callback \d{3}$/),
      ]);
    } finally {
      check.mockRestore();
    }
  });

  it("the Worker serves the committed document (clients/typescript/openapi.json, built by npm run gen:client)", async () => {
    const served = await callJson("/v1/openapi.json");
    expect(served.status).toBe(200);
    expect(served.body.servers).toEqual([{ url: BASE }]);
    expect({ ...served.body, servers: committed.servers }).toEqual(committed);
  });
});
