import { execFileSync } from "node:child_process";
import path from "node:path";

/*
 * globalSetup of the browser suite: builds clients/typescript (its build.mjs: dist/), so the
 * `verification-certificate` command the certificate test runs from the repository
 * (node_modules/.bin → clients/typescript/dist/bin) is compiled from the sources under test, not
 * left over from the last `npm install` (whose `prepare` built it).
 */
export function setup(): void {
  const build = path.resolve(import.meta.dirname, "../../../clients/typescript/build.mjs");
  execFileSync(process.execPath, [build], { stdio: "inherit" });
}
