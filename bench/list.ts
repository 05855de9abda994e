/**
 * List at 1 000 000 verifications against list at 1 000, interleaved in one run (`npm run bench:list`).
 *
 * Two tenants of one database: "small" with 1 000 verifications, "big" with 1 000 000, seeded
 * directly in D1 (one INSERT … SELECT per 100 000 rows, each row a copy of a verification created
 * through the API, with ULID-ordered ids and creation times one second apart; every tenth is
 * `expired`). Each scenario is a `GET /v1/verifications` page as a tenant's backend asks for it:
 * the newest page, a page from a cursor in the middle of the tenant's history, and the newest page
 * of a status filter. The small tenant is the floor: keyset pagination should make the page cost
 * independent of how many rows the tenant has.
 *
 *   npm run bench:list -- [--clients 4] [--rounds 16] [--phase-ms 600] [--big 1000000] [--limit 20]
 */
import { createHash, randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { signToken } from "../src/lib/crypto";
import { errorDigest, fmt, interleaved, load, machine, summarize, type Job } from "./lib/measure";
import { API_WORKER, startRuntime } from "./lib/runtime";

const { values: args } = parseArgs({
  options: {
    clients: { type: "string", default: "4" },
    // Many short alternations: the machine's other load then weighs on both sides alike.
    rounds: { type: "string", default: "16" },
    "phase-ms": { type: "string", default: "600" },
    small: { type: "string", default: "1000" },
    big: { type: "string", default: "1000000" },
    limit: { type: "string", default: "20" },
  },
});
const SIZES = { small: Number(args.small), big: Number(args.big) };
const CHUNK = 100_000;

const rt = await startRuntime({ floors: [], analysis: false, quiet: !process.env.BENCH_VERBOSE });
const api = rt.urls[API_WORKER]!;
const db = await rt.d1();

/** A tenant with a full API key, seeded in D1 like the dev tenant (scripts/local-worker.mjs). */
async function tenant(name: string): Promise<{ id: string; key: string }> {
  const id = `tnt_01BENCH${name.toUpperCase().padEnd(18, "0")}`;
  const key = `pk_test_${randomBytes(24).toString("hex")}`;
  const now = Date.now();
  await db.batch([
    db.prepare("INSERT INTO tenants (id, slug, display_name, webhook_secret, created_at) VALUES (?1, ?2, ?3, ?4, ?5)").bind(id, `bench-${name}`, `Bench ${name}`, `whsec_${randomBytes(32).toString("base64")}`, now),
    db
      .prepare("INSERT INTO api_keys (id, tenant_id, environment, scope, key_hash, key_prefix, name, created_at) VALUES (?1, ?2, 'test', 'full', ?3, ?4, 'bench', ?5)")
      .bind(`key_01BENCH${name.toUpperCase().padEnd(18, "0")}`, id, createHash("sha256").update(key).digest("hex"), `${key.slice(0, 12)}…`, now),
  ]);
  return { id, key };
}

/** `count` verifications for the tenant, copies of one created through the API; returns the ids' prefix. */
async function seed(side: "small" | "big", t: { id: string; key: string }, count: number): Promise<(n: number) => string> {
  const res = await fetch(`${api}/v1/verifications`, {
    method: "POST",
    headers: { Authorization: `Bearer ${t.key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ steps: [{ key: "front", type: "image", description: "Front of the car", min: 1, max: 2 }], metadata: { seeded: "yes" } }),
  });
  if (res.status !== 201) throw new Error(`create for ${side}: ${res.status} ${await res.text()}`);
  const template = ((await res.json()) as { id: string }).id;
  // ULIDs: a fixed 2021 time prefix per tenant, then the row number (digits are Crockford base32).
  const prefix = side === "small" ? "vfy_01F0000001" : "vfy_01F0000002";
  const start = Date.UTC(2021, 0, 1);
  for (let from = 1; from <= count; from += CHUNK) {
    const to = Math.min(count, from + CHUNK - 1);
    await db
      .prepare(
        `WITH RECURSIVE seq(n) AS (SELECT ?1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?2)
         INSERT INTO verifications (id, tenant_id, status, version, config, seal_enabled, created_at, updated_at, expires_at, captures_count)
         SELECT ?3 || printf('%016d', n), t.tenant_id, CASE WHEN n % 10 = 0 THEN 'expired' ELSE 'created' END, 1, t.config, t.seal_enabled,
                ?4 + n * 1000, ?4 + n * 1000, ?4 + n * 1000 + 86400000, 0
         FROM seq, (SELECT * FROM verifications WHERE id = ?5) AS t`,
      )
      .bind(from, to, prefix, start, template)
      .run();
  }
  return (n) => `${prefix}${String(n).padStart(16, "0")}`;
}

try {
  const t0 = performance.now();
  const tenants = { small: await tenant("small"), big: await tenant("big") };
  const ids = { small: await seed("small", tenants.small, SIZES.small), big: await seed("big", tenants.big, SIZES.big) };
  await db.exec("ANALYZE");
  const counts = await db.prepare("SELECT tenant_id, count(*) AS n FROM verifications GROUP BY tenant_id").all<{ tenant_id: string; n: number }>();
  console.log(`seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s: ${counts.results.map((r) => `${r.tenant_id} ${r.n}`).join(", ")}`);

  const limit = Number(args.limit);
  // The plans the pages run on (the same SQL drizzle sends): each must walk an index, never the table.
  for (const [what, where] of [
    ["newest page", "tenant_id = ?1"],
    ["from a cursor", "tenant_id = ?1 AND id < ?2"],
    ["status filter", "tenant_id = ?1 AND status = 'expired'"],
  ] as const) {
    const plan = await db
      .prepare(`EXPLAIN QUERY PLAN SELECT * FROM verifications WHERE ${where} ORDER BY id DESC LIMIT ${limit + 1}`)
      .bind(tenants.big.id, ...(where.includes("?2") ? [ids.big(SIZES.big / 2)] : []))
      .all<{ detail: string }>();
    console.log(`plan, ${what}: ${plan.results.map((r) => r.detail).join("; ")}`);
  }
  const job = (side: "small" | "big", query: string): (() => Job) => {
    const j: Job = { url: `${api}/v1/verifications?limit=${limit}${query}`, init: { headers: { Authorization: `Bearer ${tenants[side].key}` } }, expect: 200 };
    return () => j;
  };
  const middle = async (side: "small" | "big") => `&cursor=${await signToken(rt.secrets.SIGNING_SECRET, "list-cursor", { after: ids[side](Math.floor(SIZES[side] / 2)) })}`;
  const scenarios: Record<string, { small: () => Job; big: () => Job }> = {
    "newest page": { small: job("small", ""), big: job("big", "") },
    "page from a cursor in the middle": { small: job("small", await middle("small")), big: job("big", await middle("big")) },
    "newest page, status=expired": { small: job("small", "&status=expired"), big: job("big", "&status=expired") },
  };
  const loadBefore = load();
  const rows: string[] = [];
  const results: Record<string, unknown> = {};
  for (const [name, sides] of Object.entries(scenarios)) {
    const phases = await interleaved(sides, { clients: Number(args.clients), rounds: Number(args.rounds), phaseMs: Number(args["phase-ms"]) });
    const s = summarize(phases.small);
    const b = summarize(phases.big);
    results[name] = { small: s, big: b, ratio: b.p50 / s.p50 };
    rows.push(`| ${name} | ${fmt(s.p50)} / ${fmt(s.p99)} ms | ${fmt(b.p50)} / ${fmt(b.p99)} ms | ${(b.p50 / s.p50).toFixed(2)}× |`);
    for (const [side, p] of Object.entries(phases)) for (const e of errorDigest(p).slice(0, 3)) console.log(`  ${name} ${side} error: ${e}`);
  }
  const date = new Date().toISOString();
  const loadAfter = load();
  console.log(`\n${date}  ${machine()}  load ${loadBefore} → ${loadAfter}`);
  console.log(`${args.clients} clients, limit=${limit}, ${args.rounds} rounds of ${args["phase-ms"]} ms per side`);
  console.log(`| page | ${SIZES.small.toLocaleString("en")} rows p50 / p99 | ${SIZES.big.toLocaleString("en")} rows p50 / p99 | ratio p50 |`);
  console.log("|---|---|---|---|");
  for (const row of rows) console.log(row);
  console.log(`JSON ${JSON.stringify({ date, machine: machine(), load: { before: loadBefore, after: loadAfter }, sizes: SIZES, limit, results })}`);
} finally {
  await rt.dispose();
}
