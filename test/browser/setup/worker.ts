import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import type { Server as HttpServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildPage } from "../../../scripts/build-page.mjs";
import { analysisConfigWith, applyMigrations, freePort, generateSecrets, root, seedDevTenant, waitUntilUp, wrangler, wranglerEnv } from "../../../scripts/local-worker.mjs";
import type { OAuth2Server } from "oauth2-mock-server";
import { startOidcProvider } from "../../fakes/oidc";
import { startFakes } from "../../fakes/server";

/*
 * globalSetup of the browser suite (Node): builds the page, then runs the real Workers (the API
 * Worker and the analysis Worker, as `npm start` does) with `wrangler dev` on a free port, with their
 * own throwaway persistence directory, dev registry and freshly generated secrets (as `npm start`
 * would write), migrations applied and the dev tenant seeded. External services point at the
 * loopback fakes, like in the Workers suite.
 */
declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    apiKey: string;
    /** The loopback fakes of external services (test/fakes), e.g. the DNS resolver's records. */
    fakesUrl: string;
    /** The Workers' console output (wrangler dev), for a failing test to print. */
    workerLog: string;
  }
}

let worker: ChildProcess | undefined;
let fakes: HttpServer | undefined;
let oidc: OAuth2Server | undefined;
let persistDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  await buildPage();
  persistDir = mkdtempSync(path.join(tmpdir(), "capture-page-worker-"));
  const secrets = generateSecrets();
  applyMigrations(persistDir);
  seedDevTenant(secrets, persistDir);

  const fakesPort = await freePort();
  fakes = await startFakes(fakesPort);
  // A real OpenID Connect provider on another origin: the console's "single sign-on" goes through it
  // and back to the OAuth callback, as with a deployment's identity provider.
  const oidcPort = await freePort();
  oidc = await startOidcProvider(oidcPort);
  const port = await freePort();
  const inspectorPort = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const vars = {
    PUBLIC_BASE_URL: baseUrl,
    SIGNING_SECRET: secrets.SIGNING_SECRET,
    SESSION_SECRET: secrets.SESSION_SECRET,
    CERTIFICATE_SIGNING_KEY: secrets.CERTIFICATE_SIGNING_KEY,
    ATTESTATION_SECRET: "test-attestation-secret",
    ATTESTATION_VERIFY_URL: `http://127.0.0.1:${fakesPort}/siteverify`,
    ATTESTATION_SITE_KEY: "test-site-key",
    OIDC_ISSUER: `http://127.0.0.1:${oidcPort}`,
    OIDC_CLIENT_ID: "verificationdashboard",
    OIDC_CLIENT_SECRET: "test-oidc-client-secret",
    // DNS over HTTPS (a tenant proving a domain) asks the loopback resolver.
    DNS_RESOLVER_URL: `http://127.0.0.1:${fakesPort}/doh`,
  };
  const analysisConfig = analysisConfigWith(path.join(persistDir, "analysis-config"), {
    SIGNING_SECRET: secrets.SIGNING_SECRET,
    SESSION_SECRET: secrets.SESSION_SECRET,
  });
  let output = "";
  worker = spawn(
    wrangler,
    [
      "dev",
      "-c", "wrangler.toml",
      "-c", analysisConfig,
      "--port", String(port),
      "--ip", "127.0.0.1",
      "--inspector-port", String(inspectorPort),
      "--persist-to", persistDir,
      "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    // A registry of its own: nobody else's `wrangler dev` on the machine is reached, nor reaches it.
    { cwd: root, env: { ...wranglerEnv, CI: "true", WRANGLER_REGISTRY_PATH: path.join(persistDir, "registry") }, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  const workerLog = path.join(persistDir, "worker.log");
  const record = (d: Buffer) => {
    output += d.toString();
    appendFileSync(workerLog, d);
  };
  worker.stdout!.on("data", record);
  worker.stderr!.on("data", record);
  await waitUntilUp(`${baseUrl}/`, worker, () => output.slice(-4000));
  project.provide("baseUrl", baseUrl);
  project.provide("apiKey", secrets.DEV_API_KEY);
  project.provide("fakesUrl", `http://127.0.0.1:${fakesPort}`);
  project.provide("workerLog", workerLog);
}

export async function teardown(): Promise<void> {
  if (worker?.pid && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker!.once("exit", resolve));
    process.kill(-worker.pid, "SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (worker.exitCode === null) process.kill(-worker.pid, "SIGKILL");
  }
  await new Promise<void>((resolve) => (fakes ? fakes.close(() => resolve()) : resolve()));
  await oidc?.stop();
  if (persistDir) rmSync(persistDir, { recursive: true, force: true });
}
