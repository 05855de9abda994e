/**
 * The benchmarks' runtime: the project as Cloudflare runs it, on local workerd, with its floors.
 *
 * workerd runs every Worker of one process on one thread, so a single `wrangler dev` session would
 * put the analysis Worker's decode on the thread that serves the capture links, which Cloudflare
 * never does (separate Workers run in separate isolates; `npm start` runs the analysis Worker in a
 * process of its own too, scripts/local-runtime.mjs, whose pieces this uses). Here the API
 * Worker and the floors share process A, the analysis Worker runs in process B, and process S
 * holds the local D1 and R2 (Miniflare's shared storage), which on Cloudflare are services of their
 * own too. The processes find each other (storage, the analysis queue, the Durable Object
 * bindings) through a private dev registry, so nobody else's `wrangler dev` on the machine is
 * reached.
 *
 * Every Worker is the bundle `wrangler deploy --dry-run` produces from its own configuration, with
 * the bindings that configuration declares.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LogLevel, type Miniflare } from "miniflare";
import { withLocalRateLimits, workerdInstance, workerOptions } from "../../scripts/local-runtime.mjs";
import { applyMigrations, freePort, generateSecrets, seedDevTenant } from "../../scripts/local-worker.mjs";

export { freePort };

export const API_WORKER = "verification-service-local";

export interface WorkerSpec {
  /** wrangler configuration, relative to the repository root */
  config: string;
  /** extra plain-text bindings (secrets, overrides) */
  vars?: Record<string, string>;
}

export interface Runtime {
  /** base URL of each Worker of process A, by name (each on its own socket) */
  urls: Record<string, string>;
  secrets: ReturnType<typeof generateSecrets>;
  tenantId: string;
  persistDir: string;
  /** workerd processes: A (API Worker and floors), B (analysis Worker, when it runs), S (storage) */
  pids: { api: number; analysis: number | null; storage: number };
  /** the evidence bucket, written from Node (what a direct upload to R2 does) */
  bucket(): ReturnType<Miniflare["getR2Bucket"]>;
  /** the database, queried from Node (what the benchmarks seed directly) */
  d1(): ReturnType<Miniflare["getD1Database"]>;
  dispose(): Promise<void>;
}

export interface StartOptions {
  /** Workers of process A besides the API Worker (the floors), each reachable on its own port */
  floors: WorkerSpec[];
  /** run the analysis Worker (process B); false leaves captures unanalysed */
  analysis: boolean;
  /** extra vars for the API Worker */
  apiVars?: Record<string, string>;
  /** open the V8 inspector of process A on this port (bench/profile.ts) */
  inspectorPort?: number;
  quiet?: boolean;
}

export async function startRuntime(options: StartOptions): Promise<Runtime> {
  const persistDir = mkdtempSync(path.join(tmpdir(), "vfy-bench-"));
  const secrets = generateSecrets();
  applyMigrations(persistDir);
  const { tenantId } = seedDevTenant(secrets, persistDir);
  const logLevel = options.quiet === false ? LogLevel.INFO : LogLevel.WARN;

  const specs: WorkerSpec[] = [
    {
      config: "wrangler.toml",
      vars: { SIGNING_SECRET: secrets.SIGNING_SECRET, SESSION_SECRET: secrets.SESSION_SECRET, CERTIFICATE_SIGNING_KEY: secrets.CERTIFICATE_SIGNING_KEY, ...options.apiVars },
    },
    ...options.floors,
  ];
  // Everything is bundled before either process starts: the instances keep their dev-registry
  // entries alive from this event loop, which a synchronous bundle would block for seconds.
  const urls: Record<string, string> = {};
  const workersA = [];
  for (const [i, spec] of specs.entries()) {
    const port = await freePort();
    // The API Worker's links (upload URLs, capture links) point at its own socket.
    const own = i === 0 ? { ...spec, vars: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...spec.vars } } : spec;
    // The capture page's static assets are not part of these benchmarks (bench/page.ts uses wrangler dev).
    // Rate Limiting bindings counted in process memory, as `npm start` counts them (scripts/local-rate-limits.worker.js).
    const { worker, limiter } = withLocalRateLimits(workerOptions(own.config, path.join(persistDir, "bundles", String(i)), { vars: own.vars, assets: false, socket: port }));
    urls[worker.name] = `http://127.0.0.1:${port}`;
    workersA.push(worker);
    if (limiter && !workersA.some((w) => w.name === limiter.name)) workersA.push(limiter);
  }
  const analysisWorker = options.analysis
    ? workerOptions("wrangler.analysis.toml", path.join(persistDir, "bundles", "analysis"), {
        vars: { SIGNING_SECRET: secrets.SIGNING_SECRET, SESSION_SECRET: secrets.SESSION_SECRET },
        assets: false,
      })
    : null;
  const instance = (name: string, workers: unknown[], inspectorPort?: number) => workerdInstance({ name, workers, persistDir, logLevel, inspectorPort });
  const before = workerdPids();
  // Process S owns the storage (the earliest instance of a shared scope does): D1 and R2 are
  // services of their own, as on Cloudflare, not work on the API Worker's thread.
  const storage = instance("storage", [{ name: "bench-storage", modules: true, script: "export default { fetch() { return new Response(null, { status: 404 }); } };", compatibilityDate: "2026-10-01" }]);
  await storage.ready;
  const storagePid = workerdPids().find((pid) => !before.includes(pid))!;
  const a = instance("a", workersA, options.inspectorPort);
  await a.ready;
  const api = workerdPids().find((pid) => pid !== storagePid && !before.includes(pid))!;
  let analysis: number | null = null;
  let b: Miniflare | null = null;
  if (analysisWorker) {
    b = instance("b", [analysisWorker]);
    await b.ready;
    analysis = workerdPids().find((pid) => pid !== api && pid !== storagePid && !before.includes(pid)) ?? null;
  }
  return {
    urls,
    secrets,
    tenantId,
    persistDir,
    pids: { api, analysis, storage: storagePid },
    bucket: () => a.getR2Bucket("EVIDENCE", API_WORKER),
    d1: () => a.getD1Database("DB", API_WORKER),
    async dispose() {
      await b?.dispose();
      await a.dispose();
      await storage.dispose();
      rmSync(persistDir, { recursive: true, force: true });
    },
  };
}

/** workerd processes that are children of this Node process (Miniflare spawns one per instance). */
function workerdPids(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === process.pid && stat.includes("(workerd)")) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}
