/**
 * What the evidence report's libraries cost an isolate's start (`npm run bench:report-startup`):
 * routes/report.ts imports the renderer dynamically, so esbuild (which bundles the Worker) wraps it
 * in a lazy initializer. This bundles the renderer both ways with esbuild, as wrangler does, and
 * times in fresh Node processes (5 each, medians): importing the eager bundle (parse and evaluate
 * pdf-lib, fontkit and the fonts), importing the lazy one (parse only), and its first load (what the
 * first report then pays). Node, not workerd: both run V8, and a start is one isolate's parse.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { median } from "./lib/measure";
import { ROOT } from "./lib/workerd";

const DIR = join(ROOT, ".cache/report-startup");
mkdirSync(DIR, { recursive: true });
const renderer = join(ROOT, "src/domain/report/render.ts");
writeFileSync(join(DIR, "eager.ts"), `import { renderReport } from ${JSON.stringify(renderer)};\nexport const load = async () => renderReport;\n`);
writeFileSync(join(DIR, "lazy.ts"), `export const load = () => import(${JSON.stringify(renderer)});\n`);
for (const name of ["eager", "lazy"]) {
  await build({ entryPoints: [join(DIR, `${name}.ts`)], bundle: true, format: "esm", platform: "neutral", mainFields: ["module", "main"], outfile: join(DIR, `${name}.mjs`), logLevel: "error" });
}

const PROBE = `const t0 = performance.now(); const m = await import(process.argv[1]); const t1 = performance.now(); await m.load(); const t2 = performance.now(); console.log(JSON.stringify([t1 - t0, t2 - t1]));`;
function runs(name: string): Array<[number, number]> {
  return Array.from({ length: 5 }, () => JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", PROBE, join(DIR, `${name}.mjs`)], { encoding: "utf8" })) as [number, number]);
}
const eager = runs("eager");
const lazy = runs("lazy");
const ms = (values: number[]) => `${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`;
console.log(`The report's renderer bundled by esbuild, imported in a fresh Node ${process.version} process, 5 runs each (median, range):`);
console.log(`  eager (a static import):  start ${ms(eager.map((r) => r[0]))}`);
console.log(`  lazy (routes/report.ts):  start ${ms(lazy.map((r) => r[0]))}, first report's load ${ms(lazy.map((r) => r[1]))}`);
