/**
 * Fairness between tenants (`npm run bench:fairness`): how long one tenant's flood delays another
 * tenant's single capture.
 *
 * On the runtime of the other benchmarks (bench/lib/runtime.ts: the API Worker in process A, the
 * analysis Worker in process B, D1 and R2 in process S, the queues as wrangler.toml and
 * wrangler.analysis.toml declare them), in direct-upload mode. Tenant B captures one photo into a
 * one-capture verification; its time runs from just before its capture request to its verdict (the
 * same point in every scenario), and an analysis that ends `failed` is counted apart, never as a
 * verdict:
 *  - idle: nobody else is capturing, `--idle-runs` times (after one warm-up);
 *  - after the flood: tenant A (the dev tenant) captures `--flood` photos, one per verification, as
 *    fast as 16 clients can post them; right after the last is accepted, B captures;
 *  - worst case: B captures right after A's first FAST_LANE_SHARE captures are accepted, while A's
 *    share of the fast lane is full and the rest of A's flood is still arriving.
 * Each flood is also measured until it drains (A's last verdict or failure), with A's verdicts and
 * failures counted. Every photo is the capture benchmark's 1.5 MB, 2560×1440 JPEG
 * (bench/lib/photo.ts), put into R2 beforehand as the browser's PUT to a presigned URL would. The
 * last line is the raw result as JSON (times unrounded, in ms).
 *
 *   npm run bench:fairness -- [--flood 300] [--idle-runs 3] [--rounds 1]
 */
import { createHash, randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { DIRECT_MODE } from "./lib/capture-jobs";
import { fmt, load, machine, median } from "./lib/measure";
import { benchPhoto } from "./lib/photo";
import { API_WORKER, startRuntime, type Runtime } from "./lib/runtime";
import { FAST_LANE_SHARE } from "../src/domain/fairness/analysis-lanes";

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

interface Settled {
  /** ms from `since` to the verdict or the failure */
  ms: number;
  outcome: "verdict" | "failed";
}

/** Polls the verification until it has a verdict or failed: which, and when (ms from `since`). */
async function settled(rt: Runtime, key: string, id: string, since: number, timeoutMs = 30 * 60_000): Promise<Settled> {
  for (;;) {
    const res = await fetch(`${rt.urls[API_WORKER]}/v1/verifications/${id}`, { headers: { Authorization: `Bearer ${key}` } });
    const v = (await res.json()) as { status: string; verdict?: unknown };
    if (v.verdict) return { ms: performance.now() - since, outcome: "verdict" };
    if (v.status === "failed") return { ms: performance.now() - since, outcome: "failed" };
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

/** How a set of verifications ended so far: with a verdict, failed, or still waiting. */
async function outcomes(rt: Runtime, ids: string[]): Promise<{ verdicts: number; failed: number; waiting: number }> {
  const d1 = await rt.d1();
  const counts = { verdicts: 0, failed: 0, waiting: 0 };
  for (let i = 0; i < ids.length; i += 90) {
    const chunk = ids.slice(i, i + 90);
    const rows = await d1
      .prepare(`SELECT verdict IS NOT NULL AS verdict, status FROM verifications WHERE id IN (${chunk.map(() => "?").join(",")})`)
      .bind(...chunk)
      .all<{ verdict: number; status: string }>();
    for (const row of rows.results) {
      if (row.verdict) counts.verdicts += 1;
      else if (row.status === "failed") counts.failed += 1;
      else counts.waiting += 1;
    }
  }
  return counts;
}

type Scenario = "after_flood" | "worst_case";

interface FloodRun {
  scenario: Scenario;
  /** B: its capture request sent → its verdict or failure */
  b: Settled;
  /** B's capture request sent this long after the flood's first */
  bStartMs: number;
  acceptMs: number;
  drainMs: number;
  a: { verdicts: number; failed: number };
}

const rt = await startRuntime({ floors: [], analysis: true, quiet: !process.env.BENCH_VERBOSE, apiVars: DIRECT_MODE });
try {
  const loadBefore = load();
  const a = { id: rt.tenantId, key: rt.secrets.DEV_API_KEY! };
  const b = await seedTenant(rt, "bench-tenant-b");
  /** B's one capture, timed from just before its request: the same start in every scenario. */
  const single = async (s: Staged): Promise<Settled> => {
    const t0 = performance.now();
    await capture(rt, s);
    return settled(rt, b.key, s.id, t0);
  };
  // Warm-up: the analysis Worker's first job compiles its codecs.
  await single(await stage(rt, b.key));
  const idle: Settled[] = [];
  for (let i = 0; i < IDLE_RUNS; i += 1) idle.push(await single(await stage(rt, b.key)));

  const flood = async (scenario: Scenario): Promise<FloodRun> => {
    const staged: Staged[] = [];
    await pool(Array.from({ length: FLOOD }, (_, i) => i), POSTERS, async () => void staged.push(await stage(rt, a.key)));
    const mine = await stage(rt, b.key);
    let accepted = 0;
    let bRun: Promise<Settled> | undefined;
    let bStartMs = 0;
    const f0 = performance.now();
    const startB = () => {
      bStartMs = performance.now() - f0;
      bRun = single(mine);
    };
    await pool(staged, POSTERS, async (s) => {
      await capture(rt, s);
      accepted += 1;
      // The worst case: A's share of the fast lane just filled, the rest of its flood still arriving.
      if (scenario === "worst_case" && accepted === FAST_LANE_SHARE.limit) startB();
    });
    const acceptMs = performance.now() - f0;
    if (scenario === "after_flood") startB();
    const bSettled = await bRun!;
    const ids = staged.map((x) => x.id);
    for (;;) {
      const counts = await outcomes(rt, ids);
      if (counts.waiting === 0) return { scenario, b: bSettled, bStartMs, acceptMs, drainMs: performance.now() - f0, a: { verdicts: counts.verdicts, failed: counts.failed } };
      await new Promise((res) => setTimeout(res, 500));
    }
  };

  const floods: FloodRun[] = [];
  for (let r = 0; r < ROUNDS; r += 1) for (const scenario of ["after_flood", "worst_case"] as const) floods.push(await flood(scenario));

  const idleVerdicts = idle.filter((x) => x.outcome === "verdict").map((x) => x.ms);
  const idleMedian = median(idleVerdicts);
  const out = {
    date: new Date().toISOString(),
    machine: machine(),
    load: { before: loadBefore, after: load() },
    flood: FLOOD,
    fastLaneShare: FAST_LANE_SHARE.limit,
    idle,
    floods,
  };
  console.log(`\n${out.date}  ${out.machine}  load ${out.load.before} → ${out.load.after}`);
  console.log(`tenant A floods ${FLOOD} captures (one per verification); tenant B captures one, timed from its capture request to its verdict`);
  console.log(`B idle: median ${fmt(idleMedian)} ms of ${idleVerdicts.length} verdicts (${idle.map((x) => `${fmt(x.ms)} ms ${x.outcome}`).join(", ")})`);
  console.log("| scenario | B sent at (after the flood's first) | B: outcome, time | B's delay over idle | A: accepted in / drained in | A: verdicts / failed |");
  console.log("|---|---|---|---|---|---|");
  for (const f of floods) {
    console.log(
      `| ${f.scenario === "worst_case" ? `worst case (after A's first ${FAST_LANE_SHARE.limit})` : "after the whole flood"} | ${(f.bStartMs / 1000).toFixed(1)} s | ${f.b.outcome}, ${fmt(f.b.ms)} ms | ${f.b.outcome === "verdict" ? `${f.b.ms - idleMedian >= 0 ? "+" : ""}${fmt(f.b.ms - idleMedian)} ms` : "n/a (failed)"} | ${(f.acceptMs / 1000).toFixed(1)} s / ${(f.drainMs / 1000).toFixed(1)} s | ${f.a.verdicts} / ${f.a.failed} |`,
    );
  }
  console.log(`JSON ${JSON.stringify(out)}`);
} finally {
  await rt.dispose();
}
