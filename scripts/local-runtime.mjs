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
import { mkdirSync, readdirSync } from "node:fs";
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
 * One workerd process. The first instance made over a `persistDir` owns its storage
 * (`unsafeEnableSharedStorage`); the others reach it through the registry.
 */
export function workerdInstance({ name, workers, persistDir, port = 0, logLevel = LogLevel.WARN, inspectorPort, triggerHandlers = false, onLog }) {
  const registry = path.join(persistDir, "registry");
  mkdirSync(registry, { recursive: true });
  return new Miniflare({
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
  });
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
  const api = workerOptions("wrangler.toml", path.join(bundles, "api"), { vars: { ...vars, ...apiVars } });
  const analysis = workerOptions("wrangler.analysis.toml", path.join(bundles, "analysis"), { vars, assets: false });
  const a = workerdInstance({ name: "api", workers: [api], persistDir, port, logLevel, triggerHandlers: true, onLog });
  await a.ready;
  const b = workerdInstance({ name: "analysis", workers: [analysis], persistDir, logLevel, onLog });
  await b.ready;
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
