import { createServer } from "node:net";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Tests run inside workerd against the real local D1, R2, Durable Objects and Queues declared in
// wrangler.toml (top-level = local environment); migrations are applied by test/setup/migrations.ts.
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

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  process.env.FAKES_PORT ??= String(await freePort());
  const fakes = `http://127.0.0.1:${process.env.FAKES_PORT}`;
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            SIGNING_SECRET: "test-signing-secret-0123456789abcdef0123456789",
            SESSION_SECRET: "test-session-secret-0123456789abcdef0123456789",
            FAKES_URL: fakes,
            ATTESTATION_SECRET: "test-attestation-secret",
            ATTESTATION_VERIFY_URL: `${fakes}/siteverify`,
            ATTESTATION_SITE_KEY: "test-site-key",
            GEOCODER_URL: `${fakes}/geocoder`,
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles: ["./test/setup/migrations.ts"],
      globalSetup: ["./test/setup/global-fakes.ts"],
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  };
});
