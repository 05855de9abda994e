import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { startLocalRuntime, type LocalRuntime } from "../../scripts/local-runtime.mjs";
import { applyMigrations, freePort, generateSecrets, seedDevTenant } from "../../scripts/local-worker.mjs";
import { createContract, type Contract } from "../helpers/openapi-contract";

/*
 * Ready means ready (issue 42, item 8): the runtime `npm start` runs (scripts/local-runtime.mjs) is
 * started here in a directory of its own, and a first capture goes in the moment its port answers.
 * Miniflare drops a message for a queue whose consumer the producing process does not know yet, so
 * a port that answered before the analysis Worker was known left that capture's analysis job to
 * the straggler sweep, minutes later. Its verdict must come within 30 s.
 */

const root = path.resolve(import.meta.dirname, "../..");
const persistDir = mkdtempSync(path.join(tmpdir(), "runtime-ready-"));
let runtime: Promise<LocalRuntime> | undefined;

afterAll(async () => {
  await (await runtime)?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

it("a capture sent the moment the port answers has its verdict within 30 s", { timeout: 300_000 }, async () => {
  const secrets = generateSecrets();
  applyMigrations(persistDir);
  seedDevTenant(secrets, persistDir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  runtime = startLocalRuntime({
    persistDir,
    port,
    vars: { SIGNING_SECRET: secrets.SIGNING_SECRET, SESSION_SECRET: secrets.SESSION_SECRET },
    apiVars: { PUBLIC_BASE_URL: base, CERTIFICATE_SIGNING_KEY: secrets.CERTIFICATE_SIGNING_KEY },
    onLog: () => undefined,
  });
  runtime.catch(() => undefined);
  // The first answer on the port, whatever it is: the runtime is not awaited.
  let document: Parameters<typeof createContract>[0] | undefined;
  const startDeadline = Date.now() + 200_000;
  while (document === undefined) {
    if (Date.now() > startDeadline) throw new Error("the port never answered");
    try {
      const res = await fetch(`${base}/v1/openapi.json`);
      if (res.status === 200) document = await res.json();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const contract: Contract = createContract(document);
  const call = async (pathname: string, init: RequestInit & { key?: boolean } = {}) => {
    const headers = new Headers(init.headers);
    if (init.key) headers.set("Authorization", `Bearer ${secrets.DEV_API_KEY}`);
    if (init.body) headers.set("Content-Type", "application/json");
    const res = await fetch(`${base}${pathname}`, { ...init, headers });
    const text = await res.text();
    contract.check({ method: init.method ?? "GET", url: `${base}${pathname}`, status: res.status, headers: res.headers, body: text });
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  const photo = readFileSync(path.join(root, "test/fixtures/photos/dune-progressive.jpg"));
  const created = await call("/v1/verifications", { method: "POST", key: true, body: JSON.stringify({ max_captures: 1 }) });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const slot = await call(`/v1/verifications/${id}/captures/upload-url`, { method: "POST", body: JSON.stringify({ content_type: "image/jpeg" }) });
  expect(slot.status).toBe(200);
  const put = await fetch(slot.body.upload_url, { method: "PUT", headers: { "Content-Type": "image/jpeg" }, body: photo });
  expect(put.ok).toBe(true);
  const sha = createHash("sha256").update(photo).digest("hex");
  const captured = await call(`/v1/verifications/${id}/captures`, { method: "POST", body: JSON.stringify({ image_key: slot.body.image_key, image_sha256: sha }) });
  expect(captured.status).toBe(201);
  const capturedAt = Date.now();

  let last: { status: number; body: any } | undefined;
  while (Date.now() - capturedAt < 30_000) {
    last = await call(`/v1/verifications/${id}`, { key: true });
    if (last.body.status === "completed") break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(last?.body.status, `still ${last?.body.status} 30 s after the capture`).toBe("completed");
  expect(last?.body.verdict?.label).toBeTypeOf("string");
});

it("its Rate Limiting bindings still count (in process memory): one network's capture-link reads stop at 60 a minute, another's go on", async () => {
  const { url } = await runtime!;
  const read = (network: string) => fetch(`${url}/v1/verify/vfy_01M82BB9AB26PZRT0D1PRV3Y8W`, { headers: { "CF-Connecting-IP": network } });
  // A fixed window of 60 s: 121 reads fill at least one window whatever boundary they straddle.
  const statuses: number[] = [];
  let limited: Response | undefined;
  while (statuses.length < 121 && !limited) {
    const res = await read("198.51.100.7");
    statuses.push(res.status);
    if (res.status === 429) limited = res;
  }
  expect(limited, `no 429 in ${statuses.length} reads`).toBeDefined();
  expect(statuses.slice(0, -1).every((s) => s === 404)).toBe(true);
  expect(statuses.length).toBeGreaterThan(60);
  expect(limited!.headers.get("Retry-After")).toBe("60");
  expect((await read("198.51.100.8")).status).toBe(404);
});
