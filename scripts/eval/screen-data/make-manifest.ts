/**
 * Writes manifest.tsv from the rules of sources.ts and the fetched snapshots: one row per image
 * (hash, size, class, split). An image seen twice (a repository that copies its pictures into
 * train/val/test folders) is kept once; an image in two sources would leak across the split and
 * stops the run; an image its repository files under both classes is left out (its label is
 * unknown). Files the snapshot lacks (≥ 4 MiB) are counted and left out.
 *
 *   npx tsx scripts/eval/screen-data/make-manifest.ts
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Snapshot } from "./git";
import { MANIFEST } from "./files";
import { formatManifest, type Entry } from "./manifest";
import { IMAGE_FILE, mirrorDir, SOURCES } from "./sources";

let entries: Entry[] = [];
const seen = new Map<string, Entry>();
const conflicting = new Set<string>();
for (const source of SOURCES) {
  const snapshot = new Snapshot(process.env.SCREEN_DATA_MIRROR ? `${process.env.SCREEN_DATA_MIRROR}/${source.repo.replace("/", "+")}/repo` : mirrorDir(source.repo));
  if (!snapshot.present || !snapshot.hasCommit(source.commit)) throw new Error(`fetch ${source.repo} at ${source.commit} first (search tool: fetch github:${source.repo})`);
  let absent = 0;
  let duplicates = 0;
  for (const rule of source.rules) {
    for (const path of snapshot.files(source.commit, rule.under)) {
      const name = path.split("/").at(-1)!;
      if (!IMAGE_FILE.test(name) || rule.exclude?.test(name) || (rule.only && !rule.only.test(path))) continue;
      const bytes = snapshot.read(source.commit, path);
      if (!bytes) {
        absent += 1;
        continue;
      }
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      const before = seen.get(sha256);
      if (before) {
        if (before.repo !== source.repo) throw new Error(`${source.repo}:${path} is also ${before.repo}:${before.path}`);
        if (before.cls !== rule.cls) conflicting.add(sha256);
        else duplicates += 1;
        continue;
      }
      const entry: Entry = { repo: source.repo, commit: source.commit, path, sha256, bytes: bytes.length, cls: rule.cls, display: rule.display ?? "", licence: source.licence, split: source.split, note: rule.note ?? "" };
      seen.set(sha256, entry);
      entries.push(entry);
    }
  }
  entries = entries.filter((e) => !conflicting.has(e.sha256));
  const count = (cls: string) => entries.filter((e) => e.repo === source.repo && e.cls === cls).length;
  console.log(`${source.repo} (${source.split}): ${count("recapture")} recaptures, ${count("real")} real; ${duplicates} duplicates dropped, ${conflicting.size} labelled both ways left out so far, ${absent} absent from the snapshot`);
}
writeFileSync(MANIFEST, formatManifest(entries));
console.log(`${entries.length} images → ${MANIFEST.pathname}`);
