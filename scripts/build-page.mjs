#!/usr/bin/env node
// Builds the capture page's client bundle (client/capture-page → dist/public/assets) with esbuild.
// Run by wrangler's [build] step (`wrangler dev`, `npm start`, deploys) and by `npm test`.
// `--check` also prints the compressed sizes; the budget itself is enforced by test/browser/page-size.test.ts.
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const PUBLIC_DIR = path.join(root, "dist", "public");
export const PAGE_FILES = ["assets/capture-page.js", "assets/capture-page.css"];

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
}

/** Gzip size of each page file (what a phone downloads). */
export function compressedSizes() {
  return Object.fromEntries(PAGE_FILES.map((f) => [f, gzipSync(readFileSync(path.join(PUBLIC_DIR, f)), { level: 9 }).length]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildPage();
  if (process.argv.includes("--check")) console.log(compressedSizes());
}
