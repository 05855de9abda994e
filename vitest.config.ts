import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { analysisWorker } from "./test/setup/analysis-worker";
import { generateDevC2paSigner } from "./scripts/dev-c2pa-signer.mjs";

// Tests run inside workerd against the real local D1, R2, Durable Objects and Queues declared in
// wrangler.toml (top-level = local environment); migrations are applied by test/setup/migrations.ts.
// The analysis Worker (wrangler.analysis.toml) runs beside it as an auxiliary Worker and consumes
// the analysis queue, as deployed.

/**
 * The plugin runs the Worker under test as its "runner" Worker, named after the Vitest project
 * (`vitest-plugin-runner-<project name>`): the analysis Worker's Durable Object bindings must name it.
 */
const PROJECT = "workers";
const RUNNER = `vitest-plugin-runner-${PROJECT}`;
/** A free loopback port for the fake external services (test/fakes), started by globalSetup. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The analysis Worker's bindings: no test migrations, and never a signing key (it signs nothing). */
function forAnalysisWorker<T extends { TEST_MIGRATIONS: unknown; CERTIFICATE_SIGNING_KEY: string; C2PA_SIGNING_KEY: string; C2PA_SIGNING_CERTS: string }>({
  TEST_MIGRATIONS: _m,
  CERTIFICATE_SIGNING_KEY: _k,
  C2PA_SIGNING_KEY: _c,
  C2PA_SIGNING_CERTS: _cc,
  ...rest
}: T) {
  return rest;
}

/**
 * The files that make real-photo inputs on first use (scripts/real-photos.ts, minutes of ImageMagick
 * on a clean checkout) run first, so the other worker runs everything else meanwhile. Vitest orders a
 * clean checkout's files by size, which put photo-formats last: 237 s after every other file had run.
 */
const MAKES_FIXTURES = ["test/integration/photo-formats.test.ts", "test/unit/webp-decoder.test.ts"];
class FixtureMakersFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (spec: TestSpecification) => MAKES_FIXTURES.some((file) => spec.moduleId.endsWith(file));
    return [...sorted.filter(first), ...sorted.filter((spec) => !first(spec))];
  }
}
/** `--sequence.shuffle…` picks Vitest's random order, which a configured sequencer would override. */
const shuffled = process.argv.some((arg) => arg.startsWith("--sequence.shuffle"));

/** The name the test deployment signs Content Credentials under (its signing certificate's subject). */
export const TEST_DEPLOYMENT_NAME = "Verification Service Test Deployment";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  process.env.FAKES_PORT ??= String(await freePort());
  const fakes = `http://127.0.0.1:${process.env.FAKES_PORT}`;
  // A real OpenID Connect provider on loopback for the dashboard sign-in (test/fakes/oidc.ts).
  process.env.OIDC_PORT ??= String(await freePort());
  // A fresh C2PA signer per run, as `npm start` makes one; its root is the reference validator's trust anchor (test/fakes/c2pa-reference.ts).
  const c2pa = await generateDevC2paSigner(TEST_DEPLOYMENT_NAME, { days: 30 });
  process.env.C2PA_TEST_ROOT_PEM = c2pa.rootPem;
  const bindings = {
    TEST_MIGRATIONS: migrations,
    SIGNING_SECRET: "test-signing-secret-0123456789abcdef0123456789",
    SESSION_SECRET: "test-session-secret-0123456789abcdef0123456789",
    // A fresh Ed25519 key per run, as `npm start` makes one (one-line base64 PKCS#8).
    CERTIFICATE_SIGNING_KEY: generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
    FAKES_URL: fakes,
    ATTESTATION_SECRET: "test-attestation-secret",
    ATTESTATION_VERIFY_URL: `${fakes}/siteverify`,
    ATTESTATION_SITE_KEY: "test-site-key",
    // Webhook retries at once (the production ~3-day schedule is unit-tested as a pure function).
    WEBHOOK_RETRY_BASE_SECONDS: "0",
    DNS_RESOLVER_URL: `${fakes}/doh`,
    TRIAL_WHATSAPP_NUMBER: "+15550100999",
    OIDC_ISSUER: `http://127.0.0.1:${process.env.OIDC_PORT}`,
    // Alphanumeric on purpose: the mock provider does not percent-decode HTTP Basic client
    // credentials, which oauth4webapi correctly form-encodes ("-" would come back as "%2D").
    OIDC_CLIENT_ID: "verificationdashboard",
    OIDC_CLIENT_SECRET: "test-oidc-client-secret",
    BOT_SECRET: "test-bot-secret-0123456789abcdef0123456789",
    TRIAL_TENANT_ID: "tnt_01JTR1A1TENANT000000000000",
    GEOCODER_URL: `${fakes}/geocoder`,
    C2PA_SIGNING_KEY: c2pa.C2PA_SIGNING_KEY,
    C2PA_SIGNING_CERTS: c2pa.C2PA_SIGNING_CERTS,
    DEPLOYMENT_NAME: TEST_DEPLOYMENT_NAME,
  };
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings,
          workers: [analysisWorker({ runnerName: RUNNER, bindings: forAnalysisWorker(bindings) })],
        },
      }),
    ],
    test: {
      name: PROJECT,
      include: ["test/**/*.test.ts"],
      // test/browser runs in Node against `wrangler dev` (vitest.browser.config.ts).
      exclude: ["**/node_modules/**", "test/browser/**"],
      setupFiles: ["./test/setup/migrations.ts"],
      globalSetup: ["./test/setup/global-fakes.ts"],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      // Vitest's default is one worker fewer than the cores: one on a 2-core machine, where the suite
      // then ran file by file with the load under 1 (about 1 000 s once the real photos are prepared).
      // Each file starts a workerd of its own (about 2 s) and many wait on I/O, so one worker per
      // core: 603 s on the same machine, a workerd per file (docs/development.md, "Tiers, and where the suite's time goes").
      maxWorkers: availableParallelism(),
      // Files share their worker's workerd (and its D1, R2, objects and queues) instead of starting one
      // each (about 2 s per file): 231-265 s against 603 s. The files are written for it: each builds
      // the tenants and verifications it reads, and its requests come from an address of its own
      // (test/helpers/client-address.ts), so no file meets another's per-network limits.
      isolate: false,
      ...(shuffled ? {} : { sequence: { sequencer: FixtureMakersFirst } }),
    },
  };
});
