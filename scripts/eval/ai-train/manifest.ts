import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/*
 * The labelled images as the data build left them: `.cache/ai-data/<split>/<class>/<file>`, each
 * joined by SHA-256 with its row of scripts/eval/ai-data/manifest.tsv (source, generator, family,
 * hard-case tags).
 */

export interface Entry {
  file: string;
  split: "train" | "val" | "test";
  class: "generated" | "real";
  source: string;
  generator: string;
  family: string;
  tags: string;
}

const MANIFEST = resolve(import.meta.dirname, "../ai-data/manifest.tsv");
const SPLITS = ["train", "val", "test"] as const;
const CLASSES = ["generated", "real"] as const;

function manifestRows(): Map<string, Record<string, string>> {
  const rows = new Map<string, Record<string, string>>();
  if (!existsSync(MANIFEST)) return rows;
  const [header, ...lines] = readFileSync(MANIFEST, "utf8").split("\n").filter((l) => l && !l.startsWith("#"));
  const names = header!.split("\t");
  for (const line of lines) {
    const cells = line.split("\t");
    const row = Object.fromEntries(names.map((n, i) => [n, cells[i] ?? ""]));
    if (row.sha256) rows.set(row.sha256, row);
  }
  return rows;
}

export function loadManifest(dataDir: string): Entry[] {
  const rows = manifestRows();
  const entries: Entry[] = [];
  for (const split of SPLITS) {
    for (const cls of CLASSES) {
      const dir = join(dataDir, split, cls);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir).sort()) {
        if (!/\.(jpe?g|png|webp)$/i.test(name)) continue;
        const file = join(dir, name);
        const sha = createHash("sha256").update(readFileSync(file)).digest("hex");
        const row = rows.get(sha);
        entries.push({
          file,
          split,
          class: cls,
          source: row?.source ?? name.split("__")[0]!,
          generator: row?.generator ?? (cls === "real" ? "camera" : "unknown-generator"),
          family: row?.family ?? (cls === "real" ? "camera" : "unknown"),
          tags: row?.hard_case ?? row?.tags ?? "",
        });
      }
    }
  }
  return entries;
}
