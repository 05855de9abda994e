import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/**
 * A short digest of the files whose code makes a cached fixture (its recipe, with the sources and
 * versions it names). A cache folder named after it is never read by a recipe that changed: the
 * fixtures are rebuilt, where a cache keyed by file name alone would serve the old ones.
 */
export function recipeKey(files: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(readFileSync(file)).update("\0");
  return hash.digest("hex").slice(0, 12);
}
