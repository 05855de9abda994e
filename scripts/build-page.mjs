#!/usr/bin/env node
// Builds the capture page's client bundle (client/capture-page → dist/public/assets), the operator
// console's (client/console, Preact → dist/public/assets), the certificate page's
// (client/certificate-page → dist/public/assets) and the API reference's (client/docs, Swagger UI
// from swagger-ui-dist → dist/public/docs) with esbuild.
// Run by wrangler's [build] step (`wrangler dev`, `npm start`, deploys) and by `npm test`.
// `--check` also prints the compressed sizes; the budget itself is enforced by test/browser/page-size.test.ts.
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { copyFileSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const PUBLIC_DIR = path.join(root, "dist", "public");
export const PAGE_FILES = ["assets/capture-page.js", "assets/capture-page.css"];
/** The operator console's bundle (every screen; its first-load budget is checked in the browser suite). */
export const CONSOLE_FILES = ["assets/console.js", "assets/console.css"];
/** The certificate page's bundle (GET /v1/certificates/{token} as HTML): verification with jose over WebCrypto. */
export const CERTIFICATE_PAGE_FILES = ["assets/certificate-page.js", "assets/certificate-page.css"];
/** The /docs page's assets, served by this Worker (its CSP allows nothing else). */
export const DOCS_FILES = ["docs/reference.js", "docs/reference.css"];

export async function buildPage() {
  await build({
    absWorkingDir: root,
    entryPoints: { "assets/capture-page": "client/capture-page/main.ts" },
    outdir: PUBLIC_DIR,
    bundle: true,
    minify: true,
    sourcemap: "linked",
    format: "iife",
    // In-app browsers on older phones: syntax is lowered, APIs are feature-detected at run time.
    target: ["es2019", "chrome80", "safari15", "firefox78"],
    legalComments: "none",
    logLevel: "warning",
  });
  await build({
    absWorkingDir: root,
    entryPoints: { "assets/console": "client/console/main.tsx" },
    outdir: PUBLIC_DIR,
    bundle: true,
    minify: true,
    sourcemap: "linked",
    format: "iife",
    // Operators use current desktop and phone browsers (native <dialog>, :focus-visible, CSS grid).
    target: ["es2020", "chrome100", "safari16", "firefox100"],
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    logLevel: "warning",
  });
  await build({
    absWorkingDir: root,
    entryPoints: { "assets/certificate-page": "client/certificate-page/main.ts" },
    outdir: PUBLIC_DIR,
    bundle: true,
    minify: true,
    sourcemap: "linked",
    format: "iife",
    // Whoever receives a link: current browsers (WebCrypto Ed25519: Chrome 137, Firefox 129, Safari 17).
    target: ["es2020", "chrome100", "safari16", "firefox100"],
    legalComments: "none",
    logLevel: "warning",
  });
  await build({
    absWorkingDir: root,
    entryPoints: { "docs/reference": "client/docs/main.ts" },
    outdir: PUBLIC_DIR,
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2020"],
    legalComments: "none",
    logLevel: "warning",
    loader: { ".svg": "dataurl", ".png": "dataurl" },
  });
  // Swagger UI is Apache-2.0: its licence and notices travel with the bundle.
  for (const [from, to] of [["LICENSE", "LICENSE.txt"], ["NOTICE", "NOTICE.txt"], ["swagger-ui-bundle.js.LICENSE.txt", "THIRD-PARTY-LICENSES.txt"]]) {
    copyFileSync(path.join(root, "node_modules", "swagger-ui-dist", from), path.join(PUBLIC_DIR, "docs", to));
  }
}

/** Gzip size of each page file (what a phone downloads); the console's with `files = CONSOLE_FILES`. */
export function compressedSizes(files = PAGE_FILES) {
  return Object.fromEntries(files.map((f) => [f, gzipSync(readFileSync(path.join(PUBLIC_DIR, f)), { level: 9 }).length]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildPage();
  if (process.argv.includes("--check")) console.log({ ...compressedSizes(), ...compressedSizes(CONSOLE_FILES), ...compressedSizes(CERTIFICATE_PAGE_FILES) });
}
