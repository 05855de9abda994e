import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeJpeg, naturalScene } from "../helpers/synth";
import { tenantClient } from "./helpers/api";

/*
 * The TypeScript client as a tenant gets it (issue 35): `npm pack` in clients/typescript, the tarball
 * installed with plain `npm install` into an empty project outside the repository, then everything
 * run with the machine's own Node (the system one, not the repository's pinned Node 22; Node 20 has
 * no type stripping, and no loader is given): examples/quickstart.mjs creates a verification on the
 * Worker under test, sends it a photo, reads the verdict and saves the certificate, and the installed
 * `verification-certificate` command verifies that certificate. The installed declarations
 * type-check a consumer (and the example) under Node's own resolution (NodeNext).
 */

const root = path.resolve(import.meta.dirname, "../..");
const clientDir = path.join(root, "clients/typescript");
const tsc = path.join(root, "node_modules/typescript/bin/tsc");

/**
 * A machine without this repository: no node_modules/.bin on the PATH (so neither the pinned Node nor
 * the repository's tools), none of the npm_* variables `npm test` sets, no NODE_OPTIONS.
 */
const outside: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== "NODE_OPTIONS" && name !== "INIT_CWD"),
);
outside.PATH = (process.env.PATH ?? "")
  .split(path.delimiter)
  .filter((dir) => dir && !dir.split(path.sep).includes("node_modules"))
  .join(path.delimiter);
const systemNode = execFileSync("sh", ["-c", "command -v node"], { env: outside, encoding: "utf8" }).trim();
const systemNodeVersion = execFileSync(systemNode, ["--version"], { encoding: "utf8" }).trim();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeout ?? 120_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

let work: string;
let app: string;
let installedDir: string;

beforeAll(() => {
  work = realpathSync(mkdtempSync(path.join(tmpdir(), "client-package-")));
  app = path.join(work, "app");
  mkdirSync(app);
  // A project of its own, so that npm installs here and not into a package found further up.
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "tenant-back-end", version: "1.0.0", private: true }, null, 2));
  installedDir = path.join(app, "node_modules/@verification-service/client");
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe(`the client package, installed outside the repository and run with the system's Node (${systemNodeVersion})`, () => {
  it("runs on the system's Node, which is not the repository's and is one the package supports", () => {
    expect(path.relative(root, work).startsWith("..")).toBe(true);
    expect(realpathSync(systemNode).startsWith(root + path.sep), `${systemNode} is the repository's Node`).toBe(false);
    const engines = (JSON.parse(readFileSync(path.join(clientDir, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    const floor = Number(/^>=(\d+)$/.exec(engines)?.[1]);
    expect(floor, `engines.node is ${engines}`).toBe(20);
    expect(Number(/^v(\d+)\./.exec(systemNodeVersion)?.[1])).toBeGreaterThanOrEqual(floor);
  });

  it("packs the built JavaScript, its declarations, the document and the README, and nothing else", async () => {
    const packed = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: clientDir });
    expect(packed.code, packed.stderr).toBe(0);
    const [tarball] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = tarball!.files.map((f) => f.path);
    const unexpected = files.filter((f) => !/^(README\.md|package\.json|openapi\.json|bin\/verification-certificate\.js|dist\/[\w-]+\.(js|d\.ts))$/.test(f));
    expect(unexpected, "sources, examples, build files and tsconfigs stay out of the tarball").toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/schema.d.ts", "dist/cli.js", "bin/verification-certificate.js", "openapi.json"]),
    );

    const installed = await run("npm", ["install", path.join(work, tarball!.filename)], { cwd: app, env: outside, timeout: 300_000 });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).not.toContain("EBADENGINE");
    expect(lstatSync(installedDir).isSymbolicLink(), "a copy, not a link into the repository").toBe(false);
    for (const dependency of ["jose", "openapi-fetch", "standardwebhooks"]) expect(existsSync(path.join(app, "node_modules", dependency)), dependency).toBe(true);
    const bin = readFileSync(path.join(installedDir, "bin/verification-certificate.js"), "utf8");
    expect(bin.startsWith("#!/usr/bin/env node\n")).toBe(true);
  }, 320_000);

  it("ships declarations a TypeScript project on Node's own resolution type-checks against", async () => {
    copyFileSync(path.join(clientDir, "examples/quickstart.mjs"), path.join(app, "quickstart.mjs"));
    writeFileSync(
      path.join(app, "consumer.ts"),
      [
        'import { ApiError, createClient, type Verification } from "@verification-service/client";',
        'import { verifyCertificate, type CertificatePayload } from "@verification-service/client/certificate";',
        'const client = createClient({ baseUrl: "http://localhost:8787", apiKey: "pk_test_example" });',
        'export const status: Promise<Verification["status"]> = client.getVerification("vfy_1").then((v) => v.status);',
        'export const payload: Promise<CertificatePayload> = verifyCertificate("jws", { jwksUrl: "http://localhost:8787/.well-known/jwks.json" }).then((c) => c.payload);',
        "export const isApiError = (err: unknown): err is ApiError => err instanceof ApiError;",
        "// @ts-expect-error the types are the package's own, not any: no status is called done",
        'export const wrong: Verification["status"] = "done";',
        "",
      ].join("\n"),
    );
    writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          lib: ["es2023"],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          allowJs: true,
          checkJs: true,
          types: ["node"],
          typeRoots: [path.join(root, "node_modules/@types")],
        },
        files: ["consumer.ts", "quickstart.mjs"],
      }),
    );
    const checked = await run(process.execPath, [tsc, "-p", path.join(app, "tsconfig.json")], { cwd: app });
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  });

  // Node loads an ES module with require() from 20.19 and 22.12 on (the package is ESM only, as jose is).
  const [major = 0, minor = 0] = systemNodeVersion.slice(1).split(".").map(Number);
  const requiresEsm = major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
  it.skipIf(!requiresEsm)("loads from CommonJS with require()", async () => {
    const required = await run(systemNode, ["-e", 'const c = require("@verification-service/client"); console.log(typeof c.createClient, typeof c.verifyCertificate)'], { cwd: app, env: outside });
    expect(required.code, required.stderr).toBe(0);
    expect(required.stdout.trim()).toBe("function function");
  });

  it("creates a verification and reads its verdict (examples/quickstart.mjs), and the installed command verifies its certificate", async () => {
    const base = inject("baseUrl");
    writeFileSync(path.join(app, "photo.jpg"), encodeJpeg(naturalScene(480, 360, 35), 90));
    const example = await run(systemNode, ["quickstart.mjs", "photo.jpg", "certificate.json"], {
      cwd: app,
      env: { ...outside, VERIFY_BASE_URL: base, VERIFY_API_KEY: inject("apiKey") },
    });
    expect(example.code, example.stderr + example.stdout).toBe(0);
    const outcome = JSON.parse(example.stdout.trim().split("\n").at(-1)!) as { node: string; id: string; status: string; verdict: { label: string } | null; certificate: string };
    expect(outcome).toMatchObject({ node: systemNodeVersion, status: "completed", verdict: { label: expect.stringMatching(/^(verified|suspicious|failed)$/) }, certificate: "certificate.json" });
    // Read back through the API, not the example's word: the same verification, with that verdict.
    const stored = await tenantClient().getVerification(outcome.id);
    expect(stored.config.metadata).toEqual({ claim_id: "CLM-QUICKSTART" });
    expect(stored.verdict).toEqual(outcome.verdict);

    const cli = (args: string[]) => run("npx", ["--no-install", "verification-certificate", ...args], { cwd: app, env: outside });
    const valid = await cli(["verify", "certificate.json", "photo.jpg", "--issuer", base]);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toContain(`VALID: certificate #1 of ${outcome.id}, issued by ${base}`);
    expect(valid.stdout).toMatch(/MATCH +photo\.jpg: capture cap_/);

    const changed = Buffer.from(readFileSync(path.join(app, "photo.jpg")));
    changed[20] = changed[20]! ^ 0x01;
    writeFileSync(path.join(app, "changed.jpg"), changed);
    const notIn = await cli(["verify", "certificate.json", "changed.jpg", "--issuer", base]);
    expect(notIn.code, notIn.stderr).toBe(3);
    expect(notIn.stdout).toMatch(/NOT IN IT +changed\.jpg/);
  }, 180_000);
});
