import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Tests run inside workerd against the real local D1, R2, Durable Objects and Queues declared in
// wrangler.toml (top-level = local environment); migrations are applied by test/setup/migrations.ts.
export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            SIGNING_SECRET: "test-signing-secret-0123456789abcdef0123456789",
            SESSION_SECRET: "test-session-secret-0123456789abcdef0123456789",
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles: ["./test/setup/migrations.ts"],
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  };
});
