// The package's dist/: run by `npm run build`, by `npm pack` (prepack) and by the repository's
// `npm install` (the root's prepare), so bin/verification-certificate.js has its compiled command.
// tsc compiles src/ to ESM JavaScript with declarations; it never copies a .d.ts input, so the
// generated types (src/schema.d.ts), which the emitted declarations import, are copied beside them.
import { execFileSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.build.json")], { stdio: "inherit" });
copyFileSync(path.join(here, "src/schema.d.ts"), path.join(dist, "schema.d.ts"));
