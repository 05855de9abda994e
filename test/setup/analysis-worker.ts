import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";

/*
 * The analysis Worker (wrangler.analysis.toml) as an auxiliary Worker of the Workers suite (read by
 * vitest.config.ts, in Node): the bundle `wrangler deploy --dry-run` makes of it (from
 * ./analysis-worker-entry.ts: the same dispatch, and the simulated CPU limit), with the bindings
 * its configuration declares, so the suite runs the real path events queue → analysis queue →
 * analysis Worker → the API Worker's Durable Object, on the same local D1, R2 and queues.
 * Auxiliary Workers are not built by Vite, hence the bundle; its modules (the WASM codecs) are
 * listed one by one because the plugin does not follow a bundle's imports.
 */
const root = path.resolve(import.meta.dirname, "../..");
const CONFIG = path.join(root, "wrangler.analysis.toml");
/** Its entry: src/analysis-worker.ts's dispatch behind the simulated CPU limit (test code only). */
const ENTRY = path.join(import.meta.dirname, "analysis-worker-entry.ts");

export function analysisWorker(options: { runnerName: string; bindings: Record<string, string> }) {
  const outDir = path.join(root, ".wrangler", "test-analysis-worker");
  rmSync(outDir, { recursive: true, force: true });
  const built = spawnSync(path.join(root, "node_modules", ".bin", "wrangler"), ["deploy", ENTRY, "--dry-run", "-c", CONFIG, "--outdir", outDir], {
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`bundling the analysis Worker failed:\n${built.stdout}${built.stderr}`);
  const files = readdirSync(outDir);
  const main = files.find((f) => f.endsWith(".js"));
  if (!main) throw new Error(`no bundle in ${outDir}`);

  const { workerOptions } = unstable_getMiniflareWorkerOptions(CONFIG);
  const { modulesRules: _rules, durableObjects, bindings, ...rest } = workerOptions;
  // Its Durable Object bindings name the API Worker, which runs here as the plugin's runner.
  type Designator = string | { className: string; scriptName?: string; useSQLite?: boolean };
  const retargeted = Object.fromEntries(
    Object.entries((durableObjects ?? {}) as Record<string, Designator>).map(([name, designator]) => [
      name,
      { ...(typeof designator === "string" ? { className: designator } : designator), scriptName: options.runnerName },
    ]),
  );
  return {
    ...rest,
    name: unstable_readConfig({ config: CONFIG }, { hideWarnings: true }).name!,
    modulesRoot: outDir,
    modules: [
      { type: "ESModule" as const, path: path.join(outDir, main) },
      ...files.filter((f) => f.endsWith(".wasm")).map((f) => ({ type: "CompiledWasm" as const, path: path.join(outDir, f) })),
    ],
    durableObjects: retargeted,
    bindings: { ...(bindings as Record<string, string>), ...options.bindings },
  };
}
