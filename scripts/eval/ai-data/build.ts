/**
 * Rebuilds the labelled image sets of issue 31 (generated vs real) from manifest.tsv:
 *
 *   npx tsx scripts/eval/ai-data/build.ts [--only train|val|test]
 *
 * Each row names a public source and the exact bytes (SHA-256) taken from it:
 *  - `github:owner/name` rows are read from the git snapshot the search tool's `fetch` leaves under
 *    /work/.mirror/owner+name (override with AI_DATA_MIRROR); the file is taken at the manifest's
 *    commit, or at the snapshot's HEAD when that commit is not in it, and kept only if its hash matches.
 *  - `debian:package` rows come from `apt-get download package=version` (then `dpkg -x`), cached in
 *    .cache/ai-data-src/debian/; nothing is installed.
 * Files land in .cache/ai-data/<split>/<class>/<source-slug>__<path with / as _> (gitignored).
 * Idempotent: a file already there with the right hash is left alone. A missing snapshot is reported
 * (which repositories to fetch) and the build goes on with the rest; the exit code is 0 only when
 * every row was written.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const mirror = process.env.AI_DATA_MIRROR ?? "/work/.mirror";
const out = join(root, ".cache/ai-data");
const debCache = join(root, ".cache/ai-data-src/debian");

interface Row {
  source: string;
  commit: string;
  path: string;
  sha256: string;
  class: string;
  split: string;
  [k: string]: string;
}

function readManifest(): Row[] {
  const [head, ...lines] = readFileSync(join(here, "manifest.tsv"), "utf8").split("\n").filter((l) => l.length > 0);
  const cols = (head ?? "").split("\t");
  return lines.map((l) => Object.fromEntries(l.split("\t").map((v, i) => [cols[i] ?? `column${i}`, v])) as Row);
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const slug = (source: string) => source.replace(/^(github|debian):/, "").replace(/[^A-Za-z0-9.-]+/g, "-");
export const target = (r: Row) => join(out, r.split, r.class, `${slug(r.source)}__${r.path.replace(/\//g, "_")}`);

function gitDir(repo: string): string | undefined {
  const base = join(mirror, repo.replace("/", "+"), "repo");
  if (existsSync(join(base, ".git"))) return join(base, ".git");
  return existsSync(join(base, "objects")) ? base : undefined;
}

function gitBlob(dir: string, rev: string, path: string): Buffer | undefined {
  try {
    return execFileSync("git", [`--git-dir=${dir}`, "cat-file", "blob", `${rev}:${path}`], {
      maxBuffer: 1 << 30,
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
}

/** Downloads and unpacks one Debian package into the cache; returns its root or undefined. */
function debRoot(pkg: string, version: string): string | undefined {
  const dir = join(debCache, pkg);
  if (existsSync(join(dir, ".version"))) return dir;
  mkdirSync(debCache, { recursive: true });
  const before = new Set(readdirSync(debCache));
  const get = (spec: string) => {
    try {
      execFileSync("apt-get", ["download", spec], { cwd: debCache, stdio: ["ignore", "ignore", "pipe"] });
      return true;
    } catch {
      return false;
    }
  };
  console.log(`debian: downloading ${pkg}=${version}`);
  if (!get(`${pkg}=${version}`)) {
    try {
      execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore" });
    } catch {
      /* offline or not root: the download below says so */
    }
    if (!get(`${pkg}=${version}`) && !get(pkg)) {
      console.log(`debian: ${pkg} could not be downloaded`);
      return undefined;
    }
    console.log(`debian: ${pkg}=${version} is gone from the archive; using the current version (hashes decide)`);
  }
  const deb = readdirSync(debCache).find((f) => f.startsWith(`${pkg}_`) && f.endsWith(".deb") && !before.has(f))
    ?? readdirSync(debCache).find((f) => f.startsWith(`${pkg}_`) && f.endsWith(".deb"));
  if (!deb) return undefined;
  mkdirSync(dir, { recursive: true });
  execFileSync("dpkg", ["-x", join(debCache, deb), dir]);
  const v = execFileSync("dpkg-deb", ["-f", join(debCache, deb), "Version"]).toString().trim();
  writeFileSync(join(dir, ".version"), `${v}\n`);
  return dir;
}

function main() {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  const rows = readManifest().filter((r) => !only || r.split === only);
  const missingRepos = new Map<string, number>();
  const failed: string[] = [];
  const debs = [...new Set(rows.filter((r) => r.source.startsWith("debian:")).map((r) => `${r.source.slice(7)}=${r.commit}`))];
  const needDebs = debs.filter((d) => !existsSync(join(debCache, d.split("=")[0]!, ".version")));
  if (needDebs.length) console.log(`debian packages to download: ${needDebs.join(" ")}`);
  let written = 0;
  let kept = 0;
  for (const r of rows) {
    const dest = target(r);
    if (existsSync(dest) && sha256(readFileSync(dest)) === r.sha256) {
      kept++;
      continue;
    }
    let bytes: Buffer | undefined;
    if (r.source.startsWith("github:")) {
      const repo = r.source.slice(7);
      const dir = gitDir(repo);
      if (!dir) {
        missingRepos.set(repo, (missingRepos.get(repo) ?? 0) + 1);
        continue;
      }
      bytes = gitBlob(dir, r.commit, r.path);
      if (!bytes || sha256(bytes) !== r.sha256) bytes = gitBlob(dir, "HEAD", r.path);
    } else if (r.source.startsWith("debian:")) {
      const dir = debRoot(r.source.slice(7), r.commit);
      if (dir && existsSync(join(dir, r.path))) bytes = readFileSync(join(dir, r.path));
    }
    if (!bytes || sha256(bytes) !== r.sha256) {
      failed.push(`${r.source} ${r.path}: ${bytes ? "hash differs" : "not found"}`);
      continue;
    }
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, bytes);
    written++;
  }
  // Files of an older manifest that this one no longer lists are removed, so the folders hold the manifest.
  let pruned = 0;
  if (!only && existsSync(out)) {
    const wanted = new Set(rows.map(target));
    for (const split of readdirSync(out)) {
      for (const cls of existsSync(join(out, split)) ? readdirSync(join(out, split)) : []) {
        for (const f of readdirSync(join(out, split, cls))) {
          const p = join(out, split, cls, f);
          if (!wanted.has(p)) {
            rmSync(p);
            pruned++;
          }
        }
      }
    }
  }
  const total = rows.length;
  const missing = [...missingRepos.values()].reduce((a, b) => a + b, 0);
  console.log(`${total} rows: ${written} written, ${kept} already there, ${missing} waiting for a snapshot, ${failed.length} failed, ${pruned} stale files removed`);
  if (missingRepos.size) {
    console.log(`\nSnapshots missing under ${mirror}: fetch these with the search tool, then run again:`);
    for (const [repo, n] of [...missingRepos].sort()) console.log(`  fetch github:${repo}   (${n} files)`);
  }
  if (failed.length) {
    console.log("\nNot written:");
    for (const f of failed) console.log(`  ${f}`);
  }
  const counts = new Map<string, number>();
  for (const r of rows) if (existsSync(target(r))) counts.set(`${r.split}/${r.class}`, (counts.get(`${r.split}/${r.class}`) ?? 0) + 1);
  console.log(`\nin ${out}: ${[...counts].sort().map(([k, n]) => `${k} ${n}`).join(", ")}`);
  process.exitCode = missing || failed.length ? 1 : 0;
}

main();
