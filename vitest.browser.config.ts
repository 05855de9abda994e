import { defineConfig } from "vitest/config";

// The browser suite runs in Node: playwright-core drives Debian's Chromium against the real Worker,
// started by test/browser/setup/worker.ts as `npm start` runs them (after setup/client.ts built the TypeScript
// client's dist/). One file at a time (one pair of Workers, 2 cores).
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/browser/setup/client.ts", "./test/browser/setup/worker.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
