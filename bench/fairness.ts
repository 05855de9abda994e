/**
 * Fairness between tenants (`npm run bench:fairness`): how long one tenant's flood delays another
 * tenant's single capture.
 *
 * On the runtime of the other benchmarks (bench/lib/runtime.ts: the API Worker in process A, the
 * analysis Worker in process B, D1 and R2 in process S, the queues as wrangler.toml and
 * wrangler.analysis.toml declare them), in direct-upload mode:
 *  - idle: tenant B captures one photo into a one-capture verification and polls it until it has
 *    its verdict (time from the capture's 201 to the verdict), `--idle-runs` times;
 *  - flood: tenant A (the dev tenant) captures `--flood` photos, one per verification, as fast as
 *    16 clients can post them; right after the last is accepted, B captures its one photo. B's time
 *    to verdict is measured as before, and so is the time A's flood takes to drain (its last verdict).
 * Every photo is the capture benchmark's 1.5 MB, 2560×1440 JPEG (bench/lib/photo.ts), put into R2
 * beforehand as the browser's PUT to a presigned URL would.
 *
 *   npm run bench:fairness -- [--flood 300] [--idle-runs 3] [--rounds 1]
 */
import { createHash, randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { DIRECT_MODE } from "./lib/capture-jobs";
import { fmt, load, machine, median } from "./lib/measure";
import { benchPhoto } from "./lib/photo";
import { API_WORKER, startRuntime, type Runtime } from "./lib/runtime";

const { values: args } = parseArgs({
  options: {
    flood: { type: "string", default: "300" },
    "idle-runs": { type: "string", default: "3" },
    rounds: { type: "string", default: "1" },
  },
});
const FLOOD = Number(args.flood);
const IDLE_RUNS = Number(args["idle-runs"]);
const ROUNDS = Number(args.rounds);
const POSTERS = 16;

const photo = benchPhoto();
const sha256 = createHash("sha256").update(photo.bytes).digest("hex");

/** A second tenant and its full API key, written straight into the local D1 (as the dev tenant is). */
async function seedTenant(rt: Runtime, slug: string): Promise<{ id: string; key: string }> {
  const id = `tnt_${crockford(26)}`;
  const key = `pk_test_${randomBytes(32).toString("base64url").replace(/[-_]/g, "x").slice(0, 43)}`;
  const now = Date.now();
  const d1 = await rt.d1();
  await d1.batch([
    d1.prepare("INSERT INTO tenants (id, slug, display_name, webhook_secret, created_at) VALUES (?, ?, ?, ?, ?)").bind(id, slug, slug, `whsec_${randomBytes(32).toString("base64")}`, now),
    d1
      .prepare("INSERT INTO api_keys (id, tenant_id, environment, scope, key_hash, key_prefix, name, created_at) VALUES (?, ?, 'test', 'full', ?, ?, 'bench', ?)")
      .bind(`key_${crockford(26)}`, id, createHash("sha256").update(key).digest("hex"), `${key.slice(0, 12)}…`, now),
  ]);
  return { id, key };
}

function crockford(length: number): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  return Array.from(randomBytes(length), (b) => alphabet[b % 32]).join("");
}

let addresses = 0;
const nextIp = () => {
  addresses += 1;
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
};

interface Staged {
  id: string;
  ip: string;
  imageKey: string;
}

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<{ id: string; image_key: string }> {
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** A one-capture verification of `key`'s tenant with its photo uploaded, ready to be captured. */
async function stage(rt: Runtime, key: string): Promise<Staged> {
  const api = rt.urls[API_WORKER]!;
  const v = await post(`${api}/v1/verifications`, { max_captures: 1 }, { Authorization: `Bearer ${key}` });
  const ip = nextIp();
  const minted = await post(`${api}/v1/verifications/${v.id}/captures/upload-url`, { content_type: "image/jpeg" }, { "CF-Connecting-IP": ip });
  await (await rt.bucket()).put(minted.image_key, photo.bytes, { httpMetadata: { contentType: "image/jpeg" } });
  return { id: v.id, ip, imageKey: minted.image_key };
}

async function capture(rt: Runtime, s: Staged): Promise<void> {
  await post(`${rt.urls[API_WORKER]}/v1/verifications/${s.id}/captures`, { image_key: s.imageKey, image_sha256: sha256 }, { "CF-Connecting-IP": s.ip });
}

/** Polls the verification until it has a verdict (or failed); ms from `since`. */
async function untilVerdict(rt: Runtime, key: string, id: string, since: number, timeoutMs = 30 * 60_000): Promise<number> {
  for (;;) {
    const res = await fetch(`${rt.urls[API_WORKER]}/v1/verifications/${id}`, { headers: { Authorization: `Bearer ${key}` } });
    const v = (await res.json()) as { status: string; verdict?: unknown };
    if (v.verdict || v.status === "failed") return performance.now() - since;
    if (performance.now() - since > timeoutMs) throw new Error(`no verdict for ${id} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `fn` over `items` with at most `limit` at once. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/** Open verifications of a tenant still waiting for their verdict. */
async function waiting(rt: Runtime, tenantId: string): Promise<number> {
  const row = await (await rt.d1())
    .prepare("SELECT count(*) AS n FROM verifications WHERE tenant_id = ? AND verdict IS NULL AND status NOT IN ('failed', 'expired')")
    .bind(tenantId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

const rt = await startRuntime({ floors: [], analysis: true, quiet: !process.env.BENCH_VERBOSE, apiVars: DIRECT_MODE });
try {
  const loadBefore = load();
  const a = { id: rt.tenantId, key: rt.secrets.DEV_API_KEY! };
  const b = await seedTenant(rt, "bench-tenant-b");
  const single = async () => {
    const s = await stage(rt, b.key);
    const t0 = performance.now();
    await capture(rt, s);
    return untilVerdict(rt, b.key, s.id, t0);
  };
  // Warm-up: the analysis Worker's first job compiles its codecs.
  await single();
  const idle: number[] = [];
  for (let i = 0; i < IDLE_RUNS; i += 1) idle.push(await single());

  const floods: Array<{ b: number; acceptMs: number; drainMs: number }> = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const staged: Staged[] = [];
    await pool(Array.from({ length: FLOOD }, (_, i) => i), POSTERS, async () => void staged.push(await stage(rt, a.key)));
    const mine = await stage(rt, b.key);
    const f0 = performance.now();
    await pool(staged, POSTERS, (s) => capture(rt, s));
    const accepted = performance.now();
    await capture(rt, mine);
    const bMs = await untilVerdict(rt, b.key, mine.id, performance.now());
    while ((await waiting(rt, a.id)) > 0) await new Promise((res) => setTimeout(res, 500));
    floods.push({ b: bMs, acceptMs: accepted - f0, drainMs: performance.now() - f0 });
  }

  const idleMedian = median(idle);
  const out = {
    date: new Date().toISOString(),
    machine: machine(),
    load: { before: loadBefore, after: load() },
    flood: FLOOD,
    idleMs: idle,
    floods,
    delayMs: floods.map((f) => f.b - idleMedian),
  };
  console.log(`\n${out.date}  ${out.machine}  load ${out.load.before} → ${out.load.after}`);
  console.log(`tenant A floods ${FLOOD} captures (one per verification); tenant B captures one`);
  console.log("| B idle: capture → verdict (median of runs) | B during A's flood | delay | A's flood accepted in / drained in |");
  console.log("|---|---|---|---|");
  for (const f of floods) {
    console.log(`| ${fmt(idleMedian)} ms (${idle.map(fmt).join(", ")}) | ${fmt(f.b)} ms | +${fmt(f.b - idleMedian)} ms | ${(f.acceptMs / 1000).toFixed(1)} s / ${(f.drainMs / 1000).toFixed(1)} s |`);
  }
  console.log(`JSON ${JSON.stringify(out)}`);
} finally {
  await rt.dispose();
}
