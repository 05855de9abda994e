/**
 * Fills the gitignored .cache/provenance-data/ with the files manifest.tsv names, checking each
 * file's sha256:
 * - GitHub rows from the repositories' snapshots, fetched with the search tool's `fetch` (bare git
 *   directories under /work/.mirror/owner+name/repo; PROVENANCE_DATA_MIRROR points elsewhere);
 * - `debian:` rows from `apt-get download <package>=<version>` + `dpkg -x` into
 *   .cache/provenance-data-src/debian/ (nothing is installed).
 * Idempotent; names the repositories still to fetch and exits 1 while any row is missing.
 *
 *   npx tsx scripts/eval/provenance-data/build.ts
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Snapshot } from "../screen-data/git";
import { parseManifest, type Entry } from "./manifest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const MANIFEST = new URL("manifest.tsv", import.meta.url);
const DEB_CACHE = join(ROOT, ".cache/provenance-data-src/debian");

export function readManifest(): Entry[] {
  return parseManifest(readFileSync(MANIFEST, "utf8"));
}

/** Where an entry's bytes live once built (gitignored). */
export function cachePath(e: Entry): string {
  return join(ROOT, ".cache/provenance-data", e.repo.replace(/[/:]/g, "+"), `${e.sha256.slice(0, 16)}.${e.format}`);
}

function snapshotDir(repo: string): string {
  return join(process.env.PROVENANCE_DATA_MIRROR ?? "/work/.mirror", repo.replace("/", "+"), "repo");
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The unpacked Debian package (downloaded on first use), or null when apt cannot get that version. */
function debianRoot(pkg: string, version: string): string | null {
  const dir = join(DEB_CACHE, pkg);
  if (existsSync(join(dir, ".version")) && readFileSync(join(dir, ".version"), "utf8").trim() === version) return dir;
  mkdirSync(DEB_CACHE, { recursive: true });
  try {
    execFileSync("apt-get", ["download", `${pkg}=${version}`], { cwd: DEB_CACHE, stdio: ["ignore", "ignore", "pipe"] });
  } catch {
    try {
      execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore" });
      execFileSync("apt-get", ["download", `${pkg}=${version}`], { cwd: DEB_CACHE, stdio: ["ignore", "ignore", "pipe"] });
    } catch {
      return null;
    }
  }
  const deb = readdirSync(DEB_CACHE).find((f) => f.startsWith(`${pkg}_`) && f.endsWith(".deb"));
  if (!deb) return null;
  execFileSync("dpkg", ["-x", join(DEB_CACHE, deb), dir]);
  writeFileSync(join(dir, ".version"), `${version}\n`);
  return dir;
}

function sourceBytes(e: Entry): Uint8Array | null {
  if (e.repo.startsWith("debian:")) {
    const root = debianRoot(e.repo.slice("debian:".length), e.commit);
    const file = root ? join(root, e.path) : null;
    return file && existsSync(file) ? readFileSync(file) : null;
  }
  const snapshot = new Snapshot(snapshotDir(e.repo));
  return snapshot.present ? snapshot.read(e.commit, e.path) : null;
}

/** Entries whose bytes are in the cache after extracting what is missing; throws on a hash mismatch. */
export function buildProvenanceData(entries: Entry[] = readManifest()): { ready: Entry[]; missing: string[] } {
  const ready: Entry[] = [];
  const missing = new Set<string>();
  for (const e of entries) {
    const target = cachePath(e);
    if (existsSync(target) && sha256(readFileSync(target)) === e.sha256) {
      ready.push(e);
      continue;
    }
    const bytes = sourceBytes(e);
    if (!bytes) {
      missing.add(e.repo);
      continue;
    }
    if (sha256(bytes) !== e.sha256) throw new Error(`${e.repo}:${e.path} at ${e.commit} does not match the manifest's sha256`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
    ready.push(e);
  }
  return { ready, missing: [...missing] };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const entries = readManifest();
  const { ready, missing } = buildProvenanceData(entries);
  console.log(`${ready.length} of ${entries.length} files in .cache/provenance-data/`);
  for (const repo of missing) {
    const e = entries.find((x) => x.repo === repo)!;
    console.log(repo.startsWith("debian:") ? `missing: apt-get download ${repo.slice(7)}=${e.commit} failed` : `missing: fetch github:${repo} (commit ${e.commit}) into ${snapshotDir(repo)}`);
  }
  if (missing.length > 0) process.exitCode = 1;
}
