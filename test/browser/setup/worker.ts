import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import type { Server as HttpServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startLocalRuntime, type LocalRuntime } from "../../../scripts/local-runtime.mjs";
import { applyMigrations, freePort, generateSecrets, seedDevTenant } from "../../../scripts/local-worker.mjs";
import { generateDevC2paSigner } from "../../../scripts/dev-c2pa-signer.mjs";
import type { OAuth2Server } from "oauth2-mock-server";
import { startOidcProvider } from "../../fakes/oidc";
import { startFakes } from "../../fakes/server";

/*
 * globalSetup of the browser suite (Node): runs the real Workers as `npm start` does
 * (scripts/local-runtime.mjs: the bundles `wrangler deploy` would upload, the API Worker and the
 * analysis Worker each in a workerd process of its own) on a free port, with their own throwaway
 * persistence directory, dev registry and freshly generated secrets, migrations applied and the dev
 * tenant seeded. External services point at the loopback fakes, like in the Workers suite.
 */
declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    apiKey: string;
    /** The loopback fakes of external services (test/fakes), e.g. the DNS resolver's records. */
    fakesUrl: string;
    /** The name the API Worker signs Content Credentials under (its dev C2PA certificate's subject). */
    deploymentName: string;
    /** What the Workers printed, for a failing test to print. */
    workerLog: string;
  }
}

let runtime: LocalRuntime | undefined;
let fakes: HttpServer | undefined;
let oidc: OAuth2Server | undefined;
let persistDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  persistDir = mkdtempSync(path.join(tmpdir(), "capture-page-worker-"));
  const secrets = generateSecrets();
  // As `npm start` writes to .dev.vars: a dev C2PA signer, whose root the reference validator fake trusts (test/fakes/c2pa-reference.ts).
  const deploymentName = "Verification Service Browser Test";
  const c2pa = await generateDevC2paSigner(deploymentName, { days: 30 });
  process.env.C2PA_TEST_ROOT_PEM = c2pa.rootPem;
  applyMigrations(persistDir);
  seedDevTenant(secrets, persistDir);

  const fakesPort = await freePort();
  fakes = await startFakes(fakesPort);
  // A real OpenID Connect provider on another origin: the console's "single sign-on" goes through it
  // and back to the OAuth callback, as with a deployment's identity provider.
  const oidcPort = await freePort();
  oidc = await startOidcProvider(oidcPort);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const shared = { SIGNING_SECRET: secrets.SIGNING_SECRET, SESSION_SECRET: secrets.SESSION_SECRET };
  const apiVars = {
    PUBLIC_BASE_URL: baseUrl,
    CERTIFICATE_SIGNING_KEY: secrets.CERTIFICATE_SIGNING_KEY,
    ATTESTATION_SECRET: "test-attestation-secret",
    ATTESTATION_VERIFY_URL: `http://127.0.0.1:${fakesPort}/siteverify`,
    ATTESTATION_SITE_KEY: "test-site-key",
    OIDC_ISSUER: `http://127.0.0.1:${oidcPort}`,
    OIDC_CLIENT_ID: "verificationdashboard",
    OIDC_CLIENT_SECRET: "test-oidc-client-secret",
    // DNS over HTTPS (a tenant proving a domain) asks the loopback resolver.
    DNS_RESOLVER_URL: `http://127.0.0.1:${fakesPort}/doh`,
    C2PA_SIGNING_KEY: c2pa.C2PA_SIGNING_KEY,
    C2PA_SIGNING_CERTS: c2pa.C2PA_SIGNING_CERTS,
    DEPLOYMENT_NAME: deploymentName,
  };
  const workerLog = path.join(persistDir, "worker.log");
  runtime = await startLocalRuntime({ persistDir, port, vars: shared, apiVars, onLog: (message) => appendFileSync(workerLog, `${message}\n`) });
  project.provide("baseUrl", baseUrl);
  project.provide("apiKey", secrets.DEV_API_KEY);
  project.provide("fakesUrl", `http://127.0.0.1:${fakesPort}`);
  project.provide("deploymentName", deploymentName);
  project.provide("workerLog", workerLog);
}

export async function teardown(): Promise<void> {
  await runtime?.dispose();
  await new Promise<void>((resolve) => (fakes ? fakes.close(() => resolve()) : resolve()));
  await oidc?.stop();
  if (persistDir) rmSync(persistDir, { recursive: true, force: true });
}
