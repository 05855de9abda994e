// The layer rule (ARCHITECTURE.md "Layers", .dependency-cruiser.cjs) over src/ and client/, after a
// self-test: the same rules run on a small tree made for it must report exactly the upward imports
// and circles planted there, so a rule that stopped matching fails here instead of passing silently.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const depcruise = join(root, "node_modules", ".bin", "depcruise");
const config = join(root, ".dependency-cruiser.cjs");

function cruise(cwd, paths) {
  try {
    return JSON.parse(execFileSync(depcruise, [...paths, "--config", config, "--output-type", "json"], { cwd, encoding: "utf8", maxBuffer: 64 << 20 }));
  } catch (err) {
    // depcruise exits non-zero when it finds violations; its JSON is still on stdout.
    if (err.stdout) return JSON.parse(err.stdout);
    throw err;
  }
}

const FIXTURE = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { module: "ESNext", moduleResolution: "Bundler" } }),
  "src/domain/service.ts": "export const service = 1;\n",
  "src/routes/route.ts": 'import { service } from "../domain/service";\nexport const route = service;\n',
  "src/model/verification/config.ts": "export type Config = { steps: number };\n",
  "src/model/verification/rule.ts": 'import { service } from "../../domain/service";\nexport const rule = service;\nexport type Rule = 1;\n',
  "src/model/verification/io.ts": 'import { rows } from "../../db/rows";\nexport const io = rows;\n',
  // A package the model must not use (D1's query builder), resolved as the real one is: into node_modules.
  "src/model/verification/query.ts": 'import { eq } from "drizzle-orm";\nexport const query = eq;\n',
  "node_modules/drizzle-orm/package.json": JSON.stringify({ name: "drizzle-orm", version: "0.0.0", main: "index.js" }),
  "node_modules/drizzle-orm/index.js": "export const eq = () => true;\n",
  "src/model/verification/runtime.ts": 'import { env } from "cloudflare:workers";\nexport const runtime = env;\n',
  "src/db/rows.ts": 'import type { Rule } from "../model/verification/rule";\nexport const rows: Rule[] = [];\n',
  "src/db/schema.ts": 'import type { Config } from "../model/verification/config";\nexport type Column = Config;\n',
  "src/durable-objects/thing-object.ts": 'import { service } from "../domain/service";\nexport const thing = service;\n',
  "src/lib/a.ts": 'import { b } from "./b";\nexport const a = b;\n',
  "src/lib/b.ts": 'import type { a } from "./a";\nexport const b = 1;\nexport type A = typeof a;\n',
  "client/page.ts": 'import { service } from "../src/domain/service";\nexport const page = service;\n',
};

const EXPECTED = [
  "browser code: client/page.ts → src/domain/service.ts",
  "layer: bindings: src/db/rows.ts → src/model/verification/rule.ts",
  "layer: durable objects: src/durable-objects/thing-object.ts → src/domain/service.ts",
  "layer: model: src/model/verification/rule.ts → src/domain/service.ts",
  "model is pure: src/model/verification/io.ts → src/db/rows.ts",
  "model is pure: src/model/verification/query.ts → node_modules/drizzle-orm/index.js",
  "model is pure: src/model/verification/runtime.ts → cloudflare:workers",
  // b imports a for a type only: the circle still counts.
  "no-circular: src/lib/a.ts → src/lib/b.ts",
];

const line = (v) => `${v.rule.name}: ${v.from} → ${v.to}`;

function selfTest() {
  const dir = mkdtempSync(join(tmpdir(), "layers-"));
  try {
    for (const [path, text] of Object.entries(FIXTURE)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const found = cruise(dir, ["src", "client"]).summary.violations.map(line).sort();
    if (JSON.stringify(found) !== JSON.stringify(EXPECTED)) {
      console.error("check:layers self-test: the rules no longer report what they must.");
      console.error(`expected:\n  ${EXPECTED.join("\n  ")}\nfound:\n  ${found.join("\n  ") || "(nothing)"}`);
      process.exit(1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

selfTest();
const { summary } = cruise(root, ["src", "client"]);
if (summary.violations.length > 0) {
  console.error(`Layer rule broken (ARCHITECTURE.md "Layers"):\n  ${summary.violations.map((v) => `${line(v)}\n      ${v.rule.name === "no-circular" ? `circle: ${(v.cycle ?? []).map((c) => c.name ?? c).join(" → ")}` : ""}`).join("\n  ")}`);
  process.exit(1);
}
console.log(`check:layers: ${summary.totalCruised} modules, ${summary.totalDependenciesCruised} imports, no upward import and no circle (self-test passed).`);
