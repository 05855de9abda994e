/**
 * Fills .cache/c2pa-files/ (gitignored) with the public C2PA files listed in manifest.tsv: real
 * generator outputs (OpenAI, Adobe Firefly), edits and camera captures, and the reference
 * implementation's test files. Nothing here was made by this project.
 *
 *   npm run c2pa-files
 *
 * Each row names a GitHub repository, a commit, a path and the SHA-256 of the bytes taken. A file is
 * read from the git snapshot the search tool's `fetch` leaves under /work/.mirror/owner+name/repo
 * (override with C2PA_FILES_MIRROR), else downloaded from raw.githubusercontent.com at that commit;
 * it is kept only if its hash matches. Idempotent. Exit code 0 only when every row was written.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const here = import.meta.dirname;
export const C2PA_FILES = resolve(here, "../../.cache/c2pa-files");
const mirror = process.env.C2PA_FILES_MIRROR ?? "/work/.mirror";

export interface C2paFileRow {
  source: string;
  commit: string;
  path: string;
  sha256: string;
  name: string;
  /** generator | camera | edit | test */
  kind: string;
  /** What the file's own manifests say it is: `ai` (a generator's label somewhere in the store) or `none`. */
  expect: string;
  note: string;
}

export function c2paFileRows(): C2paFileRow[] {
  const [head, ...lines] = readFileSync(join(here, "manifest.tsv"), "utf8").split("\n").filter(Boolean);
  const cols = head!.split("\t");
  return lines.map((l) => Object.fromEntries(l.split("\t").map((v, i) => [cols[i]!, v])) as unknown as C2paFileRow);
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function bytesOf(row: C2paFileRow): Promise<Uint8Array | null> {
  const repo = row.source.replace(/^github:/, "");
  const dir = join(mirror, repo.replace("/", "+"), "repo");
  if (existsSync(dir)) {
    try {
      return execFileSync("git", ["-C", dir, "cat-file", "blob", `${row.commit}:${row.path}`], { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] });
    } catch {
      // Not in this snapshot: try the network.
    }
  }
  const res = await fetch(`https://raw.githubusercontent.com/${repo}/${row.commit}/${row.path}`).catch(() => null);
  return res?.ok ? new Uint8Array(await res.arrayBuffer()) : null;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  mkdirSync(C2PA_FILES, { recursive: true });
  let missing = 0;
  for (const row of c2paFileRows()) {
    const target = join(C2PA_FILES, row.name);
    if (existsSync(target) && sha256(readFileSync(target)) === row.sha256) continue;
    const bytes = await bytesOf(row);
    if (!bytes || sha256(bytes) !== row.sha256) {
      console.error(`${row.name}: ${bytes ? "hash differs" : "not found"} (${row.source}@${row.commit.slice(0, 12)}:${row.path})`);
      missing++;
      continue;
    }
    writeFileSync(target, bytes);
  }
  console.log(`${C2PA_FILES}: ${c2paFileRows().length - missing} of ${c2paFileRows().length} files`);
  process.exit(missing ? 1 : 0);
}
