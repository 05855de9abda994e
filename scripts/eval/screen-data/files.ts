import { readFileSync } from "node:fs";
import { parseManifest, type Entry } from "./manifest";

export const MANIFEST = new URL("manifest.tsv", import.meta.url);

export function readManifest(url: URL = MANIFEST): Entry[] {
  return parseManifest(readFileSync(url, "utf8"));
}

/** Where build.ts puts an entry's bytes (gitignored). */
export function cachePath(e: Entry): URL {
  const extension = e.path.match(/\.[a-z]+$/i)?.[0].toLowerCase() ?? "";
  return new URL(`../../../.cache/screen-data/${e.repo.replace("/", "+")}/${e.sha256.slice(0, 16)}${extension}`, import.meta.url);
}
