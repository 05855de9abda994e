import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "**/.wrangler/", "worker-configuration.d.ts", "dist/", "clients/typescript/dist/", "coverage/", "test-results/", "public/", ".cache/", ".eval-photos/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message: "D1 has no interactive transactions: use db.batch([...]) (see ARCHITECTURE.md).",
        },
      ],
    },
  },
  {
    // Worker code logs through lib/log.ts, which masks credentials (capture ids, upload tokens).
    files: ["src/**/*.ts"],
    ignores: ["src/lib/log.ts"],
    rules: { "no-console": "error" },
  },
  {
    // The capture page's browser code: `transaction` there is IndexedDB's, not D1's.
    files: ["client/**/*.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Tests reach the Worker only through test/helpers (call, callJson, contractFetch), which check
    // every response against the served OpenAPI document.
    files: ["test/**/*.ts"],
    ignores: ["test/helpers/**", "test/browser/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "cloudflare:test", importNames: ["SELF"], message: "Use call/callJson from test/helpers/api (responses are checked against the OpenAPI document)." },
            { name: "cloudflare:workers", importNames: ["exports"], message: "Use call/callJson from test/helpers/api (responses are checked against the OpenAPI document)." },
          ],
          patterns: [{ group: ["**/src/app"], message: "Use call/callJson with `env` from test/helpers/api (responses are checked against the OpenAPI document)." }],
        },
      ],
    },
  },
  {
    // .dependency-cruiser.cjs: the layer rule's configuration (CommonJS, as dependency-cruiser loads it).
    files: ["*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable" } },
  },
  {
    files: ["scripts/**/*.mjs", "bench/**/*.mjs", "clients/typescript/**/*.mjs", "clients/typescript/bin/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", fetch: "readonly", setTimeout: "readonly" } },
  },
);
