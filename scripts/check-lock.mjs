#!/usr/bin/env node
/*
 * `npm ci` (what Cloudflare Workers Builds and most CI systems run) refuses a lock file that does not
 * hold every package the tree names, optional platform packages included, even those it will skip on
 * this platform. `npm install` (the README's command) quietly leaves out a package the registry it
 * reached could not serve, so a lock can be written here that `npm ci` elsewhere refuses. This checks
 * what `npm ci` checks: every dependency of every locked package resolves, the way Node resolves it
 * (its own node_modules, then each parent's), to a locked entry.
 */
import { readFileSync } from "node:fs";

const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8"));
const packages = lock.packages ?? {};

/** The entry `name` resolves to from the package at `from` (a lock path), or undefined. */
function resolve(from, name) {
  let dir = from;
  for (;;) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (dir === "") return undefined;
    const at = dir.lastIndexOf("/node_modules/");
    dir = at === -1 ? "" : dir.slice(0, at);
  }
}

const missing = [];
for (const [path, entry] of Object.entries(packages)) {
  if (entry.link) continue;
  const optionalPeers = new Set(Object.entries(entry.peerDependenciesMeta ?? {}).flatMap(([name, meta]) => (meta.optional ? [name] : [])));
  // Only the project's own devDependencies are installed.
  const wanted = { ...entry.dependencies, ...entry.optionalDependencies, ...(path === "" ? entry.devDependencies : {}) };
  for (const name of Object.keys(entry.peerDependencies ?? {})) if (!optionalPeers.has(name)) wanted[name] = entry.peerDependencies[name];
  for (const name of Object.keys(wanted)) if (!resolve(path, name)) missing.push(`${path || "(root)"} → ${name}`);
}

if (missing.length > 0) {
  console.error(`package-lock.json is missing ${missing.length} package(s) that \`npm ci\` requires:\n  ${missing.join("\n  ")}`);
  console.error("Regenerate the lock where the registry serves them, or add their entries (version, os, cpu, optional).");
  process.exit(1);
}
console.log(`package-lock.json: every dependency of ${Object.keys(packages).length} locked packages is locked`);
