// The project on local workerd in the shape Cloudflare runs it: the API Worker in one workerd
// process and the analysis Worker in another (`npm start`, scripts/dev.mjs).
//
// workerd runs every Worker of one process on one thread, so a single `wrangler dev` session with
// both configurations puts the analysis Worker's decode (hundreds of milliseconds of CPU per photo)
// on the thread that answers the capture links, which Cloudflare never does: there each Worker runs
// in isolates of its own. Measured on `../shared/perf`'s P1 (bench/PERF-RESULTS.md, "Issue 34").
//
// Process A runs the API Worker (with the capture page's assets) and owns the local storage (D1, R2,
// the queues, the Durable Objects, persisted under `<persistDir>/v3` as `wrangler dev` persists them,
// so `wrangler d1 ... --local` sees the same data); process B runs the analysis Worker and reaches
// A's storage, queues and objects through a dev registry of their own. Each Worker is the bundle
// `wrangler deploy --dry-run` makes from its configuration, with the bindings it declares.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";
import { root, wrangler, wranglerEnv } from "./local-worker.mjs";

/** `wrangler deploy --dry-run` of one configuration: the exact modules a deploy would upload (runs its [build] step too). */
export function bundle(config, outDir) {
  const result = spawnSync(wrangler, ["deploy", "--dry-run", "-c", config, "--outdir", outDir], { cwd: root, env: wranglerEnv, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`bundling ${config} failed:\n${result.stdout}${result.stderr}`);
  const files = readdirSync(outDir);
  const main = files.find((f) => f.endsWith(".js"));
  if (!main) throw new Error(`no bundle for ${config} in ${outDir}`);
  return {
    modulesRoot: outDir,
    modules: [
      { type: "ESModule", path: path.join(outDir, main) },
      ...files.filter((f) => f.endsWith(".wasm")).map((f) => ({ type: "CompiledWasm", path: path.join(outDir, f) })),
    ],
  };
}

/** The name a configuration gives its Worker. */
export function workerName(config) {
  return unstable_readConfig({ config: path.join(root, config) }, { hideWarnings: true }).name ?? config;
}

/**
 * Miniflare's options for one Worker of a configuration, bundled into `outDir`, its bindings plus
 * `vars`. `assets: false` leaves out the static assets; `socket` gives the Worker a port of its own.
 */
export function workerOptions(config, outDir, { vars = {}, assets = true, socket } = {}) {
  const { workerOptions: options } = unstable_getMiniflareWorkerOptions(path.join(root, config));
  const { assets: assetOptions, modulesRules: _rules, bindings = {}, ...rest } = options;
  // Only the configuration's own [vars]: wrangler also reads the repository's .dev.vars, which a
  // caller passes in `vars` when it means to (npm start), and which must not reach a test's Workers.
  const declared = unstable_readConfig({ config: path.join(root, config) }, { hideWarnings: true }).vars ?? {};
  return {
    ...rest,
    ...(assets && assetOptions ? { assets: assetOptions } : {}),
    name: workerName(config),
    ...bundle(config, outDir),
    bindings: { ...Object.fromEntries(Object.entries(bindings).filter(([k]) => k in declared)), ...vars },
    ...(socket ? { unsafeDirectSockets: [{ host: "127.0.0.1", port: socket }] } : {}),
  };
}

const RATE_LIMITS_WORKER = "local-rate-limits";

/**
 * A Worker's Rate Limiting bindings served from process memory (scripts/local-rate-limits.worker.js)
 * instead of Miniflare's Durable Object on disk: a call costs what Cloudflare's does, no round trip.
 * Returns the Worker's options with each binding turned into an RPC binding of the same name, and
 * the counting Worker to run beside it (null when it declares none).
 */
export function withLocalRateLimits(options) {
  const { ratelimits = {}, serviceBindings = {}, ...rest } = options;
  if (Object.keys(ratelimits).length === 0) return { worker: options, limiter: null };
  const bindings = Object.fromEntries(
    Object.entries(ratelimits).map(([name, binding]) => [
      name,
      { name: RATE_LIMITS_WORKER, entrypoint: "RateLimit", props: { namespace: binding.namespace_id, limit: binding.simple.limit, period: binding.simple.period } },
    ]),
  );
  const limiter = {
    name: RATE_LIMITS_WORKER,
    modules: true,
    scriptPath: path.join(root, "scripts", "local-rate-limits.worker.js"),
    compatibilityDate: options.compatibilityDate,
  };
  return { worker: { ...rest, serviceBindings: { ...serviceBindings, ...bindings } }, limiter };
}

/** Miniflare's own messages to a function instead of the console. */
class LogTo extends Log {
  constructor(write, level) {
    super(level);
    this.write = write;
  }
  log(message) {
    this.write(message);
  }
}

/**
 * One workerd process's options. The first instance made over a `persistDir` owns its storage
 * (`unsafeEnableSharedStorage`); the others reach it through the registry. `onRegistry` gets the
 * process's view of the registry each time it changes.
 */
function instanceOptions({ name, workers, persistDir, port = 0, logLevel = LogLevel.WARN, inspectorPort, triggerHandlers = false, onLog, onRegistry }) {
  const registry = path.join(persistDir, "registry");
  mkdirSync(registry, { recursive: true });
  return {
    ...convertV4MiniflareOptions({
      log: onLog ? new LogTo(onLog, logLevel) : new Log(logLevel),
      ...(onLog ? { handleStructuredLogs: ({ message }) => onLog(message) } : {}),
      ...(inspectorPort ? { inspectorPort } : {}),
      host: "127.0.0.1",
      port,
      // Request.cf's placeholder, without asking workers.cloudflare.com for the real one.
      cf: false,
      resourcePersistencePath: path.join(persistDir, "v3"),
      isolatedResourcePersistencePath: path.join(persistDir, `isolated-${name}`),
      unsafeDevRegistryPath: registry,
      ...(triggerHandlers ? { unsafeTriggerHandlers: true } : {}),
      workers,
    }),
    // (not carried over by the v4 option converter)
    unsafeEnableSharedStorage: true,
    ...(onRegistry ? { unsafeHandleDevRegistryUpdate: onRegistry } : {}),
  };
}

/** One workerd process (see `instanceOptions`). */
export function workerdInstance(options) {
  return new Miniflare(instanceOptions(options));
}

/** Resolves once `test()` holds, checked every 50 ms. */
async function until(test, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`local runtime: timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The queues a registry view has a consumer for. */
function consumedQueues(view) {
  return new Set(Object.values(view).flatMap((entry) => entry.queueConsumers ?? []));
}

/**
 * The API Worker on `port` (process A, which owns the storage) and the analysis Worker beside it
 * (process B). `vars` go to both Workers (what `.dev.vars` is to `wrangler dev`); `onLog` takes what
 * they and Miniflare print, which otherwise goes to the console.
 */
export async function startLocalRuntime({ persistDir, port, vars = {}, apiVars = {}, logLevel = LogLevel.INFO, onLog }) {
  const bundles = path.join(persistDir, "bundles");
  // Both bundled before either process starts: an instance keeps its registry entry alive from this
  // event loop, which a synchronous bundle would block for seconds.
  const { worker: api, limiter } = withLocalRateLimits(workerOptions("wrangler.toml", path.join(bundles, "api"), { vars: { ...vars, ...apiVars } }));
  const analysis = workerOptions("wrangler.analysis.toml", path.join(bundles, "analysis"), { vars, assets: false });
  const analysisQueues = unstable_readConfig({ config: path.join(root, "wrangler.analysis.toml") }, { hideWarnings: true }).queues.consumers.map((c) => c.queue);
  // Ready means ready: Miniflare drops (and answers as sent) a message for a queue whose consumer
  // the producing process does not know yet, so nothing may reach the API Worker before it knows
  // the analysis Worker. A starts first (it must own the storage) on a port nobody knows, B starts,
  // and once A has seen B's consumers, A restarts on the public port: from its first request its
  // queues deliver to B. Then B is given time to see A's new address (B reaches A's storage and
  // objects through it).
  let aView = {};
  let bView = {};
  const aOptions = (listen) => instanceOptions({ name: "api", workers: [api, ...(limiter ? [limiter] : [])], persistDir, port: listen, logLevel, triggerHandlers: true, onLog, onRegistry: (view) => (aView = view) });
  const a = new Miniflare(aOptions(0));
  await a.ready;
  const b = workerdInstance({ name: "analysis", workers: [analysis], persistDir, logLevel, onLog, onRegistry: (view) => (bView = view) });
  await b.ready;
  await until(() => analysisQueues.every((q) => consumedQueues(aView).has(q)), "the API Worker sees the analysis Worker's queue consumers");
  await a.setOptions(aOptions(port));
  const apiEntry = () => readRegistryEntry(persistDir, api.name);
  await until(() => bView[api.name]?.debugPortAddress !== undefined && bView[api.name].debugPortAddress === apiEntry()?.debugPortAddress, "the analysis Worker sees the API Worker's new address");
  return {
    url: `http://127.0.0.1:${port}`,
    /** Runs the API Worker's scheduled handler for `cron` (the triggers Cloudflare fires). */
    async scheduled(cron) {
      const worker = await a.getWorker(api.name);
      return worker.scheduled({ cron, scheduledTime: new Date() });
    },
    async dispose() {
      await b.dispose();
      await a.dispose();
    },
  };
}

/** A Worker's entry in the registry as its process last wrote it (undefined while there is none). */
function readRegistryEntry(persistDir, workerName) {
  try {
    return JSON.parse(readFileSync(path.join(persistDir, "registry", workerName), "utf8"));
  } catch {
    return undefined;
  }
}
