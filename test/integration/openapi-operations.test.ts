import { describe, expect, it } from "vitest";
import { call, callJson, createVerification, seedTenant } from "../helpers/api";
import { sessionHeaders } from "../helpers/webhooks";

/*
 * Probes every operation of the served document with the requests any client can get wrong (no
 * credential, a body over the limit, malformed JSON). Each answer goes through the contract check,
 * so the statuses these produce must be documented on every operation, new ones included.
 */

type Operation = {
  method: string;
  path: string;
  security: Array<Record<string, string[]>>;
  jsonBody: boolean;
  /** Each path parameter's `maxLength` (undefined: unbounded). */
  pathBounds: Record<string, number | undefined>;
};

async function operations(): Promise<Operation[]> {
  const doc = (await callJson("/v1/openapi.json")).body;
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const pathBounds = Object.fromEntries((op.parameters ?? []).filter((p: any) => p.in === "path").map((p: any) => [p.name, p.schema?.maxLength]));
      out.push({ method: method.toUpperCase(), path, security: op.security ?? doc.security ?? [], jsonBody: Boolean(op.requestBody?.content?.["application/json"]), pathBounds });
    }
  }
  return out;
}

/** A `/v1` write: it takes a JSON body or none, and refuses one that is too large, not JSON or malformed alike. */
const isJsonWrite = (op: Operation) => op.path.startsWith("/v1/") && !op.path.startsWith("/v1/uploads/") && ["POST", "PUT", "PATCH", "DELETE"].includes(op.method);

/** A concrete path: each `{param}` becomes a well-formed id that names nothing. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "vfy_01M82BB9AB26PZRT0D1PRV3Y8W");
/** Above every JSON body limit (1 MB; 9 MB on the inline-capture route). */
const OVER_EVERY_LIMIT_BYTES = 9 * 1024 * 1024 + 1;

describe("every documented operation", () => {
  it("answers a request without credentials with a documented error (401)", async () => {
    const ops = (await operations()).filter((op) => op.security.length > 0 && !op.security.some((s) => Object.keys(s).length === 0));
    expect(ops.length).toBeGreaterThan(20);
    for (const op of ops) {
      const res = await call(concrete(op.path), { method: op.method, ...(op.jsonBody ? { body: {} } : {}), redirect: "manual" });
      expect(res.status, `${op.method} ${op.path}`).toBe(401);
      await res.text();
    }
  });

  it("answers a JSON body over the limit with a documented 413, whatever the credential, also where the operation takes no body", async () => {
    const ops = (await operations()).filter(isJsonWrite);
    expect(ops.filter((op) => !op.jsonBody).length).toBeGreaterThan(5);
    const oversized = JSON.stringify({ narrative: "x".repeat(OVER_EVERY_LIMIT_BYTES) });
    for (const op of ops) {
      const res = await callJson(concrete(op.path), { method: op.method, rawBody: oversized, headers: { "Content-Type": "application/json" } });
      expect(res.status, `${op.method} ${op.path}`).toBe(413);
      expect(res.body.error.code).toBe("payload_too_large");
    }
  });

  it("answers malformed JSON with a documented 400 whatever the credential, also where the operation takes no body", async () => {
    const t = await seedTenant();
    const session = await sessionHeaders(t.id);
    const all = await operations();
    expect(all.filter((o) => o.jsonBody && !isJsonWrite(o)).map((o) => `${o.method} ${o.path}`)).toEqual([]);
    for (const op of all.filter(isJsonWrite)) {
      const schemes = op.security.flatMap((s) => Object.keys(s));
      const headers: Record<string, string> = { "Content-Type": "application/json", ...(schemes.includes("session") ? session : {}) };
      const key = schemes.includes("apiKey") ? t.key : undefined;
      const res = await callJson(concrete(op.path), { method: op.method, rawBody: "{\"unterminated", headers, ...(key ? { key } : {}) });
      // Refused before the credential is looked at (lib/http.ts, jsonBodies): the bot's signature too.
      expect(res.status, `${op.method} ${op.path}`).toBe(400);
      expect(res.body.error.code, `${op.method} ${op.path}`).toBe("invalid_request");
    }
  });

  it("does nothing on a garbled request to an operation that takes no body: nothing redacted, nothing submitted", async () => {
    const t = await seedTenant();
    const v = await createVerification(t.key, { max_captures: 1 });
    const garbled = { rawBody: "{not json", headers: { "Content-Type": "application/json" } };
    const redact = await callJson(`/v1/verifications/${v.id}/redact`, { method: "POST", key: t.key, ...garbled });
    const submit = await callJson(`/v1/verifications/${v.id}/submit`, { method: "POST", ...garbled });
    expect([redact.status, redact.body.error.code, submit.status, submit.body.error.code]).toEqual([400, "invalid_request", 400, "invalid_request"]);
    const after = await callJson(`/v1/verifications/${v.id}`, { key: t.key });
    expect(after.body).toMatchObject({ status: "pending" });
    expect(after.body.redacted_at ?? null).toBeNull();
  });

  it("answers a path id longer than its documented maxLength with 404, like any unknown id (the public link with its page)", async () => {
    const t = await seedTenant();
    const session = await sessionHeaders(t.id);
    const ops = (await operations()).filter((op) => Object.values(op.pathBounds).some((max) => max !== undefined));
    expect(ops.length).toBeGreaterThan(25);
    for (const op of ops) {
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const max = op.pathBounds[name];
        return max === undefined ? "vfy_01M82BB9AB26PZRT0D1PRV3Y8W" : "x".repeat(max + 1);
      });
      const schemes = op.security.flatMap((s) => Object.keys(s));
      const key = schemes.includes("apiKey") ? t.key : undefined;
      const headers = !key && schemes.includes("session") ? session : {};
      const res = await call(path, { method: op.method, headers, ...(key ? { key } : {}), redirect: "manual" });
      const what = `${op.method} ${op.path}`;
      expect(res.status, what).toBe(404);
      if (res.headers.get("Content-Type")?.startsWith("text/html")) {
        // The public link's pages: the link, and the link opened with a trailing slash.
        expect(["/l/{org}/{slug}", "/l/{org}/{slug}/"], what).toContain(op.path);
        expect(await res.text()).toContain("Link not found");
      } else {
        expect((await res.json<any>()).error.code, what).toBe("not_found");
      }
    }
  });

  it("answers a method the path does not document with the standard 405 and Allow", async () => {
    const byPath = new Map<string, string[]>();
    for (const op of await operations()) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op.method]);
    for (const [path, methods] of byPath) {
      const other = ["DELETE", "PATCH", "PUT", "POST"].find((m) => !methods.includes(m))!;
      const res = await callJson(concrete(path), { method: other });
      expect(res.status, `${other} ${path}`).toBe(405);
      expect(res.headers.get("Allow")?.split(", ").sort(), path).toEqual(expect.arrayContaining(methods));
    }
  });
});
