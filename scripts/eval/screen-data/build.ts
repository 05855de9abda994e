/**
 * Rebuilds the real-recapture set of manifest.tsv into the gitignored .cache/screen-data/ from the
 * repositories' snapshots (fetched with the search tool's `fetch`; SCREEN_DATA_MIRROR overrides
 * where they are), checking every file's sha256. Prints the repositories still to fetch.
 *
 *   npx tsx scripts/eval/screen-data/build.ts
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Snapshot } from "./git";
import { cachePath, readManifest } from "./files";
import type { Entry } from "./manifest";
import { mirrorDir } from "./sources";

/** Entries whose bytes are in the cache, after extracting what is missing; throws on a hash mismatch. */
export function buildScreenData(entries: Entry[] = readManifest()): { ready: Entry[]; missingRepos: string[] } {
  const ready: Entry[] = [];
  const missingRepos = new Set<string>();
  for (const e of entries) {
    const target = cachePath(e);
    if (existsSync(target) && sha256(readFileSync(target)) === e.sha256) {
      ready.push(e);
      continue;
    }
    const snapshot = new Snapshot(process.env.SCREEN_DATA_MIRROR ? `${process.env.SCREEN_DATA_MIRROR}/${e.repo.replace("/", "+")}/repo` : mirrorDir(e.repo));
    const bytes = snapshot.present ? snapshot.read(e.commit, e.path) : null;
    if (!bytes) {
      missingRepos.add(e.repo);
      continue;
    }
    if (sha256(bytes) !== e.sha256) throw new Error(`${e.repo}:${e.path} does not match the manifest's sha256`);
    mkdirSync(dirname(fileURLToPath(target)), { recursive: true });
    writeFileSync(target, bytes);
    ready.push(e);
  }
  return { ready, missingRepos: [...missingRepos] };
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const entries = readManifest();
  const { ready, missingRepos } = buildScreenData(entries);
  console.log(`${ready.length} of ${entries.length} images in .cache/screen-data/`);
  for (const repo of missingRepos) {
    const commit = entries.find((e) => e.repo === repo)!.commit;
    console.log(`missing: fetch github:${repo} (commit ${commit}) into ${mirrorDir(repo)}`);
  }
  if (missingRepos.length > 0) process.exitCode = 1;
}
