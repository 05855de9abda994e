/**
 * The operator console's latency budget (issue 12): each console page answers within 100 ms p50 on
 * local workerd with 10 000 verifications in the tenant.
 *
 * Runs the real Worker under `wrangler dev` on a throwaway local state seeded with 10 000
 * verifications (captures, timeline events, webhook deliveries, link templates and metadata with
 * claim numbers), signs in through the dev provider, then loads every console screen the way the
 * browser does: the HTML shell, then the API reads the screen makes, in parallel. A page's time is
 * the wall time until its last answer; each is measured 40 times after a warm-up.
 *
 *   npm run bench:console             # prints the markdown report
 *   npm run bench:console -- --write  # also writes bench/CONSOLE-RESULTS.md
 *   npm run bench:console -- --keep   # keeps the seeded local state (its directory is printed)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { monotonicFactory } from "ulid";
import { applyMigrations, generateSecrets, root, runWrangler, seedDevTenant, wrangler, wranglerEnv } from "../scripts/local-worker.mjs";

const PORT = 8798;
const BASE = `http://127.0.0.1:${PORT}`;
const VERIFICATIONS = 10_000;
const RUNS = 40;
const WARMUP = 5;
const BUDGET_MS = 100;

const sql = (value: unknown): string => (value === null || value === undefined ? "NULL" : typeof value === "number" ? String(value) : `'${String(value).replace(/'/g, "''")}'`);

/** A deterministic pseudo-random sequence, so every run seeds the same data. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

interface Seeded {
  someId: string;
  someClaim: string;
  templateId: string;
}

/** 10 000 verifications of the dev tenant over the last 90 days, written as multi-row INSERTs. */
function seedSql(tenantId: string): { statements: string[]; seeded: Seeded } {
  const rand = random(42);
  const ulid = monotonicFactory(() => rand());
  const now = Date.now();
  const statements: string[] = [];
  const templates = [0, 1, 2].map((i) => ({ id: `tpl_${ulid(now - 100 * 86_400_000 + i)}`, slug: `bench-${i}`, name: `Bench template ${i}` }));
  statements.push(
    `INSERT INTO link_templates (id, tenant_id, slug, name, mode, status, version, spec, started_total, started_today, created_at, updated_at) VALUES ${templates
      .map((t) => `(${sql(t.id)}, ${sql(tenantId)}, ${sql(t.slug)}, ${sql(t.name)}, 'verification', 'active', 1, '{"max_captures":1}', 0, 0, ${now}, ${now})`)
      .join(", ")};`,
  );
  const verifications: string[] = [];
  const captures: string[] = [];
  const events: string[] = [];
  const deliveries: string[] = [];
  let someId = "";
  const statuses = ["completed", "completed", "completed", "completed", "pending", "partially_captured", "expired", "abandoned", "failed", "completed"] as const;
  const labels = ["verified", "verified", "suspicious", "failed"] as const;
  for (let i = 0; i < VERIFICATIONS; i += 1) {
    const createdAt = now - Math.floor((VERIFICATIONS - i) * ((90 * 86_400_000) / VERIFICATIONS));
    const id = `vfy_${ulid(createdAt)}`;
    if (i === VERIFICATIONS - 500) someId = id;
    const status = statuses[Math.floor(rand() * statuses.length)]!;
    const claim = `CLM-${String(100_000 + i)}`;
    const config = {
      max_captures: 1,
      steps: [{ key: "front", type: "image", description: "Front of the car", min: 1, max: 1 }],
      signals_required: ["screen", "ai", "reverse"],
      metadata: { claim_id: claim, region: ["North", "South", "East", "West"][i % 4]! },
    };
    const template = i % 10 === 0 ? templates[i % 3]! : null;
    const completed = status === "completed";
    const label = labels[Math.floor(rand() * labels.length)]!;
    const verdict = completed
      ? {
          label,
          score: 0.8,
          signals: { screen_detection: { screen_detected: label === "suspicious", confidence: 0.9 }, ai_detection: { label: "unknown", confidence: 0.1 }, reverse_search: { found_online: false, match_count: 0 } },
          ...(label === "verified" ? {} : { reason_code: "screen_detected" }),
          assessment: "complete",
          not_assessed: [],
        }
      : null;
    verifications.push(
      `(${sql(id)}, ${sql(tenantId)}, ${sql(status)}, 1, ${sql(JSON.stringify(config))}, 1, ${sql(template?.id ?? null)}, ${template ? 1 : "NULL"}, ${createdAt}, ${createdAt}, ${createdAt + 7 * 86_400_000}, ${completed ? 1 : 0}, ${completed ? createdAt + 60_000 : "NULL"}, ${sql(verdict ? JSON.stringify(verdict) : null)})`,
    );
    events.push(`(${sql(`evt_${ulid(createdAt)}`)}, ${sql(id)}, ${sql(tenantId)}, 'verification.created', NULL, ${createdAt}, ${createdAt})`);
    if (completed) {
      const captureId = `cap_${ulid(createdAt + 30_000)}`;
      const digest = createHash("sha256").update(captureId).digest("hex");
      captures.push(`(${sql(captureId)}, ${sql(id)}, ${sql(tenantId)}, 'front', 'image', 1, ${sql(`${tenantId}/${id}/${captureId}.jpg`)}, 'image/jpeg', 2400000, ${sql(digest)}, ${createdAt + 30_000})`);
      events.push(`(${sql(`evt_${ulid(createdAt + 30_000)}`)}, ${sql(id)}, ${sql(tenantId)}, 'verification.capture.persisted', ${sql(JSON.stringify({ capture_id: captureId, step_key: "front" }))}, ${createdAt + 30_000}, ${createdAt + 30_000})`);
      events.push(`(${sql(`evt_${ulid(createdAt + 60_000)}`)}, ${sql(id)}, ${sql(tenantId)}, 'verification.completed', ${sql(JSON.stringify({ label }))}, ${createdAt + 60_000}, ${createdAt + 60_000})`);
      if (i % 4 === 0) {
        const outcome = i % 40 === 0 ? "failed" : "succeeded";
        deliveries.push(
          `(${sql(`whd_${ulid(createdAt + 61_000)}`)}, ${sql(`evt_bench_${i}`)}, ${sql(id)}, ${sql(tenantId)}, 'verification.completed', 'https://hooks.example.com/verification', '{}', ${sql(outcome)}, 1, ${outcome === "failed" ? 500 : 204}, ${createdAt + 61_000}, ${createdAt + 61_000})`,
        );
      }
    }
  }
  // D1 refuses a statement over 100 KB: rows go in batches that stay below it.
  const chunked = (head: string, rows: string[]) => {
    let batch: string[] = [];
    let size = 0;
    const flush = () => {
      if (batch.length > 0) statements.push(`${head} VALUES ${batch.join(", ")};`);
      batch = [];
      size = 0;
    };
    for (const row of rows) {
      if (size + row.length > 90_000) flush();
      batch.push(row);
      size += row.length + 2;
    }
    flush();
  };
  chunked(
    "INSERT INTO verifications (id, tenant_id, status, version, config, seal_enabled, template_id, template_version, created_at, updated_at, expires_at, captures_count, completed_at, verdict)",
    verifications,
  );
  chunked("INSERT INTO captures (id, verification_id, tenant_id, step_key, step_type, seq, image_key, content_type, size_bytes, sha256, created_at)", captures);
  chunked("INSERT INTO events (id, verification_id, tenant_id, name, payload, occurred_at, dispatched_at)", events);
  chunked("INSERT INTO webhook_deliveries (id, event_id, verification_id, tenant_id, event_type, url, payload, status, attempts, last_status_code, created_at, updated_at)", deliveries);
  return { statements, seeded: { someId, someClaim: "CLM-1042", templateId: templates[1]!.id } };
}

async function startWorker(persistDir: string, vars: Record<string, string>): Promise<ChildProcess> {
  const args = ["dev", "--port", String(PORT), "--ip", "127.0.0.1", "--inspector-port", String(PORT + 1000), "--persist-to", persistDir, "--log-level", "error", "--show-interactive-dev-session=false"];
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const proc = spawn(wrangler, args, { cwd: root, env: { ...wranglerEnv, CI: "true" }, stdio: ["ignore", "ignore", "inherit"], detached: true });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${BASE}/`);
      await res.text();
      if (res.ok) return proc;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("wrangler dev did not start");
}

/** Signs in as dev@localhost through the dev provider; returns the Cookie header. */
async function signIn(): Promise<string> {
  const login = await fetch(`${BASE}/v1/auth/dev/login?return_to=%2Fconsole`, { redirect: "manual" });
  await login.text();
  const flow = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const callback = await fetch(new URL(login.headers.get("Location")!, BASE), { headers: { Cookie: flow }, redirect: "manual" });
  await callback.text();
  const session = callback.headers.getSetCookie().find((c) => c.startsWith("svc_session="));
  if (!session) throw new Error(`sign-in failed: ${callback.status}`);
  return session.split(";")[0]!;
}

interface Page {
  name: string;
  requests: string[];
}

function pages(s: Seeded): Page[] {
  const week = new Date(Date.now() - 7 * 86_400_000).toISOString();
  // The template names of the filter load after the list is on screen (not part of answering the page).
  const list = (query: string) => ["/console/verifications", "/v1/me", `/v1/verifications?limit=25${query}`];
  return [
    { name: "Verifications (newest 25)", requests: list("") },
    { name: "… status = completed", requests: list("&status=completed") },
    { name: "… verdict = suspicious", requests: list("&verdict=suspicious") },
    { name: "… template", requests: list(`&template_id=${s.templateId}`) },
    { name: "… created in the last 7 days", requests: list(`&created_gte=${encodeURIComponent(week)}`) },
    { name: "… search a claim-number prefix", requests: list(`&q=${s.someClaim}`) },
    { name: "… search a verification id", requests: list(`&q=${s.someId}`) },
    { name: "… not reviewed yet", requests: list("&has_review=false") },
    {
      name: "Verification detail",
      requests: [
        `/console/verifications/${s.someId}`,
        "/v1/me",
        `/v1/verifications/${s.someId}`,
        `/v1/verifications/${s.someId}/events`,
        `/v1/verifications/${s.someId}/webhook-deliveries`,
        `/v1/verifications/${s.someId}/captures`,
      ],
    },
    { name: "Certificate", requests: [`/console/verifications/${s.someId}/certificate`, "/v1/me", `/v1/verifications/${s.someId}/public`] },
    { name: "New verification (form)", requests: ["/console/verifications/new", "/v1/me"] },
    { name: "Link templates", requests: ["/console/templates", "/v1/me", "/v1/link-templates"] },
    { name: "Team", requests: ["/console/team", "/v1/me", "/v1/members?limit=100", "/v1/invitations?limit=100"] },
    { name: "Audit log", requests: ["/console/audit-log", "/v1/me", "/v1/audit-log?limit=50", "/v1/members?limit=100", "/v1/api-keys"] },
    // The webhook secret is read only when an operator presses Reveal (an audit log entry), not on load.
    { name: "Developers", requests: ["/console/developers", "/v1/me", "/v1/api-keys", "/v1/webhook-deliveries?limit=20"] },
    { name: "Settings", requests: ["/console/settings", "/v1/me", "/v1/tenant/settings", "/v1/phones"] },
  ];
}

/** The shell first (the browser needs it to start), then the screen's reads in parallel. */
async function loadPage(page: Page, cookie: string): Promise<number> {
  const started = performance.now();
  const get = async (path: string) => {
    const res = await fetch(`${BASE}${path}`, { headers: { Cookie: cookie } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  };
  const [shell, ...reads] = page.requests;
  await get(shell!);
  await Promise.all(reads.map(get));
  return performance.now() - started;
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

async function main(): Promise<void> {
  const persistDir = mkdtempSync(join(tmpdir(), "console-bench-"));
  let worker: ChildProcess | undefined;
  try {
    const secrets = generateSecrets();
    applyMigrations(persistDir);
    const { tenantId } = seedDevTenant(secrets, persistDir);
    const { statements, seeded } = seedSql(tenantId);
    const file = join(persistDir, "seed.sql");
    writeFileSync(file, statements.join("\n"));
    process.stderr.write(`seeding ${VERIFICATIONS} verifications…\n`);
    runWrangler(["d1", "execute", "DB", "--local", "--persist-to", persistDir, "--file", file]);
    worker = await startWorker(persistDir, {
      PUBLIC_BASE_URL: BASE,
      SIGNING_SECRET: secrets.SIGNING_SECRET,
      SESSION_SECRET: secrets.SESSION_SECRET,
      CERTIFICATE_SIGNING_KEY: secrets.CERTIFICATE_SIGNING_KEY,
    });
    const cookie = await signIn();
    const rows: string[] = [];
    let over = 0;
    for (const page of pages(seeded)) {
      for (let i = 0; i < WARMUP; i += 1) await loadPage(page, cookie);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i += 1) times.push(await loadPage(page, cookie));
      const p50 = percentile(times, 50);
      if (p50 > BUDGET_MS) over += 1;
      rows.push(`| ${page.name} | ${page.requests.length} | ${p50.toFixed(1)} | ${percentile(times, 95).toFixed(1)} | ${p50 <= BUDGET_MS ? "yes" : "**no**"} |`);
      process.stderr.write(`${page.name}: p50 ${p50.toFixed(1)} ms\n`);
    }
    // Each distinct request alone, one at a time: where a page's time goes.
    const single: string[] = [];
    for (const path of [...new Set(pages(seeded).flatMap((p) => p.requests))]) {
      const times: number[] = [];
      for (let i = 0; i < WARMUP + 20; i += 1) {
        const started = performance.now();
        const res = await fetch(`${BASE}${path}`, { headers: { Cookie: cookie } });
        await res.arrayBuffer();
        if (i >= WARMUP) times.push(performance.now() - started);
      }
      single.push(`| \`${path.replace(seeded.someId, "{id}").replace(seeded.templateId, "{tpl}")}\` | ${percentile(times, 50).toFixed(1)} |`);
    }
    const floor: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const started = performance.now();
      await (await fetch(`${BASE}/`)).arrayBuffer();
      floor.push(performance.now() - started);
    }
    const report = [
      "# Console latency (bench/console.ts)",
      "",
      `Run of ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC (\`npm run bench:console -- --write\`).`,
      "",
      `Local workerd (\`wrangler dev\`, local D1) with ${VERIFICATIONS.toLocaleString("en")} verifications in the tenant; ${RUNS} loads per page after ${WARMUP} warm-up loads, one at a time.`,
      `A page is its HTML shell, then every API read the screen makes on load, in parallel (as the browser does); the time is until the last answer.`,
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}, shared with other work (load average ${loadavg()[0]!.toFixed(1)} when measured). Budget: p50 ≤ ${BUDGET_MS} ms.`,
      "",
      "| Page | Requests | p50 ms | p95 ms | Within budget |",
      "|---|---|---|---|---|",
      ...rows,
      "",
      `Each request alone (p50 of 20; \`GET /\`, which reads nothing, takes ${percentile(floor, 50).toFixed(1)} ms: the floor of a round trip through \`wrangler dev\`):`,
      "",
      "| Request | p50 ms |",
      "|---|---|",
      ...single,
      "",
    ].join("\n");
    console.log(report);
    if (process.argv.includes("--write")) writeFileSync(resolve(import.meta.dirname, "CONSOLE-RESULTS.md"), report);
    if (over > 0) process.exitCode = 1;
  } finally {
    if (worker?.pid) {
      process.kill(-worker.pid, "SIGTERM");
      await new Promise((r) => setTimeout(r, 500));
    }
    if (process.argv.includes("--keep")) process.stderr.write(`local state kept in ${persistDir}\n`);
    else rmSync(persistDir, { recursive: true, force: true });
  }
}

await main();
