/**
 * c2pa-ts (pure TypeScript, in use) against @contentauth/c2pa-wasm (the reference implementation,
 * c2pa-rs compiled to WebAssembly), inside workerd (Miniflare), on the public C2PA files of
 * scripts/c2pa-files/manifest.tsv (npm run c2pa-files fills .cache/c2pa-files):
 *  - whether each instantiates and reads in workerd at all;
 *  - correctness: reads a manifest; finds the generator's label the file's own manifests declare
 *    (`expect` column: `ai` when some manifest of the store declares a generated source type);
 *  - bundle size (esbuild, minified; gzip -9 as Cloudflare measures the compressed limit);
 *  - wall time per photo (a request round trip on this machine, median of 5) and workerd's resident
 *    set after the run (/proc, Linux).
 *
 *   npm run bench:c2pa   # C2PA_WASM=/path/to/package (npm pack @contentauth/c2pa-wasm@0.15.0; tar xzf)
 *
 * c2pa-wasm is not a dependency (it is what was measured and not chosen): the bench reads it from
 * C2PA_WASM, default /tmp/c2pa-wasm/package.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { C2PA_FILES, c2paFileRows } from "../scripts/c2pa-files/fill";

const ROOT = resolve(import.meta.dirname, "..");
const WASM_PKG = process.env.C2PA_WASM ?? "/tmp/c2pa-wasm/package";
const MIME: Record<string, string> = { jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", webp: "image/webp", heic: "image/heic", avif: "image/avif" };

async function bundle(entry: string, alias: Record<string, string> = {}, external: string[] = []): Promise<string> {
  const out = await build({ entryPoints: [join(ROOT, entry)], bundle: true, minify: true, format: "esm", platform: "browser", conditions: ["workerd", "worker", "browser"], write: false, alias, external, logLevel: "error" });
  return out.outputFiles[0]!.text;
}

function rss(): number {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "workerd") continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== process.pid) continue;
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return Math.round(total / 1024);
}

interface Outcome {
  read?: boolean;
  ai?: boolean;
  valid?: boolean;
  trusted?: boolean;
  manifests?: number;
  error?: string;
}

async function measure(name: string, modules: Array<{ type: "ESModule" | "CompiledWasm"; path: string; contents: string | Uint8Array }>) {
  const mf = new Miniflare(convertV4MiniflareOptions({ cf: false, workers: [{ name: "bench", modules, compatibilityDate: "2025-09-01", compatibilityFlags: ["nodejs_compat"] }] }));
  const rows = c2paFileRows();
  const results: Array<{ name: string; expect: string; outcome: Outcome; ms: number }> = [];
  try {
    for (const row of rows) {
      const bytes = readFileSync(join(C2PA_FILES, row.name));
      const type = MIME[row.name.split(".").pop()!.toLowerCase()] ?? "image/jpeg";
      const times: number[] = [];
      let outcome: Outcome = {};
      for (let i = 0; i < 5; i++) {
        const start = performance.now();
        const res = await mf.dispatchFetch("http://bench/", { method: "POST", body: bytes, headers: { "content-type": type } });
        outcome = (await res.json()) as Outcome;
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      results.push({ name: row.name, expect: row.expect, outcome, ms: times[2]! });
    }
    return { name, results, rssMb: rss() };
  } finally {
    await mf.dispose();
  }
}

const tsBundle = await bundle("bench/c2pa/reader-ts.ts");
const wasmBytes = readFileSync(join(WASM_PKG, "pkg/c2pa_bg.wasm"));
const wasmGlue = await bundle("bench/c2pa/reader-wasm.ts", { "c2pa-wasm": join(WASM_PKG, "pkg/c2pa.js") }, ["c2pa-wasm-module"]);
const sizes = {
  "c2pa-ts": { raw: tsBundle.length, gzip: gzipSync(tsBundle, { level: 9 }).length },
  "c2pa-wasm": { raw: wasmGlue.length + wasmBytes.length, gzip: gzipSync(wasmGlue, { level: 9 }).length + gzipSync(wasmBytes, { level: 9 }).length },
};
const runs = [
  await measure("c2pa-ts", [{ type: "ESModule", path: "index.mjs", contents: tsBundle }]),
  await measure("c2pa-wasm", [
    { type: "ESModule", path: "index.mjs", contents: wasmGlue },
    { type: "CompiledWasm", path: "c2pa-wasm-module", contents: wasmBytes },
  ]),
];

const mb = (n: number) => (n / 2 ** 20).toFixed(2);
console.log(`\n| reader | bundle (min) | gzip | manifests read | generator labels found (of ${c2paFileRows().filter((r) => r.expect === "ai").length}) | errors | median ms/photo | workerd RSS after |`);
console.log("|---|---|---|---|---|---|---|---|");
for (const run of runs) {
  const read = run.results.filter((r) => r.outcome.read && !r.outcome.error).length;
  const found = run.results.filter((r) => r.expect === "ai" && r.outcome.ai).length;
  const errors = run.results.filter((r) => r.outcome.error).length;
  const ms = run.results.map((r) => r.ms).sort((a, b) => a - b)[Math.floor(run.results.length / 2)]!;
  const size = sizes[run.name as keyof typeof sizes];
  console.log(`| ${run.name} | ${mb(size.raw)} MB | ${mb(size.gzip)} MB | ${read}/${run.results.length} | ${found} | ${errors} | ${ms.toFixed(0)} | ${run.rssMb} MB |`);
}
console.log("\n| file | expect | c2pa-ts | c2pa-wasm |\n|---|---|---|---|");
const show = (o: Outcome) => (o.error ? `error: ${o.error.slice(0, 60)}` : `${o.ai ? "ai" : "—"}${o.valid ? ", valid" : ""}${o.trusted ? ", trusted" : ""}, ${o.manifests} manifest(s)`);
runs[0]!.results.forEach((r, i) => console.log(`| ${r.name} | ${r.expect} | ${show(r.outcome)} | ${show(runs[1]!.results[i]!.outcome)} |`));
