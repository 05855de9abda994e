// Part of `npm run build:check`, after the dry runs: the API Worker's bundle (which serves the
// capture links) must not carry the analysis: no WebAssembly codec, no decoder, no image analysis.
// A stray import from the API side (a route, a consumer) would put 4 MB of codecs back into every
// cold start of a capture link; this names the module that did. Neither deployable bundle may carry
// a test hook (the simulated CPU limit, which tenant metadata set off: test/setup/ only).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const OUT = ".wrangler/dry-run";
const OUT_ANALYSIS = ".wrangler/dry-run-analysis";
/** What only test code may say: the simulated CPU limit's trigger and its error (test/setup/simulated-cpu-limit.ts). */
const TEST_HOOKS = /simulate_fault|cpu_limit_exceeded|SIMULATE_CPU_LIMIT|CpuLimitExceeded/;
const FORBIDDEN = ["src/analysis/analyze-image.ts", "src/analysis/thumbnail.ts", "src/analysis/decoders/", "src/analysis/pipeline.ts"];

// The bundle's own imports, not the directory's files: --outdir keeps modules of earlier builds.
const problems: string[] = [];
const bundle = readdirSync(OUT).find((f) => f.endsWith(".js"));
if (!bundle) problems.push(`no bundle in ${OUT}`);
else {
  const text = readFileSync(join(OUT, bundle), "utf8");
  for (const [, dynamic, fixed] of text.matchAll(/import\("\.\/([^"]+\.wasm)"\)|from "\.\/([^"]+\.wasm)"/g)) problems.push(`${dynamic ?? fixed}: a WebAssembly module in the API Worker`);
  for (const module of FORBIDDEN) if (text.includes(`// ${module}`)) problems.push(`${module} is bundled into the API Worker`);
  // The evidence report's PDF libraries take ~110-130 ms to evaluate (npm run bench:report-startup): only a report may pay it (routes/report.ts
  // imports the renderer dynamically, which esbuild wraps in a lazy initializer), never every cold start.
  // Every call of its initializer must be a dynamic import's (a static import adds a bare `init_render();`).
  const calls = text.match(/init_render\(\)/g)?.length ?? 0;
  const lazy = text.match(/\(\) => \(init_render\(\), render_exports\)/g)?.length ?? 0;
  if (text.includes("// src/domain/report/render.ts") && (lazy === 0 || calls !== lazy)) {
    problems.push("src/domain/report/render.ts is evaluated at startup: import it dynamically (routes/report.ts), not statically");
  }
}
for (const dir of [OUT, OUT_ANALYSIS]) {
  const main = readdirSync(dir).find((f) => f.endsWith(".js"));
  if (!main) problems.push(`no bundle in ${dir}`);
  else if (TEST_HOOKS.test(readFileSync(join(dir, main), "utf8"))) problems.push(`${dir}/${main} carries a test hook (the simulated CPU limit): it belongs in test/setup/ only`);
}
if (problems.length > 0) {
  console.error(`Bundles:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`API Worker bundle: ${bundle} ${(statSync(join(OUT, bundle!)).size / 1024).toFixed(0)} KiB, no analysis code; neither bundle carries a test hook`);
